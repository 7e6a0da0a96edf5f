package io.kafkas3archiver.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.chain.Claim;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.esm.EventSourceEmulator;
import io.kafkas3archiver.esm.EventSourceEmulator.Settings;
import io.kafkas3archiver.restore.Servers;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The audit against the real function's output and the real broker: a topic with transaction
 * markers (and csv error rows) is archived by the handler through the event-source emulator into
 * S3Proxy, audited clean, then broken one way at a time (a deleted object, an object overwritten
 * with other bytes, the same range archived under a second prefix, the mapping stopped while the
 * cluster runs ahead); each is reported precisely, with its exit code. A compacted topic, whose
 * older records the broker's log cleaner removed before the archiver read them, audits clean with
 * every removed offset an explained gap.
 */
class AuditIT {
  private static final String BUCKET = "audit-it";
  private static final int PARTITIONS = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The last produced record's offset + 1, per partition: what the mapping commits at the end. */
  private static final Map<TopicPartition, Long> PRODUCED =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static Servers servers;
  private static S3Client s3;

  @BeforeAll
  static void start() {
    servers = Servers.start(BUCKET);
    s3 =
        S3Client.builder()
            .endpointOverride(URI.create(servers.s3.endpoint().toString()))
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
            .build();
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
    if (servers != null) {
      servers.close();
    }
  }

  /** The command's exit code, its output and (with --json) the parsed report. */
  record Run(int exit, String out, String err, JsonNode json) {}

