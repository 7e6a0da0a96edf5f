package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The restore says so, with a non-zero exit, when it cannot or should not run: nothing archived
 * under the listed prefix (naming the nearest prefixes that hold objects), nothing in the requested
 * range, a record larger than the producer or the target topic accept, a bucket that does not
 * exist. None of these creates the checkpoint topic, and none advises a rerun that cannot help. The
 * archive is written by the real handler into S3Proxy; the target is a real KRaft broker.
 */
class RestoreRefusalsIT {
  private static final String BUCKET = "restore-refusals";
  private static final String PREFIX = "refusals";

  private static Servers servers;
  private static EmbeddedKafka kafka;
  private static S3ProxyServer s3server;

  @BeforeAll
  static void start() {
    servers = Servers.start(BUCKET);
    kafka = servers.kafka;
    s3server = servers.s3;
    archive("orders", "{\"id\":1}".getBytes(StandardCharsets.UTF_8));
  }

  @AfterAll
  static void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  @Test
  void shouldExitNonZeroNamingTheListedPrefixAndTheNearestThatHoldObjects() throws Exception {
    kafka.createTopic("never.archived", 1);

    Run run = restore("--topic", "never.archived");

    assertThat(run.rc()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "nothing to restore: no archived object under s3://"
                + BUCKET
                + "/refusals/never.archived/ (data)")
        .contains("the nearest prefixes that hold objects are refusals/orders/")
        .contains("check --topic and --key-prefix")
        .doesNotContain("rerun")
        .doesNotContain("restored ");
    assertThat(topics()).doesNotContain("never.archived.restore-checkpoint");
  }

  @Test
  void shouldNameTheKeyPrefixThatHoldsObjectsWhenTheGivenOneIsWrong() throws Exception {
    kafka.createTopic("orders", 1);

    Run run = restore("--topic", "orders", "--key-prefix", "refusal", "--target-topic", "orders");

    assertThat(run.rc()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .contains("no archived object under s3://" + BUCKET + "/refusal/orders/")
        .contains("the nearest prefixes that hold objects are refusals/");
    assertThat(topics()).doesNotContain("orders.restore-checkpoint");
  }

  @Test
  void shouldSayWhatTheArchiveHoldsWhenTheRangeSelectsNothing() throws Exception {
    kafka.createTopic("orders-range", 1);

    Run run = restore("--topic", "orders", "--target-topic", "orders-range", "--partitions", "7");

    assertThat(run.rc()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .contains("holds 1 records (partition 0 offsets 0..0), none of them in the requested range")
        .contains("(--partitions 7)");
    assertThat(topics()).doesNotContain("orders-range.restore-checkpoint");
  }

  @Test
  void shouldRefuseARecordTooLargeForTheTargetBeforeProducingAndNameBothSettings()
      throws Exception {
    byte[] big = new byte[1_500_000];
    Arrays.fill(big, (byte) 'x');
    big[0] = '"';
    big[big.length - 1] = '"';
    archive("big", big);
    kafka.createTopic("big", 1);

    Run refused = restore("--topic", "big");

    assertThat(refused.rc()).as(refused.output()).isEqualTo(1);
    assertThat(refused.output())
        .contains("record too large: source partition 0 offset 0 holds 1,500,0")
        .contains("the producer's max.request.size is 1,048,576")
        .contains("the target topic's max.message.bytes is 1,048,588")
        .contains("--producer-property max.request.size=")
        .contains("--add-config max.message.bytes=")
        .contains("Nothing was produced.")
        .doesNotContain("rerun");
    assertThat(topics()).doesNotContain("big.restore-checkpoint");

    // With both settings raised, as the message says, the same record goes through whole.
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("big-raised", Optional.of(1), Optional.empty())
                      .configs(Map.of("max.message.bytes", "2000000"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    Run raised =
        restore(
            "--topic",
            "big",
            "--target-topic",
            "big-raised",
            "--producer-property",
            "max.request.size=2000000");

    assertThat(raised.rc()).as(raised.output()).isZero();
    // The transaction's commit markers reach the partition after commitTransaction returns, so
    // the last stable offset may trail it for a moment: read until the record is visible.
    List<byte[]> values = new ArrayList<>();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (values.isEmpty() && System.nanoTime() < until) {
      readInto(values);
    }
    assertThat(values).hasSize(1);
    assertThat(values.get(0)).isEqualTo(big);
  }

  private void readInto(List<byte[]> values) {
    try (KafkaConsumer<byte[], byte[]> c =
        new TargetCluster(
                RestoreOptions.parse(
                        "--bucket",
                        BUCKET,
                        "--topic",
                        "big",
                        "--bootstrap-servers",
                        kafka.bootstrapServers())
                    .orElseThrow())
            .consumer()) {
      TargetCluster.forEachRecord(c, "big-raised", r -> values.add(r.value()));
    }
  }

  @Test
  void shouldNameTheMissingBucketAndNotAdviseARerun() {
    Run run = restore("--bucket", "no-such-bucket", "--topic", "orders", "--dry-run");

    assertThat(run.rc()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .contains("the bucket 'no-such-bucket' does not exist at " + s3server.endpoint())
        .contains("check --bucket")
        .doesNotContain("rerun")
        .doesNotContain("checkpoint");
  }

  // ---- helpers ----

  /** Archives {@code values} as offsets 0.. of partition 0 of {@code topic}, with metadata. */
  private static void archive(String topic, byte[]... values) {
    EventBuilder event = new EventBuilder();
    for (int i = 0; i < values.length; i++) {
      event.add(topic, 0, i, 1_700_000_000_000L + i, "k" + i, values[i]);
    }
    Harness.against(s3server.endpoint().toString(), BUCKET)
        .with("KEY_PREFIX", PREFIX)
        .with("OUTPUT_FORMAT", "ndjson")
        .with("INCLUDE_KAFKA_METADATA", "true")
        .handler()
        .invoke(event.stream());
  }

  record Run(int rc, String output) {}

  /** The command with the archive's endpoint and the broker, plus {@code args}. */
  private static Run restore(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--key-prefix",
                PREFIX,
                "--endpoint-url",
                s3server.endpoint().toString(),
                "--path-style",
                "--region",
                S3ProxyServer.REGION,
                "--bootstrap-servers",
                kafka.bootstrapServers()));
    if (!List.of(args).contains("--bucket")) {
      all.addAll(List.of("--bucket", BUCKET));
    }
    // The last --key-prefix wins would be ambiguous: the command refuses a flag given twice.
    if (List.of(args).contains("--key-prefix")) {
      all.subList(0, 2).clear();
    }
    all.addAll(List.of(args));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc =
        RestoreCommand.run(
            all.toArray(String[]::new),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(out, true, StandardCharsets.UTF_8));
    return new Run(rc, out.toString(StandardCharsets.UTF_8));
  }

  private static Admin admin() {
    return Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()));
  }

  private static Set<String> topics() throws Exception {
    try (Admin admin = admin()) {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    }
  }
}
