package io.kafkas3archiver.redrive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.table.BatchArchiver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;

/**
 * How a redriven batch reaches the archiver: through its own entry points, never around them, so
 * its configuration, its claim chain (a redelivered offset is stored once) and its error objects
 * apply as to any batch from the mapping.
 *
 * <ul>
 *   <li>{@link InProcess}: the archiver's {@link BatchArchiver} built in this process from the
 *       archiver's settings (the command line: the same environment variables the function has).
 *   <li>{@link Function}: the deployed archiver function, invoked with the event the mapping would
 *       have sent (the restore Lambda's redrive action; the command with {@code
 *       --archiver-function}). It runs with its own role, environment, metrics and log line.
 * </ul>
 */
public sealed interface ArchiverEntry {
  /**
   * Archives {@code records} (one topic-partition, in offset order). Returns, per topic-partition,
   * the first offset the archiver did not write yet (the fan-out guard defers records to a next
   * batch); empty when everything is stored. Throws when the archiver failed the batch.
   */
  Map<String, Long> archive(String eventSource, String eventSourceArn, List<KafkaRecord> records);

  /** Which archiver, for messages. */
  String describe();

  /** The archiver's own pipeline, in this process. */
  record InProcess(BatchArchiver archiver, Duration timeout, Clock clock, String describe)
      implements ArchiverEntry {
    @Override
    public Map<String, Long> archive(
        String eventSource, String eventSourceArn, List<KafkaRecord> records) {
      BatchOutcome outcome =
          archiver.archive(
              new KafkaBatch(eventSource, records, List.of()),
              Deadline.in(timeout.toMillis(), clock));
      if (!outcome.succeeded()) {
        throw new RedriveException(
            "the archiver failed the batch: " + outcome.failures().get(0).error().getMessage(),
            outcome.failures().get(0).error());
      }
      return outcome.firstUnwrittenOffsets();
    }
  }

  /** The deployed archiver function (its alias), invoked synchronously as the mapping does. */
  record Function(LambdaClient lambda, String functionName) implements ArchiverEntry {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Map<String, Long> archive(
        String eventSource, String eventSourceArn, List<KafkaRecord> records) {
      byte[] event = event(eventSource, eventSourceArn, records);
      InvokeResponse response;
      try {
        response =
            lambda.invoke(b -> b.functionName(functionName).payload(SdkBytes.fromByteArray(event)));
      } catch (SdkException e) {
        throw new RedriveException(
            "could not invoke the archiver function "
                + functionName
                + " ("
                + e.getMessage()
                + "): check lambda:InvokeFunction on it and the network path to the Lambda API (a"
                + " VPC function needs an interface endpoint for Lambda, or a NAT gateway)",
            e);
      }
      String body = response.payload() == null ? "" : response.payload().asUtf8String();
      if (response.functionError() != null) {
        throw new RedriveException(
            "the archiver function "
                + functionName
                + " failed the batch ("
                + response.functionError()
                + "): "
                + errorMessage(body));
      }
      Map<String, Long> unwritten = new TreeMap<>();
      try {
        JsonNode answer = JSON.readTree(body);
        if (answer != null) {
          for (JsonNode item : answer.path("batchItemFailures")) {
            JsonNode id = item.path("itemIdentifier");
            unwritten.merge(
                id.path("topic-partition").asText(), id.path("offset").asLong(), Math::min);
          }
        }
      } catch (IOException e) {
        throw new RedriveException(
            "the archiver function " + functionName + " answered with something not JSON: " + body);
      }
      return unwritten;
    }

    @Override
    public String describe() {
      return "the archiver function " + functionName;
    }

    /** The event a Kafka event source mapping sends (DESIGN §1). */
    static byte[] event(String eventSource, String eventSourceArn, List<KafkaRecord> records) {
      ObjectNode event = JSON.createObjectNode();
      event.put("eventSource", eventSource);
      if (eventSourceArn != null) {
        event.put("eventSourceArn", eventSourceArn);
      }
      ObjectNode byPartition = event.putObject("records");
      Base64.Encoder base64 = Base64.getEncoder();
      for (KafkaRecord r : records) {
        ArrayNode list =
            byPartition.has(r.topicPartition())
                ? (ArrayNode) byPartition.get(r.topicPartition())
                : byPartition.putArray(r.topicPartition());
        ObjectNode json = list.addObject();
        json.put("topic", r.topic());
        json.put("partition", r.partition());
        json.put("offset", r.offset());
        json.put("timestamp", r.timestamp());
        json.put("timestampType", r.timestampType());
        if (r.key() != null) {
          json.put("key", base64.encodeToString(r.key()));
        }
        json.put("value", r.value() == null ? null : base64.encodeToString(r.value()));
        ArrayNode headers = json.putArray("headers");
        for (Header h : r.headers()) {
          ObjectNode one = headers.addObject();
          if (h.value() == null) {
            one.putNull(h.name());
          } else {
            ArrayNode bytes = one.putArray(h.name());
            for (byte b : h.value()) {
              bytes.add(b);
            }
          }
        }
      }
      try {
        return JSON.writeValueAsBytes(event);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static String errorMessage(String body) {
      try {
        JsonNode error = JSON.readTree(body.getBytes(StandardCharsets.UTF_8));
        if (error != null && error.hasNonNull("errorMessage")) {
          return error.path("errorType").asText("") + ": " + error.get("errorMessage").asText();
        }
      } catch (IOException e) {
        // not JSON: quote as is
      }
      return body;
    }
  }
}
