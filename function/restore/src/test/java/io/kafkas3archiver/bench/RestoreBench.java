package io.kafkas3archiver.bench;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.esm.EventSourceEmulator;
import io.kafkas3archiver.esm.EventSourceEmulator.Settings;
import io.kafkas3archiver.restore.RestoreCommand;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Restore throughput beside the archive's, in one run on one machine: the same records archived
 * (KRaft broker → event-source emulator → handler → S3Proxy) and restored (S3Proxy → restore
 * command → transactional producer → broker). Payload MB counts key + value + header bytes, the
 * same measure for both directions. The median of {@code bench.restoreRounds} rounds (3) is
 * printed; each round archives into a fresh prefix and restores into a fresh topic.
 *
 * <p>{@code ./mvnw -q -pl function/restore -am test -DskipTests -Drestore.bench} (system properties
 * {@code bench.records}, 50000, and {@code bench.restoreRounds}).
 */
public final class RestoreBench {
  private static final int PARTITIONS = 3;

  private RestoreBench() {}

  public static void main(String[] args) throws Exception {
    int records = Integer.getInteger("bench.records", 50_000);
    int rounds = Integer.getInteger("bench.restoreRounds", 3);
    String[][] combos = {{"ndjson", "zstd"}, {"parquet", "snappy"}};
    System.setProperty("aws.accessKeyId", S3ProxyServer.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        S3ProxyServer s3 = S3ProxyServer.inMemory()) {
      s3.createBucket("bench");
      String source = "bench-source";
      kafka.createTopic(source, PARTITIONS);
      long payload = produce(kafka.bootstrapServers(), source, records);
      System.out.printf(
          Locale.ROOT,
          "restore benchmark: %,d records, %.1f MB payload, %d partitions, %d rounds, %d cores%n",
          records,
          payload / 1e6,
          PARTITIONS,
          rounds,
          Runtime.getRuntime().availableProcessors());
      System.out.println("| direction | format | median s | MB/s | records/s |");
      System.out.println("|---|---|---|---|---|");
      for (String[] combo : combos) {
        double[] archive = new double[rounds];
        double[] restore = new double[rounds];
        for (int round = 0; round < rounds; round++) {
          String prefix = "bench-" + combo[0] + "-" + round;
          long t0 = System.nanoTime();
          archive(kafka, s3, source, prefix, combo[0], combo[1], records);
          archive[round] = (System.nanoTime() - t0) / 1e9;
          String target = "bench-target-" + combo[0] + "-" + round;
          kafka.createTopic(target, PARTITIONS);
          long t1 = System.nanoTime();
          restore(kafka, s3, source, prefix, target);
          restore[round] = (System.nanoTime() - t1) / 1e9;
        }
        row("archive", combo, median(archive), payload, records);
        row("restore", combo, median(restore), payload, records);
      }
    }
    System.exit(0);
  }

  private static void row(String direction, String[] combo, double s, long payload, int records) {
    System.out.printf(
        Locale.ROOT,
        "| %s | %s + %s | %.2f | %.1f | %,.0f |%n",
        direction,
        combo[0],
        combo[1],
        s,
        payload / 1e6 / s,
        records / s);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** JSON values about 200 bytes, a text key, two headers; returns the payload bytes. */
  private static long produce(String bootstrap, String topic, int count) {
    Random random = new Random(42);
    long bytes = 0;
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < count; i++) {
        byte[] key = ("vehicle-" + random.nextInt(500)).getBytes(StandardCharsets.UTF_8);
        byte[] value =
            String.format(
                    Locale.ROOT,
                    "{\"vehicleId\":\"v-%03d\",\"seq\":%d,\"speedKmh\":%d.%d,\"location\":"
                        + "{\"lat\":%d,\"lon\":%d},\"status\":\"%s\",\"note\":\"%s\"}",
                    random.nextInt(500),
                    i,
                    random.nextInt(200),
                    1 + random.nextInt(9),
                    random.nextInt(90),
                    random.nextInt(180),
                    random.nextBoolean() ? "on" : "idle",
                    "x".repeat(60 + random.nextInt(40)))
                .getBytes(StandardCharsets.UTF_8);
        byte[] trace = Long.toHexString(random.nextLong()).getBytes(StandardCharsets.UTF_8);
        var headers = List.of(new RecordHeader("trace-id", trace));
        bytes += key.length + value.length + "trace-id".length() + trace.length;
        producer.send(
            new ProducerRecord<>(
                topic, i % PARTITIONS, null, key, value, new ArrayList<>(headers)));
      }
      producer.flush();
    }
    return bytes;
  }

  private static void archive(
      EmbeddedKafka kafka,
      S3ProxyServer s3,
      String topic,
      String prefix,
      String format,
      String codec,
      int records) {
    ArchiverConfig config =
        Harness.against(s3.endpoint().toString(), "bench")
            .with("KEY_PREFIX", prefix)
            .with("OUTPUT_FORMAT", format)
            .with("COMPRESSION", codec)
            .with("INCLUDE_KAFKA_METADATA", "true")
            .config();
    ArchiverHandler handler =
        new ArchiverHandler(
            config,
            S3ObjectStore.create(
                config,
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))),
            Clock.systemUTC());
    Map<TopicPartition, Long> end = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      end.put(
          new TopicPartition(topic, p),
          (long) (records / PARTITIONS + (p < records % PARTITIONS ? 1 : 0)));
    }
    try (var emulator =
        new EventSourceEmulator(
            Settings.of(kafka.bootstrapServers(), topic, "bench-" + prefix)
                .withBatchSize(10_000)
                .withBatchingWindow(Duration.ofMillis(100)),
            handler)) {
      if (!emulator.runUntilCommitted(end, Duration.ofMinutes(10))) {
        throw new IllegalStateException("archiving did not finish");
      }
    }
  }

  private static void restore(
      EmbeddedKafka kafka, S3ProxyServer s3, String topic, String prefix, String target) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc =
        RestoreCommand.run(
            new String[] {
              "--bucket",
              "bench",
              "--topic",
              topic,
              "--key-prefix",
              prefix,
              "--endpoint-url",
              s3.endpoint().toString(),
              "--path-style",
              "--region",
              S3ProxyServer.REGION,
              "--bootstrap-servers",
              kafka.bootstrapServers(),
              "--target-topic",
              target,
              "--progress-seconds",
              "3600"
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(out, true, StandardCharsets.UTF_8));
    if (rc != 0) {
      throw new IllegalStateException("restore failed: " + out.toString(StandardCharsets.UTF_8));
    }
  }
}
