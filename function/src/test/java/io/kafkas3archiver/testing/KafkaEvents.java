package io.kafkas3archiver.testing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds event source mapping events ({@code records} keyed by topic-partition) for tests. */
public final class KafkaEvents {
  private static final JsonFactory JSON = new JsonFactory();

  private KafkaEvents() {}

  /** One record as the ESM delivers it; a null value is a tombstone. */
  public record Rec(
      String topic, int partition, long offset, long timestamp, byte[] key, byte[] value) {

    public static Rec of(String topic, int partition, long offset, long timestamp, String value) {
      return new Rec(
          topic,
          partition,
          offset,
          timestamp,
          ("k" + offset).getBytes(StandardCharsets.UTF_8),
          value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    public String topicPartition() {
      return topic + "-" + partition;
    }
  }

  public static byte[] event(List<Rec> records) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(records.size() * 200 + 256);
    write(records, out);
    return out.toByteArray();
  }

  public static String eventJson(List<Rec> records) {
    return new String(event(records), StandardCharsets.UTF_8);
  }

  /** Writes the event, records grouped by topic-partition in first-seen order. */
  public static void write(List<Rec> records, OutputStream out) {
    Map<String, List<Rec>> byPartition = new LinkedHashMap<>();
    for (Rec r : records) {
      byPartition.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>()).add(r);
    }
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("eventSource", "SelfManagedKafka");
      g.writeStringField("bootstrapServers", "127.0.0.1:9092");
      g.writeObjectFieldStart("records");
      for (var e : byPartition.entrySet()) {
        g.writeArrayFieldStart(e.getKey());
        for (Rec r : e.getValue()) {
          g.writeStartObject();
          g.writeStringField("topic", r.topic());
          g.writeNumberField("partition", r.partition());
          g.writeNumberField("offset", r.offset());
          g.writeNumberField("timestamp", r.timestamp());
          g.writeStringField("timestampType", "CREATE_TIME");
          if (r.key() != null) {
            g.writeStringField("key", Base64.getEncoder().encodeToString(r.key()));
          }
          if (r.value() == null) {
            g.writeNullField("value");
          } else {
            g.writeStringField("value", Base64.getEncoder().encodeToString(r.value()));
          }
          g.writeArrayFieldStart("headers");
          g.writeEndArray();
          g.writeEndObject();
        }
        g.writeEndArray();
      }
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
