package io.kafkas3archiver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiveFailedException;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The real handler, through the real AWS SDK, against a real S3-compatible server on 127.0.0.1
 * (S3Proxy with SigV4), read back with DuckDB.
 */
class ArchiverS3IT {
  private static final String BUCKET = "archive-it";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static S3ProxyServer server;
  private static S3Client s3;

  @TempDir Path temp;

  @BeforeAll
  static void startServer() {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    s3 = server.client();
  }

  @AfterAll
  static void stopServer() {
    s3.close();
    server.close();
  }

  private static Harness harness() {
    return Harness.against(server.endpoint().toString(), BUCKET);
  }

  private Path download(String key) throws Exception {
    Path file = temp.resolve(key);
    Files.createDirectories(file.getParent());
    Files.write(file, ObjectBodies.raw(s3, BUCKET, key));
    return file;
  }

  /** A DuckDB list literal of the downloaded objects, in key order. */
  private String files(List<String> keys) throws Exception {
    List<String> literals = new ArrayList<>();
    for (String key : keys.stream().sorted().toList()) {
      literals.add(DuckDb.literal(download(key)));
    }
    return "[" + String.join(", ", literals) + "]";
  }

  private static List<String> dataKeys(List<String> keys) {
    return keys.stream().filter(k -> !k.contains("/_errors/")).toList();
  }

  @Test
  void shouldWriteTheSeedLayoutAndBeReadableByDuckDb() throws Exception {
    var run = harness().with("KEY_PREFIX", "layout").handler();

    String response = run.invoke(Harness.event("msk-event.json"));

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    // One object per topic-partition per folder (issue 12): partitions 0 and 1 of the event.
    assertThat(run.store().keys())
        .hasSize(2)
        .allSatisfy(
            key ->
                assertThat(key)
                    .matches(
                        "layout/vehicle-telemetry/year=2026/month=07/day=13/hour=15/"
                            + "[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\\.ndjson"));
    try (DuckDb duck = new DuckDb()) {
      var rows =
          duck.query(
              "SELECT json->>'vehicleId' AS id, CAST(json->>'speedKmh' AS DOUBLE) AS speed,"
                  + " json_type(json) AS type FROM read_ndjson_objects("
                  + files(run.store().keys())
                  + ") ORDER BY id NULLS LAST, speed");
      assertThat(rows).hasSize(4);
      assertThat(rows.get(0)).containsEntry("id", "KA-01-AB-1234").containsEntry("speed", 62.5);
      assertThat(rows).filteredOn(r -> "VARCHAR".equals(r.get("type"))).hasSize(1);
    }
  }

