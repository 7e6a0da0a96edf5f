package io.kafkas3archiver.esm;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces vehicle telemetry with a real {@link KafkaProducer}: JSON values, the vehicle id as key
 * (so records spread over the partitions by Kafka's own partitioner) and two headers. Values are a
 * function of the sequence number, so a test can check every archived row against what was sent.
 */
public final class SampleVehicleEvents {
  private static final int VEHICLES = 12;

  /** What the broker acknowledged for one record. */
  public record Produced(
      String topic,
      int partition,
      long offset,
      String key,
      String value,
      Map<String, String> headers) {}

  private SampleVehicleEvents() {}

  public static String key(int seq) {
    return String.format(Locale.ROOT, "KA-%02d-AB-%04d", seq % VEHICLES + 1, 1000 + seq % VEHICLES);
  }

  public static String value(int seq) {
    return value(seq, 0);
  }

  /** With {@code padding > 0}, a {@code "diagnostics"} string of that many characters is added. */
  public static String value(int seq, int padding) {
    double speed = (seq * 37 % 1200) / 10.0;
    double lat = 12.9 + (seq % 100) / 1000.0;
    double lon = 77.5 + (seq % 50) / 1000.0;
    return String.format(
        Locale.ROOT,
        "{\"vehicleId\":\"%s\",\"seq\":%d,\"speedKmh\":%.1f,\"location\":{\"lat\":%.3f,\"lon\":%.3f},"
            + "\"status\":{\"engine\":\"%s\"}%s}",
        key(seq),
        seq,
        speed,
        lat,
        lon,
        seq % 7 == 0 ? "idle" : "on",
        padding > 0 ? ",\"diagnostics\":\"" + "x".repeat(padding) + "\"" : "");
  }

  public static Map<String, String> headers(int seq) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("trace-id", String.format(Locale.ROOT, "%08x", seq * 2654435761L & 0xffffffffL));
    headers.put("source", "telematics-gateway");
    return headers;
  }

  /**
   * Sends records {@code first .. first+count-1} and waits for every acknowledgement (at most 30
   * s).
   */
  public static List<Produced> produce(
      String bootstrapServers, String topic, int first, int count) {
    return produce(bootstrapServers, topic, first, count, 0);
  }

  /**
   * As {@link #produce(String, String, int, int)}, each value padded (see {@link #value(int,
   * int)}).
   */
  public static List<Produced> produce(
      String bootstrapServers, String topic, int first, int count, int padding) {
    return produce(bootstrapServers, topic, first, count, padding, 0);
  }

  /**
   * As {@link #produce(String, String, int, int)}, by a transactional producer that commits after
   * every {@code perTransaction} records: each commit leaves a marker in every partition the
   * transaction wrote to, an offset no consumer is given, so the partitions' offsets have gaps.
   */
  public static List<Produced> produceInTransactions(
      String bootstrapServers, String topic, int first, int count, int perTransaction) {
    return produce(bootstrapServers, topic, first, count, 0, perTransaction);
  }

  private static List<Produced> produce(
      String bootstrapServers,
      String topic,
      int first,
      int count,
      int padding,
      int perTransaction) {
    Map<String, Object> config = new HashMap<>();
    config.putAll(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            5,
            // One request in flight: a retry after NOT_LEADER_OR_FOLLOWER on a topic created a
            // moment ago cannot overtake the next batch (seen: OutOfOrderSequence until timeout).
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
            1,
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
            30_000,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
            10_000,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class.getName()));
    if (perTransaction > 0) {
      config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-producer");
    }
    List<Future<RecordMetadata>> acks = new ArrayList<>(count);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      if (perTransaction > 0) {
        producer.initTransactions();
      }
      for (int seq = first; seq < first + count; seq++) {
        if (perTransaction > 0 && (seq - first) % perTransaction == 0) {
          producer.beginTransaction();
        }
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(
                topic,
                key(seq).getBytes(StandardCharsets.UTF_8),
                value(seq, padding).getBytes(StandardCharsets.UTF_8));
        headers(seq)
            .forEach(
                (name, v) ->
                    record
                        .headers()
                        .add(new RecordHeader(name, v.getBytes(StandardCharsets.UTF_8))));
        acks.add(producer.send(record));
        if (perTransaction > 0
            && ((seq - first) % perTransaction == perTransaction - 1 || seq == first + count - 1)) {
          producer.commitTransaction();
        }
      }
      producer.flush();
      List<Produced> produced = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        RecordMetadata m = acks.get(i).get(30, TimeUnit.SECONDS);
        int seq = first + i;
        produced.add(
            new Produced(
                m.topic(), m.partition(), m.offset(), key(seq), value(seq, padding), headers(seq)));
      }
      return produced;
    } catch (Exception e) {
      throw new IllegalStateException(
          "could not produce to " + topic + " at " + bootstrapServers, e);
    }
  }
}
