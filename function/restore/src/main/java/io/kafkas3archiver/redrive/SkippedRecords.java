package io.kafkas3archiver.redrive;

import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a skipped offset range back from the topic, while the topic still holds it, and hands it on
 * in batches no larger than the mapping's own (10,000 records, about 6 MB of event), with each
 * record as the mapping would have delivered it. Offsets the log no longer holds (retention,
 * compaction) are reported, never invented; offsets in the range that hold no record (transaction
 * markers) are simply absent, as in the mapping's batches.
 */
final class SkippedRecords implements AutoCloseable {
  /** The mapping's limits: records per batch, and the synchronous invocation payload. */
  static final int MAX_RECORDS = 10_000;

  static final long MAX_EVENT_BYTES = 6L * 1024 * 1024;

  /** Receives one batch of records of one topic-partition, in offset order. */
  interface BatchSink {
    void accept(List<KafkaRecord> batch);
  }

  /** What the log held of a range: the records handed on, and the offsets it no longer has. */
  record Read(long records, long firstAvailable, long missingBefore) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String bootstrapServers;
  private final Duration timeout;

  SkippedRecords(Map<String, Object> clientProperties, Duration timeout) {
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "kafka-s3-archiver-redrive");
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    this.bootstrapServers = String.valueOf(p.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
    this.consumer = new KafkaConsumer<>(p);
    this.timeout = timeout;
  }

  /**
   * Reads {@code range} of {@code tp} into {@code sink}, batch by batch. Throws when the topic or
   * partition is gone, or the cluster cannot be read within the timeout.
   */
  Read read(TopicPartition tp, FailedBatch.Range range, BatchSink sink) {
    org.apache.kafka.common.TopicPartition partition =
        new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition());
    long logStart;
    long logEnd;
    try {
      consumer.assign(List.of(partition));
      logStart = consumer.beginningOffsets(List.of(partition), timeout).get(partition);
      logEnd = consumer.endOffsets(List.of(partition), timeout).get(partition);
    } catch (KafkaException e) {
      throw new RedriveException(
          "could not read "
              + tp
              + " on "
              + bootstrapServers
              + " ("
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage()
              + "); check --bootstrap-servers, the auth settings and the network path",
          e);
    }
    long first = Math.max(range.first(), logStart);
    long missing = first - range.first();
    if (first > range.last() || first >= logEnd) {
      return new Read(0, logStart, Math.min(missing, range.count()));
    }
    consumer.seek(partition, first);
    List<KafkaRecord> batch = new ArrayList<>();
    long eventBytes = 0;
    long records = 0;
    long deadline = System.nanoTime() + timeout.toNanos();
    long end = Math.min(range.last() + 1, logEnd);
    while (consumer.position(partition, timeout) < end) {
      if (System.nanoTime() > deadline) {
        throw new RedriveException(
            "reading "
                + tp
                + " offsets "
                + range
                + " on "
                + bootstrapServers
                + " stalled for "
                + timeout.toSeconds()
                + " s at offset "
                + consumer.position(partition, timeout));
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
        if (r.offset() < first || r.offset() > range.last()) {
          continue;
        }
        deadline = System.nanoTime() + timeout.toNanos();
        KafkaRecord record = record(r);
        long size = eventBytes(record);
        if (!batch.isEmpty()
            && (batch.size() >= MAX_RECORDS || eventBytes + size > MAX_EVENT_BYTES)) {
          sink.accept(List.copyOf(batch));
          batch.clear();
          eventBytes = 0;
        }
        batch.add(record);
        eventBytes += size;
        records++;
      }
    }
    if (!batch.isEmpty()) {
      sink.accept(List.copyOf(batch));
    }
    return new Read(records, logStart, missing);
  }

  /** The record as the mapping hands it to the function (key and value bytes, headers). */
  private static KafkaRecord record(ConsumerRecord<byte[], byte[]> r) {
    List<Header> headers = new ArrayList<>();
    r.headers().forEach(h -> headers.add(new Header(h.key(), h.value())));
    return new KafkaRecord(
        r.topic(),
        r.partition(),
        r.offset(),
        r.timestamp(),
        r.timestampType().name(),
        r.key(),
        r.value(),
        headers);
  }

  /**
   * An upper bound of the record's share of an event: base64 key and value, each header byte as up
   * to four characters of a JSON number list, and the fixed fields.
   */
  static long eventBytes(KafkaRecord r) {
    long n = 200 + r.topic().length();
    n += r.key() == null ? 0 : (r.key().length + 2) / 3 * 4;
    n += r.value() == null ? 0 : (r.value().length + 2) / 3 * 4;
    for (Header h : r.headers()) {
      n += h.name().length() + 8 + (h.value() == null ? 0 : 4L * h.value().length);
    }
    return n;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
