package io.kafkas3archiver.restore;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The restore's progress: a compacted topic in the target cluster holding, per source partition,
 * the last source offset restored, keyed by {@code s3://<bucket>/<prefix>|<topic>|<partition>}. Its
 * records are written in the same Kafka transaction as the restored records (see {@link
 * TransactionalSink}), so the two cannot disagree.
 *
 * <p>The topic is created only when the first record is ready to be produced: a dry run, a verify,
 * a restore of nothing or a refused one leaves no topic behind.
 */
final class Checkpoint {
  private final RestoreOptions options;
  private final TargetCluster cluster;
  private boolean topicReady;

  Checkpoint(RestoreOptions options, TargetCluster cluster) {
    this.options = options;
    this.cluster = cluster;
  }

  String topic() {
    return options.checkpointTopic();
  }

  /**
   * The last restored source offset per partition, from committed checkpoint records; empty when
   * the topic does not exist yet.
   *
   * <p>Several writers share the topic's one partition (the restore Lambda runs one transactional
   * id per source partition). A read_committed reader stops at the first open transaction, so a
   * checkpoint committed after another writer's transaction began would be invisible, and the
   * restore would produce that range again. So the read waits until no transaction is open on the
   * topic (each is open for the moment between its checkpoint record and its commit). Call it after
   * the producer's {@code initTransactions}, which aborts what this writer's own earlier run left
   * open.
   */
  Map<Integer, Long> load() throws InterruptedException {
    if (cluster.partitions(topic()).isEmpty()) {
      return Map.of();
    }
    topicReady = true;
    if (!TargetCluster.awaitSettledTransactions(cluster.admin(), topic(), Duration.ofSeconds(60))) {
      throw new RestoreException(
          "a transaction of another restore has been open on the checkpoint topic "
              + topic()
              + " for more than 60 s, so its committed progress cannot be read yet; run again when"
              + " that restore has finished (or is stopped: its transaction times out), or give"
              + " this one its own --checkpoint-topic");
    }
    String prefix = keyPrefix();
    Map<Integer, Long> restored = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = cluster.consumer()) {
      TargetCluster.forEachRecord(
          consumer,
          topic(),
          r -> {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            if (key.startsWith(prefix) && r.value() != null) {
              restored.put(
                  Integer.parseInt(key.substring(prefix.length())),
                  Long.parseLong(new String(r.value(), StandardCharsets.UTF_8)));
            }
          });
    }
    return restored;
  }

  /** Creates the topic (one partition, compacted) unless it exists. */
  void ensureTopic() throws InterruptedException {
    if (topicReady) {
      return;
    }
    try {
      cluster
          .admin()
          .createTopics(
              List.of(
                  new NewTopic(topic(), Optional.of(1), Optional.empty())
                      .configs(Map.of("cleanup.policy", "compact"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new RestoreException(
            "could not create the checkpoint topic "
                + topic()
                + ": "
                + e.getCause().getMessage()
                + "; create it (1 partition, cleanup.policy=compact) or name another with"
                + " --checkpoint-topic",
            e.getCause());
      }
    } catch (TimeoutException e) {
      throw new RestoreException("creating the checkpoint topic timed out after 30 s", e);
    }
    topicReady = true;
  }

  /** The record that says {@code partition} is restored up to {@code offset}. */
  ProducerRecord<byte[], byte[]> record(int partition, long offset) {
    return new ProducerRecord<>(
        topic(),
        0,
        (keyPrefix() + partition).getBytes(StandardCharsets.UTF_8),
        Long.toString(offset).getBytes(StandardCharsets.UTF_8));
  }

  private String keyPrefix() {
    return "s3://" + options.bucket() + "/" + options.dataPrefix() + "|" + options.topic() + "|";
  }
}