  private static Run audit(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--bucket",
            BUCKET,
            "--endpoint-url",
            servers.s3.endpoint().toString(),
            "--region",
            "us-east-1",
            "--path-style"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        AuditCommand.run(
            all.toArray(String[]::new),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.println("audit " + String.join(" ", args) + " -> exit " + rc + "\n" + text + err);
    JsonNode json = null;
    if (all.contains("--json") && rc < 2) {
      try {
        json = JSON.readTree(text);
      } catch (Exception e) {
        throw new AssertionError("not JSON: " + text, e);
      }
    }
    return new Run(rc, text, err.toString(StandardCharsets.UTF_8), json);
  }

  /**
   * Produces {@code transactions} transactions of 5 records per partition (so a commit marker after
   * every 5 offsets), every 13th value plain text (an error row under csv).
   */
  private static void produceTransactions(String topic, int transactions, int startAt) {
    try (KafkaProducer<byte[], byte[]> producer =
        servers.producer(
            Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "audit-" + topic + "-" + startAt,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true))) {
      producer.initTransactions();
      int n = startAt;
      for (int t = 0; t < transactions; t++) {
        producer.beginTransaction();
        for (int p = 0; p < PARTITIONS; p++) {
          for (int i = 0; i < 5; i++, n++) {
            String value = n % 13 == 0 ? "plain text " + n : "{\"n\":" + n + ",\"p\":" + p + "}";
            producer.send(
                new ProducerRecord<>(
                    topic,
                    p,
                    null,
                    ("k" + n).getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8)),
                AuditIT::produced);
          }
        }
        producer.commitTransaction();
      }
    }
  }

  private static void producePlain(String topic, int perPartition) {
    try (KafkaProducer<byte[], byte[]> producer = servers.producer(Map.of())) {
      for (int p = 0; p < PARTITIONS; p++) {
        for (int i = 0; i < perPartition; i++) {
          producer.send(
              new ProducerRecord<>(
                  topic, p, null, null, ("{\"late\":" + i + "}").getBytes(StandardCharsets.UTF_8)),
              AuditIT::produced);
        }
      }
      producer.flush();
    }
  }

  private static void produceText(String topic, int perPartition) {
    try (KafkaProducer<byte[], byte[]> producer = servers.producer(Map.of())) {
      for (int p = 0; p < PARTITIONS; p++) {
        for (int i = 0; i < perPartition; i++) {
          producer.send(
              new ProducerRecord<>(
                  topic, p, null, null, ("not json " + i).getBytes(StandardCharsets.UTF_8)),
              AuditIT::produced);
        }
      }
      producer.flush();
    }
  }

  private static void produced(org.apache.kafka.clients.producer.RecordMetadata m, Exception e) {
    if (e == null) {
      PRODUCED.merge(new TopicPartition(m.topic(), m.partition()), m.offset() + 1, Math::max);
    }
  }

  private static Map<TopicPartition, Long> endOffsets(String topic) {
    Map<TopicPartition, Long> end =
        new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
    PRODUCED.forEach(
        (tp, o) -> {
          if (tp.topic().equals(topic)) {
            end.put(tp, o);
          }
        });
    assertThat(end).hasSize(PARTITIONS);
    return end;
  }

  /** Archives {@code topic} through the real handler until the group committed the log's end. */
  private static void archive(String topic, String keyPrefix, String group) {
    Harness harness =
        Harness.against(servers.s3.endpoint().toString(), BUCKET)
            .with("KEY_PREFIX", keyPrefix)
            .with("OUTPUT_FORMAT", "csv")
            .with("INCLUDE_KAFKA_METADATA", "true");
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
    try (var emulator =
        new EventSourceEmulator(
            Settings.of(servers.kafka.bootstrapServers(), topic, group)
                .withBatchSize(17)
                .withBatchingWindow(Duration.ofMillis(50)),
            handler)) {
      assertThat(emulator.runUntilCommitted(endOffsets(topic), Duration.ofMinutes(3))).isTrue();
    }
  }

  private static List<S3Object> objects(String prefix) {
    return s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
        .toList();
  }

  private static Claim claim(String key) {
    return Claim.fromMetadata(s3.headObject(b -> b.bucket(BUCKET).key(key)).metadata())
        .orElseThrow();
  }

  private static JsonNode partition(JsonNode report, int p) {
    for (JsonNode n : report.path("partitions")) {
      if (n.path("partition").asInt() == p) {
        return n;
      }
    }
    throw new AssertionError("no partition " + p + " in " + report.toPrettyString());
  }

  private static Stream<JsonNode> gaps(JsonNode report, int p, String reason) {
    List<JsonNode> out = new ArrayList<>();
    partition(report, p).path("gaps").forEach(out::add);
    return out.stream().filter(g -> g.path("reason").asText().equals(reason));
  }

  /** The one object of partition {@code p} whose claim starts neither first nor last. */
  private static String middleObject(String prefix, String topic, int p) {
    List<String> keys = new ArrayList<>();
    for (S3Object o : objects(prefix)) {
      Claim c = claim(o.key());
      if (AuditedObject.partitionOf(o.key(), topic, c.first(), PARTITIONS) == p) {
        keys.add(c.first() + " " + o.key());
      }
    }
    keys.sort(
        (a, b) -> Long.compare(Long.parseLong(a.split(" ")[0]), Long.parseLong(b.split(" ")[0])));
    assertThat(keys.size()).as("objects of partition %d", p).isGreaterThanOrEqualTo(3);
    return keys.get(keys.size() / 2).split(" ", 2)[1];
  }

  @Test
  void shouldAuditCleanThenReportADeletedAnOverwrittenAndADoubledRangeAndTheLag() throws Exception {
    String topic = "audited";
    String group = "archiver-" + topic;
    servers.kafka.createTopic(topic, PARTITIONS);
    produceTransactions(topic, 30, 0);
    archive(topic, "arch", group);
    String[] withCluster = {
      "--topic",
      topic,
      "--key-prefix",
      "arch",
      "--bootstrap-servers",
      servers.kafka.bootstrapServers(),
      "--group",
      group
    };

    // 1. Clean, with the cluster: markers at object edges are probed and found to hold no record.
    Run clean = audit(concat(withCluster, "--json", "--full"));
    assertThat(clean.exit()).as(clean.out()).isZero();
    assertThat(clean.json().path("duplicateOffsets").asLong()).isZero();
    assertThat(clean.json().path("gapOffsets").asLong()).isZero();
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode part = partition(clean.json(), p);
      long end = part.path("logEnd").asLong();
      assertThat(part.path("archivedThrough").asLong()).isEqualTo(end - 1);
      assertThat(part.path("committed").asLong()).isBetween(end - 1, end);
      assertThat(part.path("lag").asLong()).isZero();
      assertThat(part.path("errorOffsets").size()).as("error rows of partition %d", p).isPositive();
      // 30 transactions of 5 records each: 29 markers inside the log, recorded or probed.
      assertThat(part.path("gaps").size()).isPositive();
    }
    // The table says the same for people, with the request count.
    Run table = audit(withCluster);
    assertThat(table.exit()).isZero();
    assertThat(table.out()).contains("result: clean (exit 0)").contains("S3 requests:");

    // 2. Incremental (the normal mode): the state holds every claim, so no HEAD at all; the
    // markers the cluster showed empty stay explained even without the cluster.
    Run again = audit(concat(withCluster, "--json"));
    assertThat(again.exit()).isZero();
    assertThat(again.json().path("incremental").asBoolean()).isTrue();
    assertThat(again.json().path("requests").path("head").asLong()).isZero();
    Run offline =
        audit("--topic", topic, "--key-prefix", "arch", "--json", "--partition-count", "2");
    assertThat(offline.exit()).as(offline.out()).isZero();
    Run stateless =
        audit(
            "--topic",
            topic,
            "--key-prefix",
            "arch",
            "--json",
            "--no-state",
            "--partition-count",
            "2");
    assertThat(stateless.json().path("requests").path("head").asLong())
        .isEqualTo(stateless.json().path("objects").asLong());
    if (gaps(clean.json(), 0, "no_record_in_log").findAny().isPresent()) {
      assertThat(stateless.exit()).as("markers at object edges, unchecked").isEqualTo(1);
      assertThat(gaps(stateless.json(), 0, "unchecked")).isNotEmpty();
    }

    // 3. The mapping stops while the cluster runs ahead: lag, not a gap (exit 0).
    producePlain(topic, 40);
    Run behind = audit(concat(withCluster, "--json"));
    assertThat(behind.exit()).as(behind.out()).isZero();
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(partition(behind.json(), p).path("lag").asLong()).isEqualTo(40);
    }
    assertThat(behind.json().path("lagOffsets").asLong()).isEqualTo(40L * PARTITIONS);
    // The lag alarm's figure: the Lambda action publishes the same count (no gap, no duplicate).
    JsonNode behindEmf = auditAction(topic, group).emf();
    assertThat(behindEmf.path("ArchiveLagOffsets").asLong()).isEqualTo(40L * PARTITIONS);
    assertThat(behindEmf.path("ArchiveGapOffsets").asLong()).isZero();
    archive(topic, "arch", group);
    assertThat(audit(concat(withCluster, "--json")).json().path("lagOffsets").asLong()).isZero();

    // 3b. A batch of error rows only (plain text under csv): its error object alone holds the
    // claim (chain.ChainWriter), and the audit counts it as covering those offsets.
    produceText(topic, 3);
    archive(topic, "arch", group);
    Run errorsOnly = audit(concat(withCluster, "--json"));
    assertThat(errorsOnly.exit()).as(errorsOnly.out()).isZero();
    assertThat(errorsOnly.json().path("gapOffsets").asLong()).isZero();
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode part = partition(errorsOnly.json(), p);
      assertThat(part.path("archivedThrough").asLong()).isEqualTo(part.path("logEnd").asLong() - 1);
    }

    // 4. A deleted object: a missing range, exactly its offsets, with the first record in it.
    String deleted = middleObject("arch/" + topic + "/", topic, 0);
    Claim lost = claim(deleted);
    s3.deleteObject(b -> b.bucket(BUCKET).key(deleted));
    Run hole = audit(concat(withCluster, "--json"));
    assertThat(hole.exit()).as(hole.out()).isEqualTo(1);
    List<JsonNode> missing = gaps(hole.json(), 0, "missing").toList();
    assertThat(missing).hasSize(1);
    assertThat(missing.get(0).path("from").asLong()).isLessThanOrEqualTo(lost.first());
    assertThat(missing.get(0).path("to").asLong()).isGreaterThanOrEqualTo(lost.last());
    assertThat(missing.get(0).path("to").asLong()).isLessThan(lost.last() + 3);
    assertThat(missing.get(0).path("firstRecord").asLong()).isEqualTo(lost.first());
    assertThat(hole.json().path("gapOffsets").asLong())
        .isGreaterThanOrEqualTo(lost.last() - lost.first() + 1);
    Run holeTable = audit(withCluster);
    assertThat(holeTable.out())
        .contains("PROBLEM partition 0: offsets " + missing.get(0).path("from").asLong() + "..")
        .contains("not in the archive")
        .contains("result: 1 problems (exit 1)");
    // The restore Lambda's audit action: the same report, and the figures the gap alarm watches.
    LambdaAudit action = auditAction(topic, group);
    JsonNode answer = action.answer();
    assertThat(answer.path("exitCode").asInt()).isEqualTo(1);
    assertThat(answer.path("gapOffsets").asLong())
        .isEqualTo(hole.json().path("gapOffsets").asLong());
    JsonNode emf = action.emf();
    assertThat(emf.path("ArchiveGapOffsets").asLong())
        .isEqualTo(answer.path("gapOffsets").asLong());
    assertThat(emf.path("ArchiveDuplicateOffsets").asLong()).isZero();
    assertThat(emf.path("ArchiveLagOffsets").asLong()).isZero();
    assertThat(emf.path("_aws").path("CloudWatchMetrics").get(0).path("Namespace").asText())
        .isEqualTo("KafkaS3Archiver");
    // Put it back as it was (the archiver rewrites it on a redelivery from that offset).
    s3.putObject(
        b -> b.bucket(BUCKET).key(deleted).metadata(lost.toMetadata()),
        RequestBody.fromString("restored\r\n"));
    assertThat(audit(concat(withCluster, "--json")).exit()).isZero();

    // 5. An object overwritten with other bytes (no claim any more): named, and its range a gap.
    String overwritten = middleObject("arch/" + topic + "/", topic, 1);
    Claim before = claim(overwritten);
    s3.putObject(b -> b.bucket(BUCKET).key(overwritten), RequestBody.fromString("tampered"));
    Run tampered = audit(concat(withCluster, "--json"));
    assertThat(tampered.exit()).isEqualTo(1);
    assertThat(tampered.json().path("unplacedObjects").get(0).path("key").asText())
        .isEqualTo(overwritten);
    assertThat(gaps(tampered.json(), 1, "missing").toList())
        .singleElement()
        .satisfies(g -> assertThat(g.path("firstRecord").asLong()).isEqualTo(before.first()));
    s3.putObject(
        b -> b.bucket(BUCKET).key(overwritten).metadata(before.toMetadata()),
        RequestBody.fromString("restored\r\n"));
    assertThat(audit(concat(withCluster, "--json")).exit()).isZero();

    // 5b. Other bytes under the same claim (metadata copied): only the checksum can tell, and it
    // names the key; so for a truncated body.
    String altered = null;
    for (S3Object o : objects("arch/" + topic + "/")) {
      var head = s3.headObject(b -> b.bucket(BUCKET).key(o.key()));
      if (!o.key().equals(overwritten)
          && !o.key().equals(deleted)
          && head.metadata().containsKey(S3ObjectStore.CHECKSUM_METADATA)
          && o.size() > 20) {
        altered = o.key();
        break;
      }
    }
    assertThat(altered).as("an object with a recorded checksum").isNotNull();
    String key = altered;
    Map<String, String> meta = s3.headObject(b -> b.bucket(BUCKET).key(key)).metadata();
    byte[] original = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
    assertThat(meta.get(S3ObjectStore.CHECKSUM_METADATA)).isEqualTo(S3ObjectStore.crc32c(original));
    byte[] flipped = original.clone();
    flipped[flipped.length / 2] ^= 0x01;
    for (byte[] other : List.of(flipped, java.util.Arrays.copyOf(original, original.length / 2))) {
      s3.putObject(b -> b.bucket(BUCKET).key(key).metadata(meta), RequestBody.fromBytes(other));
      assertThat(audit(concat(withCluster, "--json")).exit()).as("claims alone").isZero();
      Run verified = audit(concat(withCluster, "--json", "--verify-checksums"));
      assertThat(verified.exit()).isEqualTo(1);
      assertThat(verified.json().toString())
          .contains(key)
          .contains("not the bytes the archiver wrote");
    }
    s3.putObject(b -> b.bucket(BUCKET).key(key).metadata(meta), RequestBody.fromBytes(original));
    Run intact = audit(concat(withCluster, "--verify-checksums"));
    assertThat(intact.exit()).as(intact.out()).isZero();
    assertThat(intact.out()).contains("checksums: ");

    // 6. The same range archived twice, under a second prefix: every offset stored twice.
    archive(topic, "arch2", "second-" + topic);
    Run doubled =
        audit(
            "--topic",
            topic,
            "--key-prefix",
            "arch",
            "--list-prefix",
            "arch",
            "--json",
            "--bootstrap-servers",
            servers.kafka.bootstrapServers());
    assertThat(doubled.exit()).isEqualTo(1);
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode part = partition(doubled.json(), p);
      long stored = 0;
      for (JsonNode d : part.path("duplicates")) {
        stored += d.path("to").asLong() - d.path("from").asLong() + 1;
        // The error-only batch of step 3b is held by arch's error object (arch/_errors/...).
        assertThat(d.path("keys").toString())
            .containsPattern("\"arch/(_errors/)?" + topic)
            .contains("arch2/" + topic);
      }
      long covered = 0;
      for (JsonNode r : part.path("covered")) {
        covered += r.get(1).asLong() - r.get(0).asLong() + 1;
      }
      assertThat(stored).as("partition %d offsets stored twice", p).isEqualTo(covered);
    }
  }

  /**
   * A compacted topic: the broker's log cleaner removes the older records of shared keys before the
   * archiver reads the topic, so the archive has holes that are neither markers nor lost objects.
   * Inside an object the claim records them; at an object's edge (and before the first claim) the
   * probe finds no record there. Either way explained: clean, exit 0, and every removed offset is
   * in an explained gap.
   */
  @Test
  void shouldExplainTheOffsetsTheLogCleanerRemovedBeforeArchiving() throws Exception {
    String topic = "compacted";
    String group = "archiver-" + topic;
    LogCleaner.speedUp(servers.kafka.bootstrapServers());
    servers.kafka.createTopic(
        topic,
        PARTITIONS,
        Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "100",
            "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0",
            "delete.retention.ms", "100"));
    int rounds = 8;
    produceCompactable(topic, rounds);
    // Each round's 3 shared keys survive only in the last round.
    Map<Integer, Ranges> removed =
        LogCleaner.awaitRemoved(
            servers.kafka.bootstrapServers(),
            topic,
            endOffsets(topic),
            3L * (rounds - 1),
            Duration.ofSeconds(30));
    archive(topic, "comp", group);

    Run run =
        audit(
            "--topic",
            topic,
            "--key-prefix",
            "comp",
            "--bootstrap-servers",
            servers.kafka.bootstrapServers(),
            "--group",
            group,
            "--json",
            "--full");
    assertThat(run.exit()).as(run.out()).isZero();
    assertThat(run.json().path("gapOffsets").asLong()).isZero();
    assertThat(run.json().path("duplicateOffsets").asLong()).isZero();
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode part = partition(run.json(), p);
      assertThat(part.path("archivedThrough").asLong()).isEqualTo(part.path("logEnd").asLong() - 1);
      Ranges explained = new Ranges();
      List<String> reasons = new ArrayList<>();
      for (JsonNode g : part.path("gaps")) {
        assertThat(g.path("explained").asBoolean()).as(g.toString()).isTrue();
        explained.add(g.path("from").asLong(), g.path("to").asLong());
        reasons.add(g.path("reason").asText());
      }
      // Exactly the cleaner's holes are explained gaps: none left out, none invented.
      assertThat(explained.list())
          .as("partition %d's gaps against the offsets the cleaner removed", p)
          .isEqualTo(removed.get(p).list());
      // Holes both inside objects (recorded in the claim) and between them (probed).
      assertThat(reasons).contains("recorded", "no_record_in_log");
    }
    // The table says the same to people.
    Run table =
        audit(
            "--topic",
            topic,
            "--key-prefix",
            "comp",
            "--bootstrap-servers",
            servers.kafka.bootstrapServers());
    assertThat(table.out()).contains("result: clean (exit 0)");
  }

  /**
   * A time range: --from/--to are mapped per partition to offsets by the broker's record
   * timestamps, the audit covers exactly those offsets, and a lost object outside the range does
   * not make the range's audit fail (while the whole topic's does).
   */
  @Test
  void shouldAuditATimeRangeMappedToOffsetsByTheCluster() {
    String topic = "timed";
    String group = "archiver-" + topic;
    servers.kafka.createTopic(topic, PARTITIONS);
    Instant t0 = Instant.parse("2026-03-01T00:00:00Z");
    // Record i of each partition carries the time t0 + i minutes (and so has offset i).
    try (KafkaProducer<byte[], byte[]> producer = servers.producer(Map.of())) {
      for (int p = 0; p < PARTITIONS; p++) {
        for (int i = 0; i < 60; i++) {
          producer.send(
              new ProducerRecord<>(
                  topic,
                  p,
                  t0.plus(Duration.ofMinutes(i)).toEpochMilli(),
                  null,
                  ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8)),
              AuditIT::produced);
        }
      }
      producer.flush();
    }
    archive(topic, "timed", group);
    String[] cluster = {
      "--topic",
      topic,
      "--key-prefix",
      "timed",
      "--bootstrap-servers",
      servers.kafka.bootstrapServers(),
      "--group",
      group,
      "--json"
    };
    // The records from 00:10:00 up to 00:20:00 (exclusive, as for restore): offsets 10..19.
    String[] window =
        concat(cluster, "--from", "2026-03-01T00:10:00Z", "--to", "2026-03-01T00:20:00Z");
    Run ranged = audit(window);
    assertThat(ranged.exit()).as(ranged.out()).isZero();
    assertThat(ranged.json().path("from").asText()).isEqualTo("2026-03-01T00:10:00Z");
    for (int p = 0; p < PARTITIONS; p++) {
      JsonNode part = partition(ranged.json(), p);
      assertThat(part.path("fromOffset").asLong()).isEqualTo(10);
      assertThat(part.path("toOffset").asLong()).isEqualTo(19);
      assertThat(part.path("covered").toString()).isEqualTo("[[10,19]]");
      assertThat(part.path("gaps").size()).isZero();
    }
    // A lost object past the range: the whole topic's audit finds it, the range's does not.
    String lost = null;
    for (S3Object o : objects("timed/" + topic + "/")) {
      if (claim(o.key()).first() > 19) {
        lost = o.key();
        break;
      }
    }
    assertThat(lost).as("an object after offset 19").isNotNull();
    String key = lost;
    Claim lostClaim = claim(key);
    s3.deleteObject(b -> b.bucket(BUCKET).key(key));
    assertThat(audit(cluster).exit()).as("the whole topic").isEqualTo(1);
    Run stillClean = audit(window);
    assertThat(stillClean.exit()).as(stillClean.out()).isZero();
    // A --to just past the lost object's first record time reaches it: found, exit 1.
    Run reaching =
        audit(
            concat(
                cluster,
                "--from",
                "2026-03-01T00:10:00Z",
                "--to",
                t0.plus(Duration.ofMinutes(lostClaim.first())).plusMillis(1).toString()));
    assertThat(reaching.exit()).as(reaching.out()).isEqualTo(1);
    assertThat(reaching.json().path("gapOffsets").asLong()).isEqualTo(1);
    // A range after every record: no offsets to audit, clean; the table says so.
    Run later =
        audit(
            "--topic",
            topic,
            "--key-prefix",
            "timed",
            "--bootstrap-servers",
            servers.kafka.bootstrapServers(),
            "--from",
            "2026-03-02T00:00:00Z");
    assertThat(later.exit()).as(later.out()).isZero();
    assertThat(later.out())
        .contains("time range: --from 2026-03-02T00:00:00Z --to -")
        .contains(
            "partition 0: the time range is no offsets (no record in it; the next offset is 60)");
    // Without the cluster there is nothing to map the times with: refused, exit 2.
    Run offline =
        audit("--topic", topic, "--key-prefix", "timed", "--from", "2026-03-01T00:10:00Z");
    assertThat(offline.exit()).isEqualTo(2);
    assertThat(offline.err()).contains("--from/--to need --bootstrap-servers");
  }

  /**
   * {@code rounds} rounds per partition of 2 records with keys of their own and 3 with keys every
   * round shares, a pause between rounds so that each round starts a new segment ({@code
   * segment.ms} 100): the cleaner keeps only the last round's shared keys. The first round opens
   * with the shared keys, so the log starts with a hole; a last record rolls the final round's
   * segment so that the cleaner may clean it too.
   */
  private static void produceCompactable(String topic, int rounds) throws InterruptedException {
    try (KafkaProducer<byte[], byte[]> producer = servers.producer(Map.of())) {
      for (int r = 0; r <= rounds; r++) {
        for (int p = 0; p < PARTITIONS; p++) {
          List<String> keys =
              r == rounds
                  ? List.of("last")
                  : List.of("s0", "s1", "u" + r + "a", "s2", "u" + r + "b");
          for (String k : keys) {
            producer.send(
                new ProducerRecord<>(
                    topic,
                    p,
                    k.getBytes(StandardCharsets.UTF_8),
                    ("{\"k\":\"" + k + "\",\"r\":" + r + "}").getBytes(StandardCharsets.UTF_8)),
                AuditIT::produced);
          }
        }
        producer.flush();
        Thread.sleep(250);
      }
    }
  }

  private static String[] concat(String[] a, String... b) {
    return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
  }

  /** The restore Lambda's answer to {"action":"audit"} and the EMF line it logged. */
  record LambdaAudit(JsonNode answer, JsonNode emf) {}

  /** {"action":"audit"} on the restore Lambda, with the AUDIT_* settings a stack gives it. */
  private LambdaAudit auditAction(String topic, String group) throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    Map<String, String> env =
        Map.of(
            "AUDIT_BUCKET",
            BUCKET,
            "AUDIT_TOPIC",
            topic,
            "AUDIT_KEY_PREFIX",
            "arch",
            "AUDIT_BOOTSTRAP_SERVERS",
            servers.kafka.bootstrapServers(),
            "AUDIT_GROUP",
            group,
            "TITLE",
            "audit-it");
    JsonNode answer =
        new io.kafkas3archiver.restore.RestoreLambda(
                env::get,
                Duration.ofSeconds(1),
                new PrintStream(logged, true, StandardCharsets.UTF_8))
            .handle(
                JSON.readTree(
                    "{\"action\":\"audit\",\"audit\":{\"endpointUrl\":\""
                        + servers.s3.endpoint()
                        + "\",\"region\":\"us-east-1\",\"pathStyle\":true}}"),
                60_000);
    JsonNode emf =
        JSON.readTree(
            logged
                .toString(StandardCharsets.UTF_8)
                .strip()
                .lines()
                .reduce((a, b) -> b)
                .orElseThrow());
    return new LambdaAudit(answer, emf);
  }
}