  @Test
  void shouldGiveTheSameKeysAndBytesWhenTheSameEventIsInvokedTwice() {
    var harness = harness().with("KEY_PREFIX", "idempotent").with("COMPRESSION", "gzip");
    var first = harness.handler();
    first.invoke(Harness.event("self-managed-event.json"));
    List<byte[]> firstBytes = new ArrayList<>();
    first.store().keys().forEach(k -> firstBytes.add(ObjectBodies.raw(s3, BUCKET, k)));

    var second = harness.handler();
    String response = second.invoke(Harness.event("self-managed-event.json"));

    // Changed with issue 12 (exactly-once): a redelivery finds every offset already claimed by
    // the first invocation's objects and writes nothing; it still reports success.
    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(first.store().keys()).isNotEmpty();
    assertThat(second.store().keys()).isEmpty();
    for (int i = 0; i < firstBytes.size(); i++) {
      assertThat(ObjectBodies.raw(s3, BUCKET, first.store().keys().get(i)))
          .isEqualTo(firstBytes.get(i));
    }
    long objects = s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("idempotent/")).contents().size();
    assertThat(objects).isEqualTo(first.store().keys().size());
  }

  @Test
  void shouldAccountForEveryRecordOfAMixedBatch() throws Exception {
    // csv: 3 JSON objects are rows, the text value goes to the error object, the tombstone is
    // skipped; records in = written + errored + tombstones.
    try (StdoutCapture out = new StdoutCapture()) {
      var run = harness().with("KEY_PREFIX", "mixed").with("OUTPUT_FORMAT", "csv").handler();
      run.invoke(Harness.event("self-managed-event.json"));

      JsonNode log = MAPPER.readTree(out.lines().get(out.lines().size() - 1));
      assertThat(log.get("recordsIn").intValue()).isEqualTo(4);
      assertThat(log.get("recordsWritten").intValue()).isEqualTo(2);
      assertThat(log.get("recordsErrored").intValue()).isEqualTo(1);
      assertThat(log.get("tombstonesSkipped").intValue()).isEqualTo(1);
      assertThat(
              log.get("recordsWritten").intValue()
                  + log.get("recordsErrored").intValue()
                  + log.get("tombstonesSkipped").intValue())
          .isEqualTo(log.get("recordsIn").intValue());

      String errorKey =
          run.store().keys().stream()
              .filter(k -> k.contains("/_errors/"))
              .findFirst()
              .orElseThrow();
      assertThat(errorKey)
          .startsWith("mixed/_errors/vehicle-telemetry/year=2026/month=07/day=13/hour=16/");
      try (DuckDb duck = new DuckDb()) {
        var errors =
            duck.query(
                "SELECT topic, \"partition\", \"offset\", reason, from_base64(value_base64)::VARCHAR"
                    + " AS value FROM read_json("
                    + DuckDb.literal(download(errorKey))
                    + ", format='newline_delimited')");
        assertThat(errors)
            .singleElement()
            .satisfies(
                e -> {
                  assertThat(e).containsEntry("offset", 202L);
                  assertThat(e).containsEntry("value", "plain text diagnostic line");
                  assertThat((String) e.get("reason")).contains("csv needs a JSON object value");
                });
        // Partitions 0 and 2 each have their own data object (issue 12).
        List<String> dataKeys = dataKeys(run.store().keys());
        assertThat(dataKeys).hasSize(2);
        var rows =
            duck.query(
                "SELECT vehicleId, speedKmh FROM read_csv("
                    + files(dataKeys)
                    + ", header=true) ORDER BY vehicleId");
        assertThat(rows)
            .containsExactly(
                Map.of("vehicleId", "DL-3C-GH-1111", "speedKmh", 12.0),
                Map.of("vehicleId", "TN-09-EF-4321", "speedKmh", 88.2));
      }
    }
  }

  @Test
  void shouldWriteAJsonArrayThatDuckDbReads() throws Exception {
    var run = harness().with("KEY_PREFIX", "array").with("OUTPUT_FORMAT", "json").handler();
    run.invoke(Harness.event("msk-event.json"));

    try (DuckDb duck = new DuckDb()) {
      // One JSON array per partition (issue 12); together they hold the batch's 4 values.
      assertThat(run.store().keys()).hasSize(2);
      var rows =
          duck.query(
              "SELECT count(*) AS n FROM read_json_objects("
                  + files(run.store().keys())
                  + ", format='array')");
      assertThat(rows.get(0)).containsEntry("n", 4L);
    }
  }

  @Test
  void shouldFailTheInvocationNamingTheBucketWhenItDoesNotExist() {
    var run = harness().with("BUCKET_NAME", "no-such-bucket-here").handler();

    assertThatThrownBy(() -> run.invoke(Harness.event("msk-event.json")))
        .isInstanceOf(ArchiveFailedException.class)
        .hasMessageContaining("NoSuchBucket")
        .hasMessageContaining("'no-such-bucket-here' does not exist")
        .hasMessageContaining("Check BUCKET_NAME")
        .hasMessageContaining("5 records not archived");
  }

  @Test
  void shouldFailTheInvocationSayingTheCredentialsWereRejected() {
    var run = harness().withKeys(S3ProxyServer.ACCESS_KEY, "wrong-secret-value-123").handler();

    assertThatThrownBy(() -> run.invoke(Harness.event("msk-event.json")))
        .isInstanceOf(ArchiveFailedException.class)
        .hasMessageContaining("InvalidCredentials")
        .hasMessageContaining("S3 rejected the credentials")
        .hasMessageContaining("SignatureDoesNotMatch")
        .hasMessageNotContaining("wrong-secret-value-123");
  }

  @Test
  void shouldFailTheInvocationSayingS3CannotBeReachedWhenTheServerIsStopped() {
    S3ProxyServer stopped = S3ProxyServer.inMemory();
    String endpoint = stopped.endpoint().toString();
    stopped.close();
    var run = Harness.against(endpoint, BUCKET).handler();

    long started = System.currentTimeMillis();
    assertThatThrownBy(() -> run.invoke(Harness.event("msk-event.json")))
        .isInstanceOf(ArchiveFailedException.class)
        .hasMessageContaining("Network")
        .hasMessageContaining("Could not reach S3 at " + endpoint)
        .hasMessageContaining("6 attempts")
        .hasMessageContaining("check that the server is up");
    assertThat(System.currentTimeMillis() - started).isLessThan(30_000);
  }

  @Test
  void shouldRouteRecordsOfAnotherTopicToTheErrorObject() throws Exception {
    var run = harness().with("KEY_PREFIX", "guard").with("INPUT_TOPIC", "orders").handler();
    run.invoke(Harness.event("msk-event.json"));

    // Records rejected by INPUT_TOPIC belong to no chain of this function (issue 25): one error
    // object outside every chain, and no data object that would claim (and so silence) offsets of
    // the function that does archive vehicle-telemetry under the same prefix.
    List<String> keys = run.store().keys();
    List<String> errorKeys = keys.stream().filter(k -> k.contains("/_errors/")).toList();
    assertThat(errorKeys).hasSize(1).allMatch(k -> k.contains("/_errors/vehicle-telemetry/"));
    assertThat(dataKeys(keys)).isEmpty();
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(errorKeys.get(0))).metadata())
        .doesNotContainKey("kafka-offsets");
    List<String> lines = new ArrayList<>();
    errorKeys.forEach(k -> new String(ObjectBodies.raw(s3, BUCKET, k)).lines().forEach(lines::add));
    assertThat(lines)
        .hasSize(5)
        .allSatisfy(l -> assertThat(l).contains("is not INPUT_TOPIC 'orders'"));
  }
}
