package io.kafkas3archiver.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The in-process broker's log cleaner, for a test that needs compaction to have happened: makes it
 * look for work often, and waits until it has removed records.
 */
final class LogCleaner {
  private LogCleaner() {}

  /**
   * The cleaner sleeps {@code log.cleaner.backoff.ms} (15 s by default) when it finds nothing to
   * clean; a cluster-wide dynamic setting of 200 ms makes it look again soon after a segment rolls.
   */
  static void speedUp(String bootstrapServers) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.BROKER, ""),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("log.cleaner.backoff.ms", "200"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Reads {@code topic} until {@code expected} offsets below each partition's end are absent: the
   * cleaner has done all it will (archiving a partly cleaned log would let the cleaner remove
   * archived records afterwards, and the comparison would no longer hold), at most {@code within}.
   * Returns them per partition: the offsets the cleaner removed.
   */
  static Map<Integer, Ranges> awaitRemoved(
      String bootstrapServers,
      String topic,
      Map<TopicPartition, Long> ends,
      long expected,
      Duration within)
      throws InterruptedException {
    long started = System.nanoTime();
    long until = started + within.toNanos();
    Map<Integer, Ranges> last = null;
    while (System.nanoTime() < until) {
      Map<Integer, Ranges> absent = absent(bootstrapServers, ends);
      if (absent.values().stream().allMatch(r -> r.size() == expected)) {
        System.out.printf(
            "log cleaner: %s removed %s, after %d ms%n",
            topic, absent, (System.nanoTime() - started) / 1_000_000);
        return absent;
      }
      last = absent;
      Thread.sleep(200);
    }
    throw new AssertionError(
        "the broker's log cleaner did not remove "
            + expected
            + " records of each partition of "
            + topic
            + " within "
            + within.toSeconds()
            + " s; absent offsets at the last read: "
            + last);
  }

  private static Map<Integer, Ranges> absent(
      String bootstrapServers, Map<TopicPartition, Long> ends) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    Map<Integer, Ranges> out = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
      consumer.assign(new ArrayList<>(ends.keySet()));
      consumer.seekToBeginning(ends.keySet());
      Map<Integer, Ranges> present = new TreeMap<>();
      ends.keySet().forEach(tp -> present.put(tp.partition(), new Ranges()));
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read the compacted topic back within 10 s");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          present.get(r.partition()).add(r.offset(), r.offset());
        }
      }
      ends.forEach(
          (tp, end) -> {
            Ranges a = Ranges.of(0, end - 1);
            a.removeAll(present.get(tp.partition()));
            out.put(tp.partition(), a);
          });
    }
    return out;
  }
}
