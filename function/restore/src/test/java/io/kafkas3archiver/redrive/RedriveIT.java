package io.kafkas3archiver.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.esm.ArchivedRows;
import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.esm.EventSourceEmulator;
import io.kafkas3archiver.esm.EventSourceEmulator.Range;
import io.kafkas3archiver.esm.EventSourceEmulator.Settings;
import io.kafkas3archiver.esm.OnFailureRecord;
import io.kafkas3archiver.restore.RestoreLambda;
import io.kafkas3archiver.restore.Servers;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.MotoServer;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The batches a mapping gives up on, archived after the fact. A real KRaft broker, the event-source
 * emulator and the real archiver: one poison batch fails every attempt, so the emulator records it
 * in the on-failure destination in the record format the mapping writes and moves on (a gap in the
 * archive). Then {@code redrive} reads the record, consumes the skipped offsets from the broker and
 * archives them through the archiver's own entry point. DuckDB reads the whole archive back: every
 * produced offset exactly once. A second redrive of the same records writes nothing.
 */
class RedriveIT {
  private static final String BUCKET = "redrive-archive";
  private static final int PARTITIONS = 3;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Servers servers;
  private static EmbeddedKafka kafka;
  private static S3ProxyServer s3server;
  private static MotoServer moto;

  @TempDir Path temp;

