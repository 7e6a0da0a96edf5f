package io.kafkas3archiver.esm;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Writes the event a Lambda Kafka event source mapping sends (DESIGN.md §1), byte for byte the
 * shape the function receives in AWS: {@code {"eventSource", ["eventSourceArn",]
 * "bootstrapServers", "records": {"<topic>-<partition>": [record, ...]}}}. Each record carries
 * {@code topic, partition, offset, timestamp, timestampType, key} (base64, absent when the Kafka
 * key is null), {@code value} (base64, null for a tombstone) and {@code headers} as a list of
 * one-entry maps {@code name -> [byte values]} (Java's signed bytes, as the mapping's Java poller
 * writes them).
 *
 * <p>Records are serialised one at a time so the emulator knows each one's size before it adds it
 * to a batch: that is how the 6 MB payload cap is honoured.
 */
public final class EsmEventWriter {
  private static final JsonFactory JSON = new JsonFactory();
  private static final Base64.Encoder BASE64 = Base64.getEncoder();

  /** Which mapping the event imitates. */
  public sealed interface Flavour {
    /** Amazon MSK: {@code "eventSource": "aws:kafka"} and the cluster's ARN. */
    record Msk(String clusterArn) implements Flavour {}

    /** A self-managed cluster: {@code "eventSource": "SelfManagedKafka"}, no ARN. */
    record SelfManaged() implements Flavour {}

    static Flavour selfManaged() {
      return new SelfManaged();
    }
  }

  /** One record already serialised, with its place in the batch and its create time. */
  public record SerializedRecord(
      String topic, int partition, long offset, long timestamp, byte[] json) {
    public String topicPartition() {
      return topic + "-" + partition;
    }
  }

  private final Flavour flavour;
  private final String bootstrapServers;
  private final byte[] prefix;

  public EsmEventWriter(Flavour flavour, String bootstrapServers) {
    this.flavour = flavour;
    this.bootstrapServers = bootstrapServers;
    this.prefix = prefix();
  }

  /** The size of an event with no records: everything but the records map's entries. */
  public int envelopeBytes() {
    return prefix.length + "}}".length();
  }

  /**
   * The bytes a record adds to the event beyond its own JSON: a new map entry {@code ,"t-0":[]} for
   * the first record of its topic-partition, a comma for the next ones. Counting the comma of the
   * first entry too keeps the sum an upper bound (by one byte).
   */
  public static int recordOverhead(String topicPartition, boolean firstOfItsPartition) {
    return firstOfItsPartition ? quoted(topicPartition).length + 4 : 1;
  }

  public static SerializedRecord serialize(ConsumerRecord<byte[], byte[]> r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("topic", r.topic());
      g.writeNumberField("partition", r.partition());
      g.writeNumberField("offset", r.offset());
      g.writeNumberField("timestamp", r.timestamp());
      g.writeStringField("timestampType", r.timestampType().name());
      if (r.key() != null) {
        g.writeStringField("key", BASE64.encodeToString(r.key()));
      }
      if (r.value() == null) {
        g.writeNullField("value");
      } else {
        g.writeStringField("value", BASE64.encodeToString(r.value()));
      }
      g.writeArrayFieldStart("headers");
      for (Header h : r.headers()) {
        g.writeStartObject();
        if (h.value() == null) {
          g.writeNullField(h.key());
        } else {
          g.writeArrayFieldStart(h.key());
          for (byte b : h.value()) {
            g.writeNumber(b);
          }
          g.writeEndArray();
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new SerializedRecord(
        r.topic(), r.partition(), r.offset(), r.timestamp(), out.toByteArray());
  }

  /** The whole event: records grouped by topic-partition, in the order given within each. */
  public byte[] event(List<SerializedRecord> records) {
    Map<String, List<SerializedRecord>> byPartition = new LinkedHashMap<>();
    for (SerializedRecord r : records) {
      byPartition.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>()).add(r);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(envelopeBytes() + 256 * records.size());
    out.writeBytes(prefix);
    boolean firstEntry = true;
    for (var entry : byPartition.entrySet()) {
      if (!firstEntry) {
        out.write(',');
      }
      firstEntry = false;
      out.writeBytes(quoted(entry.getKey()));
      out.write(':');
      out.write('[');
      boolean firstRecord = true;
      for (SerializedRecord r : entry.getValue()) {
        if (!firstRecord) {
          out.write(',');
        }
        firstRecord = false;
        out.writeBytes(r.json());
      }
      out.write(']');
    }
    out.write('}');
    out.write('}');
    return out.toByteArray();
  }

  /** {@code {"eventSource":..,["eventSourceArn":..,]"bootstrapServers":..,"records":{}. */
  private byte[] prefix() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      switch (flavour) {
        case Flavour.Msk msk -> {
          g.writeStringField("eventSource", "aws:kafka");
          g.writeStringField("eventSourceArn", msk.clusterArn());
        }
        case Flavour.SelfManaged s -> g.writeStringField("eventSource", "SelfManagedKafka");
      }
      g.writeStringField("bootstrapServers", bootstrapServers);
      g.writeFieldName("records");
      g.writeStartObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // The generator closes the objects it opened; keep everything up to the records map's "{".
    String text = out.toString(StandardCharsets.UTF_8);
    return text.substring(0, text.lastIndexOf('{') + 1).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] quoted(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeString(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
