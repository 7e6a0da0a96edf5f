package io.kafkas3archiver.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the cluster says about a topic: its partitions, each log's start and end offsets, the
 * archiver group's committed offsets, and whether an offset range holds any record (the probe that
 * tells a transaction marker or a compacted hole at an object edge from a lost object). Reads only;
 * the consumer is assigned, never subscribed, so it joins no group and commits nothing.
 */
final class ClusterView implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /**
   * A partition's log: {@code start} is its first offset, {@code end} its last stable offset (the
   * log end, short of any open transaction).
   */
  record Log(long start, long end) {}

  private final Admin admin;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;
  long probes;

  ClusterView(String topic, Map<String, Object> clientProperties) {
    this.topic = topic;
    this.admin = Admin.create(new HashMap<>(clientProperties));
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
    c.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    this.consumer = new KafkaConsumer<>(c);
  }

  int partitions() {
    try {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .size();
    } catch (ExecutionException | TimeoutException e) {
      throw new AuditException(
          "could not describe the topic "
              + topic
              + " on the cluster ("
              + (e.getCause() == null ? e : e.getCause()).getMessage()
              + "): check --bootstrap-servers, the client settings and that the topic exists",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AuditException("interrupted", e);
    }
  }

  Map<Integer, Log> logs(int partitions) {
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    try {
      var starts = admin.listOffsets(earliest).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      // The last stable offset: a read_committed probe never waits on an open transaction.
      var ends =
          admin
              .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
              .all()
              .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      Map<Integer, Log> out = new TreeMap<>();
      for (var e : starts.entrySet()) {
        ListOffsetsResult.ListOffsetsResultInfo end = ends.get(e.getKey());
        out.put(e.getKey().partition(), new Log(e.getValue().offset(), end.offset()));
      }
      return out;
    } catch (ExecutionException | TimeoutException e) {
      throw new AuditException(
          "could not read the log offsets of " + topic + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AuditException("interrupted", e);
    }
  }

  /** The group's committed offset per partition (the next offset the mapping will deliver). */
  Map<Integer, Long> committed(String group) {
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      Map<Integer, Long> out = new TreeMap<>();
      offsets.forEach(
          (tp, om) -> {
            if (tp.topic().equals(topic) && om != null) {
              out.put(tp.partition(), om.offset());
            }
          });
      return out;
    } catch (ExecutionException | TimeoutException e) {
      throw new AuditException(
          "could not read the committed offsets of the group "
              + group
              + ": "
              + e.getMessage()
              + "; check --group (the event source mapping's consumer group id)",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AuditException("interrupted", e);
    }
  }

  /**
   * Per partition, the first offset whose record timestamp is {@code time} or later (the consumer's
   * {@code offsetsForTimes}), or empty where no record is that late. Record timestamps need not
   * grow with the offset (a producer sets CreateTime), so this is the broker's answer: the earliest
   * such offset.
   */
  Map<Integer, OptionalLong> offsetsForTimes(int partitions, Instant time) {
    Map<TopicPartition, Long> query = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      query.put(new TopicPartition(topic, p), time.toEpochMilli());
    }
    Map<Integer, OptionalLong> out = new TreeMap<>();
    try {
      consumer
          .offsetsForTimes(query, TIMEOUT)
          .forEach(
              (tp, found) ->
                  out.put(
                      tp.partition(),
                      found == null ? OptionalLong.empty() : OptionalLong.of(found.offset())));
    } catch (KafkaException e) {
      throw new AuditException(
          "could not map "
              + time
              + " to offsets of "
              + topic
              + " ("
              + e.getMessage()
              + "): check the consumer settings, or give --from-offset/--to-offset",
          e);
    }
    return out;
  }

  /**
   * The first offset in {@code [from, to]} that holds a record a consumer is given, or empty when
   * the log holds none there (transaction markers, aborted records under read_committed, compacted
   * records) or only tombstones: a values-only archive skips them and no object claims a range of
   * tombstones only (with metadata, a lost object of tombstones only is therefore not seen). One
   * seek and as many fetches as it takes to pass {@code to}.
   */
  OptionalLong firstRecord(int partition, long from, long to) {
    probes++;
    TopicPartition tp = new TopicPartition(topic, partition);
    consumer.assign(List.of(tp));
    consumer.seek(tp, from);
    long until = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < until) {
      List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
      consumer.poll(Duration.ofMillis(200)).records(tp).forEach(got::add);
      for (ConsumerRecord<byte[], byte[]> r : got) {
        if (r.offset() > to) {
          return OptionalLong.empty();
        }
        // A tombstone is skipped in values-only mode and nothing holds its claim (a range of
        // tombstones only writes no object): it does not make a range missing.
        if (r.offset() >= from && r.value() != null) {
          return OptionalLong.of(r.offset());
        }
      }
      if (consumer.position(tp) > to) {
        return OptionalLong.empty();
      }
    }
    throw new AuditException(
        "the cluster gave no answer for "
            + topic
            + "-"
            + partition
            + " offsets "
            + from
            + ".."
            + to
            + " within "
            + TIMEOUT.toSeconds()
            + " s; check the consumer settings and the network path");
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
    admin.close(Duration.ofSeconds(5));
  }
}