  @BeforeAll
  static void start() {
    // The queue's and the failure bucket's clients use the SDK's default chain (S3Proxy's keys).
    servers = Servers.start(BUCKET);
    kafka = servers.kafka;
    s3server = servers.s3;
    moto = MotoServer.start();
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {moto, servers}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // best effort
        }
      }
    }
  }

  @Test
  void shouldArchiveTheBatchesAnSqsDestinationRecordedExactlyOnceWithTheCommand() throws Exception {
    String topic = "redrive-sqs";
    String prefix = "archive-" + topic;
    Map<Integer, Long> produced = produce(topic, 600);
    String queueUrl;
    try (SqsClient sqs = sqs()) {
      queueUrl = sqs.createQueue(b -> b.queueName(topic + "-on-failure")).queueUrl();
    }
    Harness archiver = archiver(prefix, topic);
    List<Map<String, Range>> skipped =
        archiveWithAPoisonBatch(topic, archiver, new SqsDestination(queueUrl));

    assertThat(skipped).as("batches recorded in the on-failure queue").isNotEmpty();
    Map<String, Long> before = counts(prefix);
    long missing =
        produced.values().stream().mapToLong(Long::longValue).sum()
            - before.values().stream().mapToLong(Long::longValue).sum();
    System.out.println(
        "skipped batches: " + skipped + "; offsets missing from the archive: " + missing);
    assertThat(missing).isPositive();

    Path env = temp.resolve("archiver-env.json");
    Files.writeString(env, JSON.writeValueAsString(archiverEnvironment(prefix, topic)));
    List<String> args =
        List.of(
            "--sqs-queue-url",
            queueUrl,
            "--endpoint-url",
            moto.endpoint().toString(),
            "--region",
            MotoServer.REGION,
            "--archiver-env",
            env.toString(),
            "--keep-messages");
    Run first = redrive(args);

    System.out.println(first.output());
    assertThat(first.rc()).as(first.output()).isZero();
    assertThat(first.output())
        .contains("redrive: " + skipped.size() + " on-failure records in " + queueUrl)
        .contains("RetryAttemptsExhausted")
        .contains(skipped.size() + " of " + skipped.size() + " records redriven");
    assertEveryOffsetOnce(prefix, produced);

    // The same records again (kept in the queue): the claim chain stores nothing twice.
    List<String> keys = ArchivedRows.keys(s3server.client(), BUCKET, prefix);
    Run second = redrive(args.subList(0, args.size() - 1));

    assertThat(second.rc()).as(second.output()).isZero();
    assertEveryOffsetOnce(prefix, produced);
    assertThat(ArchivedRows.keys(s3server.client(), BUCKET, prefix)).isEqualTo(keys);
    try (SqsClient sqs = sqs()) {
      assertThat(sqs.receiveMessage(b -> b.queueUrl(queueUrl).waitTimeSeconds(1)).messages())
          .as("the second run deleted the messages it redrove")
          .isEmpty();
    }
  }

  /**
   * The restore Lambda's {@code {"action":"redrive"}}: records from an S3 destination (which also
   * carry the whole event), the skipped offsets from the broker, and the archiver function invoked
   * with them (the real handler behind the Lambda Invoke API), as deployed with restore=true.
   */
  @Test
  void shouldArchiveTheBatchesAnS3DestinationRecordedThroughTheRestoreLambdasRedriveAction()
      throws Exception {
    String topic = "redrive-s3";
    String prefix = "archive-" + topic;
    s3server.createBucket("redrive-failures");
    Map<Integer, Long> produced = produce(topic, 450);
    Harness archiver = archiver(prefix, topic);
    List<Map<String, Range>> skipped =
        archiveWithAPoisonBatch(
            topic, archiver, new S3Destination("redrive-failures", UUID.randomUUID().toString()));
    assertThat(skipped).isNotEmpty();

    try (LambdaInvokeStub lambdaApi =
        new LambdaInvokeStub("kafka-s3-archiver:live", archiver.handler().handler())) {
      Map<String, String> env = new HashMap<>();
      env.put("REDRIVE_ARCHIVER_FUNCTION", "kafka-s3-archiver:live");
      env.put("REDRIVE_SOURCE", "s3://redrive-failures/aws/lambda/");
      env.put("REDRIVE_KAFKA_AUTH", "plaintext");
      env.put("INPUT_TOPIC", topic);
      env.put("AWS_REGION", S3ProxyServer.REGION);
      env.put("AWS_ENDPOINT_URL_S3", s3server.endpoint().toString());
      env.put("S3_FORCE_PATH_STYLE", "true");
      env.put("AWS_ENDPOINT_URL_LAMBDA", lambdaApi.endpoint().toString());
      RestoreLambda lambda = new RestoreLambda(env::get, Duration.ofSeconds(30), System.out);

      JsonNode answer = lambda.handle(JSON.readTree("{\"action\":\"redrive\"}"), 600_000);

      System.out.println(
          "redrive action: " + answer + ", " + lambdaApi.invocations() + " invocations");
      assertThat(answer.get("redriven").asInt()).isEqualTo(skipped.size());
      assertThat(answer.get("failed").asInt()).isZero();
      assertThat(lambdaApi.invocations()).isGreaterThanOrEqualTo(skipped.size());
      assertEveryOffsetOnce(prefix, produced);

      // S3 records stay in the bucket: a second action hands them over again, and nothing is
      // stored twice.
      JsonNode again = lambda.handle(JSON.readTree("{\"action\":\"redrive\"}"), 600_000);
      assertThat(again.get("redriven").asInt()).isEqualTo(skipped.size());
      assertEveryOffsetOnce(prefix, produced);
    }
  }

  // ---- the mapping that gives up ----

  /**
   * Runs the emulator over the whole topic with the real handler behind a fault: every invocation
   * whose batch holds partition 1's offsets 60..99 fails (a poison batch), all its attempts. The
   * emulator records such batches in {@code destination} and skips them. Returns what it skipped.
   */
  private static List<Map<String, Range>> archiveWithAPoisonBatch(
      String topic, Harness archiver, OnFailureRecord.Destination destination) {
    ArchiverHandler real = archiver.handler().handler();
    RequestStreamHandler poisoned =
        (in, out, context) -> {
          byte[] event = in.readAllBytes();
          if (poison(event)) {
            throw new IOException("injected: this batch fails every attempt");
          }
          real.handleRequest(new ByteArrayInputStream(event), out, context);
        };
    Map<TopicPartition, Long> end = endOffsets(topic);
    try (EventSourceEmulator emulator =
        new EventSourceEmulator(
                Settings.of(kafka.bootstrapServers(), topic, "archiver-" + topic)
                    .withBatchSize(50)
                    .withBatchingWindow(Duration.ofMillis(50))
                    .withMaxRetryAttempts(2),
                poisoned)
            .onFailure(destination)) {
      assertThat(emulator.runUntilCommitted(end, Duration.ofMinutes(3))).isTrue();
      return emulator.skippedBatches();
    }
  }

  private static boolean poison(byte[] event) throws IOException {
    for (JsonNode partition : JSON.readTree(event).path("records")) {
      for (JsonNode r : partition) {
        long offset = r.path("offset").asLong();
        if (r.path("partition").asInt() == 1 && offset >= 60 && offset < 100) {
          return true;
        }
      }
    }
    return false;
  }

  /** An SQS on-failure destination (moto). */
  private record SqsDestination(String queueUrl) implements OnFailureRecord.Destination {
    @Override
    public boolean carriesPayload() {
      return false;
    }

    @Override
    public void deliver(byte[] record) {
      try (SqsClient sqs = sqs()) {
        sqs.sendMessage(
            b -> b.queueUrl(queueUrl).messageBody(new String(record, StandardCharsets.UTF_8)));
      }
    }
  }

  /**
   * An S3 on-failure destination (S3Proxy), keyed as AWS documents for stream sources: {@code
   * aws/lambda/<mapping UUID>/<shard>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<UUID>} (the shard being the
   * first topic-partition here; AWS documents no Kafka-specific layout, and the redrive lists the
   * prefix, whatever the names).
   */
  private record S3Destination(String bucket, String mappingUuid)
      implements OnFailureRecord.Destination {
    @Override
    public boolean carriesPayload() {
      return true;
    }

    @Override
    public void deliver(byte[] record) {
      String shard;
      try {
        shard =
            JSON.readTree(record).path("KafkaBatchInfo").path("recordsInfo").fieldNames().next();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      Instant now = Instant.now();
      String key =
          "aws/lambda/"
              + mappingUuid
              + "/"
              + shard
              + "/"
              + DateTimeFormatter.ofPattern("yyyy/MM/dd/yyyy-MM-dd'T'HH.mm.ss")
                  .withZone(ZoneOffset.UTC)
                  .format(now)
              + "-"
              + UUID.randomUUID();
      s3server.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(record));
    }
  }

  // ---- helpers ----

  private static Map<String, String> archiverEnvironment(String prefix, String topic) {
    Map<String, String> env = new TreeMap<>();
    env.put("BUCKET_NAME", BUCKET);
    env.put("AWS_REGION", S3ProxyServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", s3server.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("TITLE", "it");
    env.put("KEY_PREFIX", prefix);
    env.put("INPUT_TOPIC", topic);
    env.put("OUTPUT_FORMAT", "ndjson");
    env.put("INCLUDE_KAFKA_METADATA", "true");
    // What the function's execution role gives it in Lambda; here S3Proxy's keys.
    env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
    return env;
  }

  private static Harness archiver(String prefix, String topic) {
    Harness h = Harness.against(s3server.endpoint().toString(), BUCKET);
    for (var e : archiverEnvironment(prefix, topic).entrySet()) {
      if (!e.getKey().startsWith("AWS_ACCESS") && !e.getKey().startsWith("AWS_SECRET")) {
        h = h.with(e.getKey(), e.getValue());
      }
    }
    return h;
  }

  record Run(int rc, String output) {}

  private static Run redrive(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    Function<String, String> env = name -> null;
    int rc = RedriveCommand.run(args.toArray(String[]::new), print, print, env);
    return new Run(rc, out.toString(StandardCharsets.UTF_8));
  }

  /** DuckDB over every archived object: each produced (partition, offset) exactly once. */
  private void assertEveryOffsetOnce(String prefix, Map<Integer, Long> produced) {
    List<ArchivedRows.Row> rows = ArchivedRows.read(s3server.client(), BUCKET, prefix, temp);
    Map<String, Long> times =
        rows.stream().collect(Collectors.groupingBy(ArchivedRows.Row::id, Collectors.counting()));
    assertThat(times.values()).as("offsets stored more than once").allMatch(n -> n == 1);
    List<String> expected = new ArrayList<>();
    produced.forEach(
        (p, n) -> {
          for (long o = 0; o < n; o++) {
            expected.add(rows.isEmpty() ? "" : rows.get(0).topic() + "-" + p + "@" + o);
          }
        });
    assertThat(times.keySet()).containsExactlyInAnyOrderElementsOf(expected);
    System.out.println(
        "DuckDB: " + rows.size() + " rows, " + times.size() + " distinct offsets, each once");
  }

  /** Archived rows per topic-partition. */
  private Map<String, Long> counts(String prefix) {
    return ArchivedRows.read(s3server.client(), BUCKET, prefix, temp).stream()
        .collect(
            Collectors.groupingBy(
                r -> r.topic() + "-" + r.partition(), TreeMap::new, Collectors.counting()));
  }

  /** Produces {@code count} JSON records over the partitions; returns each partition's count. */
  private static Map<Integer, Long> produce(String topic, int count) {
    kafka.createTopic(topic, PARTITIONS);
    Map<Integer, Long> perPartition = new TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer = servers.producer(Map.of())) {
      for (int i = 0; i < count; i++) {
        int p = i % PARTITIONS;
        producer.send(
            new ProducerRecord<>(
                topic,
                p,
                ("k" + i).getBytes(StandardCharsets.UTF_8),
                ("{\"seq\":" + i + ",\"speedKmh\":" + (i % 97) + ".5}")
                    .getBytes(StandardCharsets.UTF_8)));
        perPartition.merge(p, 1L, Long::sum);
      }
      producer.flush();
    }
    return perPartition;
  }

  private static Map<TopicPartition, Long> endOffsets(String topic) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "key.deserializer",
                ByteArrayDeserializer.class.getName(),
                "value.deserializer",
                ByteArrayDeserializer.class.getName()))) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      return c.endOffsets(tps);
    }
  }

  private static SqsClient sqs() {
    return SqsClient.builder()
        .endpointOverride(moto.endpoint())
        .region(Region.of(MotoServer.REGION))
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .httpClient(
            software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder().build())
        .build();
  }
}
