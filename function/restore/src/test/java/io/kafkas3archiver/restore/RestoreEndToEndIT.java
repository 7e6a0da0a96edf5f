package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.esm.EventSourceEmulator;
import io.kafkas3archiver.esm.EventSourceEmulator.Settings;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Archive, lose the topic, restore, compare: records with binary and null keys, binary and null
 * header values, repeated header names, text and binary values and tombstones are produced to a
 * real KRaft broker, archived by the real handler through the event-source emulator into S3Proxy
 * (with Kafka metadata), the topic is deleted and recreated, the restore command replays the
 * archive, and every partition is consumed back and compared byte for byte, in order, with what the
 * source topic held.
 */
class RestoreEndToEndIT {
  private static final String BUCKET = "restore-e2e";
  private static final int PARTITIONS = 3;

  private static Servers servers;
  private static EmbeddedKafka kafka;
  private static S3ProxyServer s3server;

  @BeforeAll
  static void start() {
    servers = Servers.start(BUCKET);
    kafka = servers.kafka;
    s3server = servers.s3;
  }

  @AfterAll
  static void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  /** One record as Kafka holds it, compared by bytes. */
  record Rec(long timestamp, byte[] key, byte[] value, List<Map.Entry<String, byte[]>> headers) {
    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Rec r) || r.timestamp != timestamp) {
        return false;
      }
      if (!Arrays.equals(r.key, key) || !Arrays.equals(r.value, value)) {
        return false;
      }
      if (r.headers.size() != headers.size()) {
        return false;
      }
      for (int i = 0; i < headers.size(); i++) {
        if (!r.headers.get(i).getKey().equals(headers.get(i).getKey())
            || !Arrays.equals(r.headers.get(i).getValue(), headers.get(i).getValue())) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(timestamp) ^ Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      HexFormat hex = HexFormat.of();
      return "Rec[ts="
          + timestamp
          + ", key="
          + (key == null ? "null" : hex.formatHex(key))
          + ", value="
          + (value == null ? "null" : new String(value, StandardCharsets.UTF_8))
          + ", headers="
          + headers.stream()
              .map(
                  h ->
                      h.getKey()
                          + "="
                          + (h.getValue() == null ? "null" : hex.formatHex(h.getValue())))
              .toList()
          + "]";
    }
  }

  /** Every format once, and every codec once across them (ArchiveReaderTest decodes the rest). */
  static Stream<Arguments> formatsWithOneCodecEach() {
    return Stream.of(
        Arguments.of("json", "none"),
        Arguments.of("ndjson", "gzip"),
        Arguments.of("csv", "snappy"),
        Arguments.of("parquet", "zstd"));
  }

  /**
   * The hostile corpus (see {@link #hostile}) with the seeded mix, archived with metadata through
   * the real function, restored into the recreated topic and compared record by record: key (null
   * and empty differ), value bytes, headers, timestamp, per partition in order. No difference is
   * allowed: docs/restore.md's loss table has no line for these records in any format.
   */
  @ParameterizedTest(name = "{0} + {1}")
  @MethodSource("formatsWithOneCodecEach")
  void shouldRestoreTheHostileCorpusRecordForRecordInEveryFormat(String format, String codec) {
    String topic = "restore-corpus-" + format;
    Map<Integer, List<Rec>> source =
        produceArchiveAndDelete(
            topic, format, codec, 300, (format + codec).hashCode(), true, true, Map.of());

    String output =
        restore(
            topic,
            topic,
            "--include-errors",
            "--verify",
            "--producer-property",
            "max.request.size=" + MAX_MESSAGE_BYTES);

    assertSameRecords(consumeAll(topic, true), source);
    assertThat(output).contains("verify: OK");
    if (format.equals("csv") || format.equals("parquet")) {
      // Text and binary values cannot be csv/parquet rows: they went to error objects, and
      // --include-errors put them back in their place.
      assertThat(output).contains("error objects:").contains("restored with their raw bytes");
    }
  }

  /**
   * docs/restore.md's loss table, "timestamp type": a LogAppendTime source's records carry the
   * broker's append time; restored into a CreateTime topic they keep that timestamp, as CreateTime.
   */
  @Test
  void shouldRestoreLogAppendTimeRecordsWithTheirTimestampAsCreateTime() {
    String topic = "restore-log-append-time";
    Map<Integer, List<Rec>> source =
        produceArchiveAndDelete(
            topic,
            "ndjson",
            "none",
            60,
            3,
            true,
            false,
            Map.of("message.timestamp.type", "LogAppendTime"));

    restore(topic, topic);

    assertSameRecords(consumeAll(topic, true), source);
    List<String> types = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer(true)) {
      TargetCluster.forEachRecord(c, topic, r -> types.add(r.timestampType().name));
    }
    assertThat(types).hasSize(60).containsOnly("CreateTime");
  }

  @Test
  void shouldRestore50kRecordsAcrossPartitionsInOrder() {
    String topic = "restore-50k";
    Map<Integer, List<Rec>> source =
        produceArchiveAndDelete(topic, "ndjson", "zstd", 50_000, 50_000);

    String output = restore(topic, topic, "--verify");

    Map<Integer, List<Rec>> restored = consumeAll(topic, true);
    assertThat(restored.values().stream().mapToInt(List::size).sum()).isEqualTo(50_000);
    assertThat(restored).isEqualTo(source);
    assertThat(output).contains("verify: OK");
    System.out.println(output);
  }

  @Test
  void shouldRestoreOnlyTheRequestedRangeAndDryRunFirst() {
    String topic = "restore-range";
    Map<Integer, List<Rec>> source = produceArchiveAndDelete(topic, "parquet", "zstd", 600, 11);
    List<Rec> p1 = source.get(1);
    long from = p1.get(10).timestamp();
    long to = p1.get(61).timestamp();

    String dry =
        restore(
            topic,
            topic,
            "--dry-run",
            "--include-errors",
            "--partitions",
            "1",
            "--from",
            java.time.Instant.ofEpochMilli(from).toString(),
            "--to",
            java.time.Instant.ofEpochMilli(to).toString());
    assertThat(dry).contains(" 51 records", "time span: ", "partition 1: offsets 10..60");
    assertThat(consumeAll(topic, true)).isEmpty();

    restore(
        topic,
        topic,
        "--include-errors",
        "--partitions",
        "1",
        "--from-offset",
        "10",
        "--to-offset",
        "60");

    assertThat(consumeAll(topic, true)).isEqualTo(Map.of(1, p1.subList(10, 61)));
  }

  @Test
  void shouldRekeyByKeyHashIntoATopicWithOtherPartitions() {
    String topic = "restore-rekey";
    Map<Integer, List<Rec>> source = produceArchiveAndDelete(topic, "json", "snappy", 400, 13);
    String target = "restore-rekey-target";
    kafka.createTopic(target, 5);

    String output = restore(topic, target, "--rekey", "--verify");

    assertThat(output).contains("whole topic, order-independent").contains("verify: OK");
    Map<Integer, List<Rec>> restored = consumeAll(target, true);
    assertThat(restored.values().stream().flatMap(List::stream).toList())
        .containsExactlyInAnyOrderElementsOf(
            source.values().stream().flatMap(List::stream).toList());
    assertThat(restored.keySet()).hasSizeGreaterThan(3);
  }

  @Test
  void shouldListErrorObjectsButNotRestoreThemUnlessAsked() {
    String topic = "restore-errors-listed";
    Map<Integer, List<Rec>> source = produceArchiveAndDelete(topic, "csv", "none", 300, 7);

    String output = restore(topic, topic);

    long jsonObjects =
        source.values().stream()
            .flatMap(List::stream)
            .filter(r -> isJsonObjectOrTombstone(r))
            .count();
    assertThat(output).contains("NOT restored; pass --include-errors");
    assertThat(consumeAll(topic, true).values().stream().mapToInt(List::size).sum())
        .as(output)
        .isEqualTo((int) jsonObjects);
  }

  @Test
  void shouldResumeAKilledRestoreWithNoDuplicatesAndNoGaps() throws Exception {
    String topic = "restore-killed";
    Map<Integer, List<Rec>> source = produceArchiveAndDelete(topic, "ndjson", "gzip", 6_000, 99);
    List<String> args = new ArrayList<>(List.of(restoreArgs(topic, topic)));
    args.addAll(
        List.of(
            "--max-mb-per-sec", "0.15", "--progress-seconds", "1", "--transaction-records", "300"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Daws.accessKeyId=" + S3ProxyServer.ACCESS_KEY);
    command.add("-Daws.secretAccessKey=" + S3ProxyServer.SECRET_KEY);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(RestoreCommand.class.getName());
    command.addAll(args);
    Process restore = new ProcessBuilder(command).redirectErrorStream(true).start();
    Pattern progress = Pattern.compile("records ([\\d,]+)/([\\d,]+)");
    StringBuilder seen = new StringBuilder();
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(restore.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        seen.append(line).append('\n');
        Matcher m = progress.matcher(line);
        if (m.find() && Long.parseLong(m.group(1).replace(",", "")) >= 2_000) {
          restore.destroyForcibly(); // SIGKILL: no abort, no close, mid-transaction
          break;
        }
      }
    }
    assertThat(restore.waitFor(30, TimeUnit.SECONDS)).as(seen.toString()).isTrue();
    int partial = consumeCommittedNow(topic).values().stream().mapToInt(List::size).sum();
    System.out.println("killed restore after committing " + partial + " of 6000 records");
    assertThat(partial).as(seen.toString()).isBetween(1, 5_999);

    String output = restore(topic, topic, "--verify");

    assertSameRecords(consumeAll(topic, true), source);
    assertThat(output).contains("already restored; resuming after them").contains("verify: OK");
  }

  @Test
  void shouldSayValuesOnlyBeforeStartingAndRestoreTheValues() {
    String topic = "restore-values-only";
    Map<Integer, List<Rec>> source =
        produceArchiveAndDelete(topic, "ndjson", "none", 200, 5, false);

    String output = restore(topic, topic, "--verify");

    assertThat(output).contains("WARNING: ").contains("without Kafka metadata");
    // Values only: the archive has no timestamps, so the target's (the produce time) cannot count.
    assertThat(output)
        .contains("verify (whole topic, order-independent, values only")
        .contains("verify: OK");
    assertThat(output.indexOf("without Kafka metadata")).isLessThan(output.indexOf("restored "));
    List<String> expected =
        source.values().stream()
            .flatMap(List::stream)
            .filter(r -> r.value() != null)
            .map(r -> HexFormat.of().formatHex(r.value()))
            .sorted()
            .toList();
    List<String> restored =
        consumeAll(topic, true).values().stream()
            .flatMap(List::stream)
            .map(r -> HexFormat.of().formatHex(r.value()))
            .sorted()
            .toList();
    assertThat(restored).isEqualTo(expected);
  }

  /**
   * The Step Functions path without Step Functions: the plan step, then every manifest item driven
   * the way the state machine does it (partitions in parallel, each partition's calls one after the
   * other until "done"), with a time budget so small that each call restores one object and stops.
   * Data and error objects (csv + --include-errors) interleave within each partition.
   */
  @Test
  void shouldRestoreThroughTheRestoreLambdaOnePartitionAtATimeAsTheDistributedMapDrivesIt()
      throws Exception {
    String topic = "restore-sfn";
    Map<Integer, List<Rec>> source = produceArchiveAndDelete(topic, "csv", "zstd", 1_500, 2_020);
    ObjectMapper json = new ObjectMapper();
    ObjectNode restore = lambdaRestoreSettings(json, topic);
    restore.put("includeErrors", true);
    restore.put("transactionRecords", 40);
    RestoreLambda lambda = new RestoreLambda(k -> null, Duration.ofSeconds(30), System.out);

    Map<Integer, Integer> calls = driveLikeTheStateMachine(lambda, json, restore, "run-1/");

    System.out.println("restore Lambda calls per partition: " + calls);
    assertSameRecords(consumeAll(topic, true), source);
    assertThat(calls.keySet()).containsExactlyInAnyOrderElementsOf(source.keySet());
    // Several calls per partition: the checkpoint, not one long call, carried the restore.
    assertThat(calls.values()).allSatisfy(n -> assertThat(n).isGreaterThan(1));

    // A second execution over the same range (a rerun): the checkpoint says every partition is
    // done, so each item ends in one call and nothing is produced twice.
    Map<Integer, Integer> rerun = driveLikeTheStateMachine(lambda, json, restore, "run-2/");

    assertThat(rerun.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
    assertSameRecords(consumeAll(topic, true), source);
  }

  /**
   * The partitions of a Step Functions restore share the checkpoint topic's one partition, each
   * with its own transactional id. A read_committed reader stops at the first open transaction, so
   * a partition whose checkpoint was committed after another writer's transaction began used to
   * read an older checkpoint and produce that range again. Here another writer holds a transaction
   * open on the checkpoint topic for {@code HOLD}: the partition must still come out once, in
   * order.
   */
  @Test
  void shouldReadItsOwnCheckpointPastAnotherWritersOpenTransaction() throws Exception {
    String topic = "restore-sfn-open";
    Map<Integer, List<Rec>> source = produceArchiveAndDelete(topic, "ndjson", "none", 600, 77);
    ObjectMapper json = new ObjectMapper();
    ObjectNode restore = lambdaRestoreSettings(json, topic);
    RestoreLambda lambda = new RestoreLambda(k -> null, Duration.ofSeconds(30), System.out);
    ObjectNode plan = json.createObjectNode().put("action", "plan");
    plan.set("restore", restore);
    plan.put("manifestPrefix", "restore-manifests/open-txn/");
    JsonNode planned = lambda.handle(plan, 600_000);
    JsonNode items;
    try (var s3 = s3server.client()) {
      items =
          json.readTree(
              s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(planned.get("manifestKey").asText()))
                  .asByteArray());
    }
    kafka.createTopic(topic + ".restore-checkpoint", 1);
    Duration hold = Duration.ofSeconds(4);
    try (KafkaProducer<byte[], byte[]> other =
        servers.producer(
            Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "another-restore-writer"))) {
      other.initTransactions();
      other.beginTransaction();
      other
          .send(
              new ProducerRecord<>(
                  topic + ".restore-checkpoint",
                  "someone-else|p|9".getBytes(StandardCharsets.UTF_8),
                  "1".getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
      Thread committer =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      Thread.sleep(hold);
                      other.commitTransaction();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
      long started = System.nanoTime();
      // Partition 1's calls, one object each, while the other transaction is (first) open.
      JsonNode state = null;
      for (JsonNode item : items) {
        if (item.get("partition").asInt() == 1) {
          state = item;
        }
      }
      assertThat(state).isNotNull();
      do {
        state = lambda.handle(state, Duration.ofSeconds(30).toMillis() + 1);
        assertThat(state.get("invocations").asInt()).isLessThan(100);
      } while (!state.get("done").asBoolean());
      committer.join();
      System.out.printf(
          "partition 1 restored in %d calls, %.1f s, another writer's transaction open for the"
              + " first %d s%n",
          state.get("invocations").asInt(), (System.nanoTime() - started) / 1e9, hold.toSeconds());
    }

    assertSameRecords(consumeAll(topic, true), Map.of(1, source.get(1)));
  }

  @Test
  void shouldRefuseARestoreLambdaRequestWithAnUnknownOrUnsafeSetting() {
    ObjectMapper json = new ObjectMapper();
    RestoreLambda lambda = new RestoreLambda(k -> null, Duration.ofSeconds(30), System.out);
    ObjectNode request = json.createObjectNode().put("action", "plan");
    request.put("manifestPrefix", "m/");
    ObjectNode restore = request.putObject("restore");
    restore.put("bucket", BUCKET).put("topic", "t").put("bootstrapServers", "127.0.0.1:1");
    restore.put("restart", true);

    assertThatThrownBy(() -> lambda.handle(request, 60_000))
        .isInstanceOf(RestoreLambda.BadRequestException.class)
        .hasMessageContaining("restore.restart is not a setting of the restore Lambda");

    restore.remove("restart");
    restore.putObject("producerProperties").put("sasl.jaas.config", "x");
    assertThatThrownBy(() -> lambda.handle(request, 60_000))
        .hasMessageContaining("would put a secret into the execution history");
  }

  /** The restore Lambda's settings for the archive of {@code topic} in this class's servers. */
  private static ObjectNode lambdaRestoreSettings(ObjectMapper json, String topic) {
    ObjectNode restore = json.createObjectNode();
    restore.put("bucket", BUCKET);
    restore.put("topic", topic);
    restore.put("keyPrefix", "archive-" + topic);
    restore.put("endpointUrl", s3server.endpoint().toString());
    restore.put("pathStyle", true);
    restore.put("region", S3ProxyServer.REGION);
    restore.put("bootstrapServers", kafka.bootstrapServers());
    return restore;
  }

  /**
   * Plan, then one thread per manifest item calling the partition action until it answers done,
   * each call with 1 ms of time past the margin. Returns the calls per partition.
   */
  private static Map<Integer, Integer> driveLikeTheStateMachine(
      RestoreLambda lambda, ObjectMapper json, ObjectNode restore, String run) throws Exception {
    ObjectNode plan = json.createObjectNode().put("action", "plan");
    plan.set("restore", restore);
    plan.put("manifestPrefix", "restore-manifests/" + run);
    JsonNode planned = lambda.handle(plan, 600_000);
    JsonNode items;
    try (var s3 = s3server.client()) {
      items =
          json.readTree(
              s3.getObjectAsBytes(
                      b ->
                          b.bucket(planned.get("manifestBucket").asText())
                              .key(planned.get("manifestKey").asText()))
                  .asByteArray());
    }
    assertThat(items.size()).isEqualTo(planned.get("partitions").asInt()).isPositive();
    Map<Integer, Integer> calls = new java.util.concurrent.ConcurrentSkipListMap<>();
    var pool = java.util.concurrent.Executors.newFixedThreadPool(items.size());
    try {
      List<java.util.concurrent.Future<?>> running = new ArrayList<>();
      for (JsonNode item : items) {
        running.add(
            pool.submit(
                () -> {
                  JsonNode state = item;
                  do {
                    state = lambda.handle(state, Duration.ofSeconds(30).toMillis() + 1);
                    assertThat(state.get("invocations").asInt()).isLessThan(100);
                  } while (!state.get("done").asBoolean());
                  calls.put(item.get("partition").asInt(), state.get("invocations").asInt());
                  return null;
                }));
      }
      for (var f : running) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    return calls;
  }

  // ---- helpers ----

  /** Equal per partition, in order; on a difference, names the first record that differs. */
  private static void assertSameRecords(
      Map<Integer, List<Rec>> actual, Map<Integer, List<Rec>> expected) {
    for (var e : expected.entrySet()) {
      List<Rec> got = actual.getOrDefault(e.getKey(), List.of());
      for (int i = 0; i < Math.min(got.size(), e.getValue().size()); i++) {
        assertThat(got.get(i))
            .as("partition " + e.getKey() + " record " + i)
            .isEqualTo(e.getValue().get(i));
      }
      assertThat(got).as("partition " + e.getKey()).hasSameSizeAs(e.getValue());
    }
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
  }

  private static boolean isJsonObjectOrTombstone(Rec r) {
    return r.value() == null || (r.value().length > 0 && r.value()[0] == '{');
  }

  private static String[] restoreArgs(String topic, String target, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--bucket",
                BUCKET,
                "--topic",
                topic,
                "--key-prefix",
                "archive-" + topic,
                "--endpoint-url",
                s3server.endpoint().toString(),
                "--path-style",
                "--region",
                S3ProxyServer.REGION,
                "--bootstrap-servers",
                kafka.bootstrapServers(),
                "--target-topic",
                target));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  private static String restore(String topic, String target, String... extra) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        RestoreCommand.run(
            restoreArgs(topic, target, extra),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertThat(rc).as(text).isZero();
    return text;
  }

  private static Map<Integer, List<Rec>> produceArchiveAndDelete(
      String topic, String format, String codec, int count, long seed) {
    return produceArchiveAndDelete(topic, format, codec, count, seed, true);
  }

  private static Map<Integer, List<Rec>> produceArchiveAndDelete(
      String topic, String format, String codec, int count, long seed, boolean metadata) {
    return produceArchiveAndDelete(topic, format, codec, count, seed, metadata, false, Map.of());
  }

  /**
   * Produces {@code count} mixed records, archives them, reads back what the source topic held (the
   * truth the restore is compared with), then deletes and recreates the topic.
   */
  private static Map<Integer, List<Rec>> produceArchiveAndDelete(
      String topic,
      String format,
      String codec,
      int count,
      long seed,
      boolean metadata,
      boolean hostile,
      Map<String, String> topicConfigs) {
    System.out.println(topic + ": record mix seed " + seed);
    createTopic(topic, topicConfigs);
    produce(topic, count, seed, metadata);
    if (hostile) {
      produceHostile(topic);
    }
    Map<Integer, List<Rec>> source = consumeAll(topic, true);
    Harness harness =
        Harness.against(s3server.endpoint().toString(), BUCKET)
            .with("KEY_PREFIX", "archive-" + topic)
            .with("OUTPUT_FORMAT", format)
            .with("COMPRESSION", codec)
            .with("INCLUDE_KAFKA_METADATA", Boolean.toString(metadata));
    ArchiverConfig config = harness.config();
    ArchiverHandler handler =
        new ArchiverHandler(
            config,
            S3ObjectStore.create(
                config,
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))),
            Clock.systemUTC());
    Map<TopicPartition, Long> end =
        new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
    try (KafkaConsumer<byte[], byte[]> c = consumer(true)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      end.putAll(c.endOffsets(tps));
    }
    try (var emulator =
        new EventSourceEmulator(
            Settings.of(kafka.bootstrapServers(), topic, "archiver-" + topic)
                .withBatchSize(count >= 10_000 ? 2_000 : 250)
                .withBatchingWindow(Duration.ofMillis(100)),
            handler)) {
      assertThat(emulator.runUntilCommitted(end, Duration.ofMinutes(5))).isTrue();
    }
    try (Admin admin =
        Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic)) {
        assertThat(System.nanoTime()).isLessThan(until);
        Thread.sleep(50);
      }
    } catch (Exception e) {
      throw new AssertionError("could not delete " + topic, e);
    }
    // The target is a plain topic (CreateTime), whatever the source was.
    createTopicRetrying(topic, Map.of());
    assertThat(consumeAll(topic, true)).isEmpty();
    return source;
  }

  /** Records up to 4 MB: the corpus holds 1.5 MB values (the broker's default is 1 MiB). */
  static final int MAX_MESSAGE_BYTES = 4_000_000;

  /**
   * A topic of {@link #PARTITIONS} partitions that takes records up to 4 MB, plus {@code configs}.
   */
  private static void createTopic(String topic, Map<String, String> configs) {
    Map<String, String> all = new java.util.HashMap<>(configs);
    all.put("max.message.bytes", Integer.toString(MAX_MESSAGE_BYTES));
    kafka.createTopic(topic, PARTITIONS, all);
  }

  /**
   * What broke csv and parquet restores before (issue 27), one record each, round the partitions:
   * empty and null keys; JSON escapes a compact re-serialisation changes ({@code \u00fc}, {@code
   * \/}); a byte order mark; a field null in every record (it has no parquet column, so it sits in
   * {@code _overflow}); numbers a DECIMAL column rewrites; strings that look like JSON and the
   * empty string; {@code {}}; names the columns rename (a metadata name, a case-fold twin);
   * whitespace; two 1.5 MB values; binary, empty and null header values.
   */
  private static void produceHostile(String topic) {
    String big = "x".repeat(1_500_000);
    List<byte[]> values =
        List.of(
            utf8("{\"city\":\"Z\\u00fcrich\",\"n\":1}"),
            utf8("{\"path\":\"a\\/b\"}"),
            concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, utf8("{\"bom\":true}")),
            utf8("{\"nf_a\":1,\"nf_b\":null}"),
            utf8("{\"blob\":\"" + big + "\"}"),
            utf8("{\"n\":1.0,\"m\":64.50,\"e\":1e5,\"z\":-0.0,\"i\":12345678901234567890123}"),
            utf8("{\"s\":\"42\",\"t\":\"\",\"u\":\"true\",\"o\":\"{\\\"a\\\":1}\"}"),
            utf8("{}"),
            utf8("{\"Name\":1,\"name\":2}"),
            utf8("{\"kafka_offset\":\"mine\",\"_overflow\":3}"),
            utf8(" {\"a\" : 1 }\n"),
            utf8("{\"nested\":{\"x\":1.50,\"y\":[2e3,null]}}"),
            utf8("{\"blob2\":\"" + big + "\",\"tail\":null}"));
    long base = System.currentTimeMillis() - Duration.ofDays(1).toMillis();
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      for (int i = 0; i < values.size(); i++) {
        byte[] key =
            switch (i % 4) {
              case 0 -> new byte[0];
              case 1 -> null;
              case 2 -> new byte[] {(byte) 0xfe, 0, (byte) 0x80};
              default -> utf8("k-" + i);
            };
        List<Header> headers = new ArrayList<>();
        headers.add(new RecordHeader("bin", new byte[] {(byte) 0x80, 0, (byte) 0xff}));
        headers.add(new RecordHeader("empty", new byte[0]));
        headers.add(new RecordHeader("none", null));
        headers.add(new RecordHeader("bin", utf8("again")));
        producer.send(
            new ProducerRecord<>(topic, i % PARTITIONS, base + i, key, values.get(i), headers));
      }
      producer.flush();
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Right after a delete, the broker may still report the topic as being deleted. */
  private static void createTopicRetrying(String topic, Map<String, String> configs) {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        createTopic(topic, configs);
        return;
      } catch (IllegalStateException e) {
        if (System.nanoTime() > until) {
          throw e;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * A seeded mix: JSON objects (most), plain text, bytes that are not UTF-8, tombstones; text,
   * binary and absent keys; text, binary and null header values, a repeated header name; explicit
   * create times two days back. With {@code exactJson}, also JSON whose embedded form alone would
   * not give its bytes back (a string literal, the four bytes {@code null}, a padded multi-line
   * array): the metadata archive must still restore them exactly.
   */
  private static void produce(String topic, int count, long seed, boolean exactJson) {
    Random random = new Random(seed);
    long base = System.currentTimeMillis() - Duration.ofDays(2).toMillis();
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      for (int i = 0; i < count; i++) {
        int kind = random.nextInt(100);
        byte[] key =
            switch (random.nextInt(4)) {
              case 0 -> null;
              case 1 -> new byte[] {(byte) 0xff, (byte) 0xfe, (byte) i, (byte) (i >> 8), 0};
              default -> ("vehicle-" + random.nextInt(50)).getBytes(StandardCharsets.UTF_8);
            };
        byte[] value;
        if (kind < 5) {
          value = null;
        } else if (kind < 10) {
          value = ("engine status: ok, run " + i).getBytes(StandardCharsets.UTF_8);
        } else if (kind < 14) {
          value = new byte[8 + random.nextInt(24)];
          random.nextBytes(value);
          value[0] = (byte) 0xc3; // an invalid UTF-8 sequence start, so it is binary
          value[1] = (byte) 0x28;
        } else if (exactJson && kind < 15) {
          value = ("\"quoted text " + i + "\"").getBytes(StandardCharsets.UTF_8);
        } else if (exactJson && kind < 16) {
          value = "null".getBytes(StandardCharsets.UTF_8);
        } else if (exactJson && kind < 17) {
          value = (" [1,\n  2, " + i + "]\n").getBytes(StandardCharsets.UTF_8);
        } else {
          value =
              String.format(
                      java.util.Locale.ROOT,
                      "{\"vehicleId\":\"v-%03d\",\"seq\":%d,\"speedKmh\":%d.%d,"
                          + "\"location\":{\"lat\":%d,\"lon\":%d},\"status\":\"%s\"}",
                      random.nextInt(500),
                      i,
                      random.nextInt(200),
                      1 + random.nextInt(9),
                      random.nextInt(90),
                      random.nextInt(180),
                      random.nextBoolean() ? "on" : "idle")
                  .getBytes(StandardCharsets.UTF_8);
        }
        List<Header> headers = new ArrayList<>();
        headers.add(
            new RecordHeader(
                "trace-id", Long.toHexString(random.nextLong()).getBytes(StandardCharsets.UTF_8)));
        if (random.nextInt(3) == 0) {
          headers.add(new RecordHeader("bin", new byte[] {(byte) 0x80, 0, (byte) i}));
        }
        if (random.nextInt(5) == 0) {
          headers.add(new RecordHeader("nullable", null));
          headers.add(new RecordHeader("trace-id", "second".getBytes(StandardCharsets.UTF_8)));
        }
        producer.send(
            new ProducerRecord<>(
                topic, random.nextInt(PARTITIONS), base + i * 7L, key, value, headers));
      }
      producer.flush();
    }
  }

  /** The tests' producer: records up to {@link #MAX_MESSAGE_BYTES}. */
  private static KafkaProducer<byte[], byte[]> producer() {
    return servers.producer(
        Map.<String, Object>of(
            ProducerConfig.LINGER_MS_CONFIG,
            5,
            ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
            MAX_MESSAGE_BYTES,
            // Not idempotent: under load the in-process broker answered a retried first batch
            // with OutOfOrderSequence and the producer retried for minutes. The truth the
            // restore is compared with is what the topic holds, read back, so a duplicate or
            // reordering here cannot hide a restore error.
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            false));
  }

  private static KafkaConsumer<byte[], byte[]> consumer(boolean readCommitted) {
    return new KafkaConsumer<>(
        Map.<String, Object>of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class.getName(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            readCommitted ? "read_committed" : "read_uncommitted",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false));
  }

  /**
   * Every record of every partition, in offset order; empty partitions are left out. Read
   * committed, it first waits for the restore's last transaction markers (they are written after
   * its commit returns; reading at once came up short under load).
   */
  private static Map<Integer, List<Rec>> consumeAll(String topic, boolean readCommitted) {
    if (readCommitted) {
      try (Admin admin =
          Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()))) {
        assertThat(TargetCluster.awaitSettledTransactions(admin, topic, Duration.ofSeconds(60)))
            .as("no open transaction on " + topic)
            .isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    return consumeCommittedNow(topic, readCommitted);
  }

  /** What a reader sees now: a killed restore leaves a transaction open until it is fenced. */
  private static Map<Integer, List<Rec>> consumeCommittedNow(String topic) {
    return consumeCommittedNow(topic, true);
  }

  private static Map<Integer, List<Rec>> consumeCommittedNow(String topic, boolean readCommitted) {
    Map<Integer, List<Rec>> all = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer(readCommitted)) {
      TargetCluster.forEachRecord(
          c,
          topic,
          r -> {
            List<Map.Entry<String, byte[]>> headers = new ArrayList<>();
            r.headers()
                .forEach(
                    h -> headers.add(new java.util.AbstractMap.SimpleEntry<>(h.key(), h.value())));
            all.computeIfAbsent(r.partition(), k -> new ArrayList<>())
                .add(new Rec(r.timestamp(), r.key(), r.value(), headers));
          });
    }
    return all;
  }
}
