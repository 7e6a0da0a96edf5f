package io.kafkas3archiver.esm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.esm.EsmEventWriter.Flavour;
import io.kafkas3archiver.esm.EsmEventWriter.SerializedRecord;
import io.kafkas3archiver.esm.EventSourceEmulator.Range;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The invocation record a Lambda Kafka event source mapping sends to its on-failure destination
 * when it gives up on a batch, in the shape AWS documents ("Capturing discarded batches for an
 * Amazon MSK event source", the SNS/SQS and S3 example records): {@code requestContext} (with
 * {@code condition: RetryAttemptsExhausted} and the invoke count), {@code responseContext}, {@code
 * version}, {@code timestamp} and {@code KafkaBatchInfo} with, per {@code <topic>-<partition>},
 * {@code firstRecordOffset}/{@code lastRecordOffset} (strings) and the first and last record's
 * timestamps. An S3 destination also gets {@code payload}: the whole event, as a JSON string.
 */
public final class OnFailureRecord {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the records go: an SQS queue, an SNS topic or an S3 bucket. */
  public interface Destination {
    /** Whether the record carries the whole event ({@code payload}): S3 only. */
    boolean carriesPayload();

    void deliver(byte[] record);
  }

  private OnFailureRecord() {}

  static byte[] write(
      EventSourceEmulator.Settings settings,
      List<SerializedRecord> batch,
      Map<String, Range> ranges,
      int invokeCount,
      byte[] event,
      Destination destination) {
    ObjectNode record = JSON.createObjectNode();
    ObjectNode request = record.putObject("requestContext");
    request.put("requestId", UUID.randomUUID().toString());
    request.put(
        "functionArn", "arn:aws:lambda:us-east-1:123456789012:function:kafka-s3-archiver:live");
    request.put("condition", "RetryAttemptsExhausted");
    request.put("approximateInvokeCount", invokeCount);
    ObjectNode response = record.putObject("responseContext");
    response.put("statusCode", 200);
    response.put("executedVersion", "$LATEST");
    response.put("functionError", "Unhandled");
    record.put("version", "1.0");
    record.put("timestamp", Instant.now().toString());
    ObjectNode info = record.putObject("KafkaBatchInfo");
    info.put("batchSize", batch.size());
    if (settings.flavour() instanceof Flavour.Msk msk) {
      info.put("eventSourceArn", msk.clusterArn());
    }
    info.put("bootstrapServers", settings.bootstrapServers());
    info.put("payloadSize", event.length);
    Map<String, long[]> times = new LinkedHashMap<>();
    for (SerializedRecord r : batch) {
      long[] t = times.computeIfAbsent(r.topicPartition(), k -> new long[] {r.timestamp(), 0});
      t[1] = r.timestamp();
    }
    ObjectNode records = info.putObject("recordsInfo");
    ranges.forEach(
        (tp, range) -> {
          ObjectNode one = records.putObject(tp);
          one.put("firstRecordOffset", Long.toString(range.first()));
          one.put("lastRecordOffset", Long.toString(range.last()));
          one.put("firstRecordTimestamp", Instant.ofEpochMilli(times.get(tp)[0]).toString());
          one.put("lastRecordTimestamp", Instant.ofEpochMilli(times.get(tp)[1]).toString());
        });
    if (destination.carriesPayload()) {
      record.put("payload", new String(event, StandardCharsets.UTF_8));
    }
    try {
      return JSON.writeValueAsBytes(record);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
