package io.kafkas3archiver.redrive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.decode.TopicPartition;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A batch the event source mapping gave up on, as its on-failure destination holds it: the
 * invocation record AWS documents for Kafka sources ("Capturing discarded batches for an Amazon MSK
 * event source"). What the redrive needs from it is {@code KafkaBatchInfo}: per {@code
 * <topic>-<partition>} the first and last offset of the skipped records ({@code recordsInfo}, the
 * offsets as strings), the cluster's {@code bootstrapServers} and, for MSK, its {@code
 * eventSourceArn}. The same record arrives in an SQS message body, inside an SNS notification
 * (whose {@code Message} is the record as text) or as an S3 object (which also carries the whole
 * event as {@code payload}; the redrive reads the records from Kafka, as for the others).
 */
public record FailedBatch(
    String source,
    String condition,
    Optional<String> eventSourceArn,
    Optional<String> bootstrapServers,
    Map<TopicPartition, Range> ranges) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The skipped offsets of one topic-partition, both inclusive. */
  public record Range(long first, long last) {
    public long count() {
      return last - first + 1;
    }

    @Override
    public String toString() {
      return first + ".." + last;
    }
  }

  public FailedBatch {
    ranges = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(ranges));
  }

  /** The event source the archiver logs: MSK's {@code aws:kafka} or {@code SelfManagedKafka}. */
  public String eventSource() {
    return eventSourceArn.filter(a -> a.contains(":kafka:")).isPresent()
        ? "aws:kafka"
        : "SelfManagedKafka";
  }

  /**
   * Parses one invocation record; {@code source} names where it came from (an SQS message id, an
   * object key, a file) for messages. An SNS notification is unwrapped first.
   */
  public static FailedBatch parse(byte[] body, String source) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      // The parser's message may quote the body (payload, with an S3 record): say where only.
      throw new RedriveException(source + " is not JSON" + where(e));
    }
    if (root != null && "Notification".equals(root.path("Type").asText()) && root.has("Message")) {
      try {
        root = JSON.readTree(root.get("Message").asText());
      } catch (IOException e) {
        throw new RedriveException(
            source + " is an SNS notification whose Message is not JSON" + where(e));
      }
    }
    if (root == null || !root.path("KafkaBatchInfo").isObject()) {
      throw new RedriveException(
          source
              + " is not a Kafka event source mapping's on-failure record: it has no"
              + " KafkaBatchInfo object (is this the on-failure destination of the archiver's"
              + " mapping?)");
    }
    JsonNode info = root.get("KafkaBatchInfo");
    JsonNode records = info.path("recordsInfo");
    if (!records.isObject() || records.isEmpty()) {
      throw new RedriveException(
          source
              + " has no KafkaBatchInfo.recordsInfo (per topic-partition offsets): "
              + (info.has("recordInfo")
                  ? "it is a record of a kafka:// destination, which holds the records"
                      + " themselves; consume that topic instead"
                  : "nothing to redrive"));
    }
    Map<TopicPartition, Range> ranges = new LinkedHashMap<>();
    records
        .fields()
        .forEachRemaining(
            e -> {
              TopicPartition tp =
                  TopicPartition.parse(e.getKey())
                      .orElseThrow(
                          () ->
                              new RedriveException(
                                  source
                                      + ": recordsInfo key '"
                                      + e.getKey()
                                      + "' is not <topic>-<partition>"));
              long first = offset(e.getValue(), "firstRecordOffset", source, e.getKey());
              long last = offset(e.getValue(), "lastRecordOffset", source, e.getKey());
              if (last < first) {
                throw new RedriveException(
                    source + ": " + e.getKey() + " has lastRecordOffset before firstRecordOffset");
              }
              ranges.put(tp, new Range(first, last));
            });
    return new FailedBatch(
        source,
        root.path("requestContext").path("condition").asText("unknown"),
        text(info, "eventSourceArn"),
        text(info, "bootstrapServers"),
        ranges);
  }

  private static String where(IOException e) {
    return e instanceof com.fasterxml.jackson.core.JsonProcessingException j
            && j.getLocation() != null
        ? " (at line "
            + j.getLocation().getLineNr()
            + ", column "
            + j.getLocation().getColumnNr()
            + ")"
        : "";
  }

  private static long offset(JsonNode range, String field, String source, String tp) {
    JsonNode v = range.path(field);
    try {
      long n = v.isNumber() ? v.longValue() : Long.parseLong(v.asText());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new RedriveException(
        source + ": recordsInfo." + tp + "." + field + " is not an offset (a whole number >= 0)");
  }

  private static Optional<String> text(JsonNode node, String field) {
    String v = node.path(field).asText("");
    return v.isBlank() || v.equals("...") ? Optional.empty() : Optional.of(v);
  }
}
