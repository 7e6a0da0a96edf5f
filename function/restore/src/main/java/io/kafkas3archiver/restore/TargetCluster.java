package io.kafkas3archiver.restore;

import io.kafkas3archiver.cli.CommandLine;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Kafka cluster a restore writes to, as the admin and a read_committed consumer see it: the
 * client settings from the command line, the target topic's partitions and settings, and reading a
 * topic to its end. It owns no producer (that is {@link TransactionalSink}).
 */
final class TargetCluster implements AutoCloseable {
  private final RestoreOptions options;
  private final Map<String, Object> clientProperties;
  private Admin admin;

  TargetCluster(RestoreOptions options) {
    this.options = options;
    this.clientProperties = clientProperties(options);
  }

  /** What every client of the target gets: bootstrap servers, MSK IAM, the user's properties. */
  static Map<String, Object> clientProperties(RestoreOptions options) {
    Map<String, Object> p = new LinkedHashMap<>();
    options.bootstrapServers().ifPresent(b -> p.put("bootstrap.servers", b));
    if (options.mskIam()) {
      p.putAll(CommandLine.mskIam());
    }
    p.putAll(options.producerProperties());
    return p;
  }

  Map<String, Object> clientProperties() {
    return clientProperties;
  }

  String bootstrapServers() {
    return options.bootstrapServers().orElse("?");
  }

  Admin admin() {
    if (admin == null) {
      Map<String, Object> p = new HashMap<>(clientProperties);
      p.putIfAbsent("request.timeout.ms", 15_000);
      p.putIfAbsent("default.api.timeout.ms", 30_000);
      admin = Admin.create(p);
    }
    return admin;
  }

  /** A read_committed consumer with no group (it assigns partitions itself). */
  KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    return new KafkaConsumer<>(p);
  }

  /** The partition count of {@code topic}, or empty when it does not exist. */
  Optional<Integer> partitions(String topic) throws InterruptedException {
    try {
      TopicDescription d =
          admin()
              .describeTopics(List.of(topic))
              .topicNameValues()
              .get(topic)
              .get(30, TimeUnit.SECONDS);
      return Optional.of(d.partitions().size());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw new RestoreException(
          "could not describe the topic "
              + topic
              + " on "
              + bootstrapServers()
              + ": "
              + e.getCause().getMessage()
              + "; check --bootstrap-servers and the auth settings (--msk-iam,"
              + " --producer-property security.protocol=..., sasl.*, ssl.*)",
          e.getCause());
    } catch (TimeoutException e) {
      throw new RestoreException(
          "the target cluster "
              + bootstrapServers()
              + " did not answer within 30 s; check --bootstrap-servers, security.protocol and"
              + " network access",
          e);
    }
  }

  /** The target topic's partition count; it must exist (the restore never creates it). */
  int targetPartitions() throws InterruptedException {
    return partitions(options.targetTopic())
        .orElseThrow(
            () ->
                new RestoreException(
                    "the target topic "
                        + options.targetTopic()
                        + " does not exist; create it first (the restore never creates it, so"
                        + " its partitions, replication and retention stay your choice), e.g."
                        + " kafka-topics.sh --create --topic "
                        + options.targetTopic()
                        + " --partitions <the source's count> --config retention.ms=-1"));
  }

  /**
   * The target topic's settings that decide whether a restore can work: {@code retention.ms} and
   * {@code max.message.bytes}; empty values when the cluster would not say.
   */
  TopicSettings targetSettings() throws InterruptedException {
    try {
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, options.targetTopic());
      Config config =
          admin().describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
      return new TopicSettings(
          number(config.get("retention.ms")), number(config.get("max.message.bytes")), null);
    } catch (ExecutionException | TimeoutException e) {
      return new TopicSettings(Optional.empty(), Optional.empty(), e.getMessage());
    }
  }

  /** A topic's retention and largest record batch, as the broker reports them. */
  record TopicSettings(
      Optional<Long> retentionMs, Optional<Long> maxMessageBytes, String unreadable) {}

  private static Optional<Long> number(ConfigEntry entry) {
    if (entry == null || entry.value() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(entry.value()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Waits, at most {@code max}, until no transaction is open on {@code topic}. A commit returns
   * before the broker has written its markers; until they are written, a read_committed reader's
   * end (the last stable offset) stops short of the last transaction, and a verify or a test that
   * reads the target right after a restore would see it short. Returns whether it settled.
   */
  public static boolean awaitSettledTransactions(Admin admin, String topic, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    try {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      while (true) {
        var stable =
            admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(30, TimeUnit.SECONDS);
        var high =
            admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                .all()
                .get(30, TimeUnit.SECONDS);
        if (latest.keySet().stream()
            .allMatch(tp -> stable.get(tp).offset() == high.get(tp).offset())) {
          return true;
        }
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(100);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new RestoreException("could not read the end offsets of " + topic, e);
    }
  }

  /**
   * Every committed record of {@code topic}, partition by partition in offset order, up to the end
   * offsets at the start of the read.
   */
  static void forEachRecord(
      KafkaConsumer<byte[], byte[]> consumer,
      String topic,
      Consumer<ConsumerRecord<byte[], byte[]>> action) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(i -> new TopicPartition(topic, i.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
    Set<TopicPartition> open = new HashSet<>();
    for (TopicPartition tp : partitions) {
      if (consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp)) {
        open.add(tp);
      }
    }
    long idleUntil = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!open.isEmpty()) {
      var records = consumer.poll(Duration.ofMillis(200));
      if (!records.isEmpty()) {
        idleUntil = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      }
      records.forEach(action);
      open.removeIf(tp -> consumer.position(tp, Duration.ofSeconds(30)) >= end.get(tp));
      if (System.nanoTime() > idleUntil) {
        throw new RestoreException(
            "reading " + topic + " stalled for 60 s before its end offsets " + end);
      }
    }
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
  }
}
