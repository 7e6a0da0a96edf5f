package io.kafkas3archiver.upload;

import static io.kafkas3archiver.testing.PreflightReports.statuses;
import static io.kafkas3archiver.testing.PreflightReports.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ObjectLockEnabled;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The archiver on a write-once bucket (S3 Object Lock with a default retention), against moto's S3
 * server, which implements what matters here (moto 5.2.5): a bucket created with Object Lock, its
 * default retention applied to every new version, PutObject refused without Content-MD5 or an SDK
 * checksum, and a delete of a retained version refused (GOVERNANCE: unless the caller bypasses
 * governance; COMPLIANCE: always). The real handler runs the preflight and conditional writes
 * (data, error, pointer and schema objects) there; nothing may be overwritten or deleted.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObjectLockIT {
  private static final String GOVERNED = "worm-governance";
  private static final String COMPLIANT = "worm-compliance";
  private static final String TOPIC = "vehicle-telemetry";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static MotoServer moto;
  private static int firstRequest;

  @BeforeAll
  static void startMoto() {
    moto = MotoServer.start();
    try (S3Client s3 = moto.s3()) {
      lockedBucket(s3, GOVERNED, ObjectLockRetentionMode.GOVERNANCE, 1);
      lockedBucket(s3, COMPLIANT, ObjectLockRetentionMode.COMPLIANCE, 1);
    }
    firstRequest = moto.recorded().size();
  }

  @AfterAll
  static void stopMoto() {
    if (moto != null) {
      moto.close();
    }
  }

  /** What the stacks create with objectLockMode/objectLockDays: lock on, a default retention. */
  private static void lockedBucket(
      S3Client s3, String bucket, ObjectLockRetentionMode mode, int days) {
    s3.createBucket(b -> b.bucket(bucket).objectLockEnabledForBucket(true));
    s3.putObjectLockConfiguration(
        b ->
            b.bucket(bucket)
                .objectLockConfiguration(
                    c ->
                        c.objectLockEnabled(ObjectLockEnabled.ENABLED)
                            .rule(r -> r.defaultRetention(d -> d.mode(mode).days(days)))));
  }

  @Test
  @Order(1)
  void shouldRefuseAPutWithoutAChecksumSoTheStoreReallyEnforcesTheLockRules() {
    // Given a client that sends neither Content-MD5 nor an SDK checksum
    try (S3Client bare =
        S3Client.builder()
            .endpointOverride(moto.endpoint())
            .region(Region.of(MotoServer.REGION))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("admin", "admin")))
            .httpClient(UrlConnectionHttpClient.create())
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
            .build()) {
      // Then the locked bucket refuses it, as S3 does: every write of the function must carry one
      assertThatThrownBy(
              () ->
                  bare.putObject(
                      b -> b.bucket(GOVERNED).key("condense/no-checksum.txt"),
                      RequestBody.fromString("x")))
          .isInstanceOf(S3Exception.class)
          .hasMessageContaining("Content-MD5");
    }
  }

  @Test
  @Order(2)
  void shouldPassThePreflightWithoutDeletingAndNameTheLock() throws Exception {
    JsonNode report = preflight(handler(GOVERNED));

    assertThat(report.path("ok").asBoolean()).as("%s", report).isTrue();
    assertThat(statuses(report))
        .containsExactly(
            "credentials=PASS",
            "bucket=PASS",
            "region=PASS",
            "objectLock=PASS",
            "probeWrite=PASS",
            "conditionalWrite=PASS",
            "probeDelete=SKIPPED");
    assertThat(step(report, "objectLock").path("detail").asText())
        .contains("bucket '" + GOVERNED + "' has Object Lock (GOVERNANCE, 1 day)");
    assertThat(step(report, "probeDelete").path("detail").asText())
        .contains("Object Lock (GOVERNANCE, 1 day)")
        .contains("stays until its retention ends");
    // The probe is there, retained by the bucket's default, and was never deleted
    String probe = report.path("keyLayout").path("probeKey").asText();
    try (S3Client s3 = moto.s3()) {
      var head = s3.headObject(b -> b.bucket(GOVERNED).key(probe));
      assertThat(head.objectLockModeAsString()).isEqualTo("GOVERNANCE");
      assertThat(head.objectLockRetainUntilDate()).isAfter(java.time.Instant.now());
    }
    assertThat(functionCalls(GOVERNED)).noneMatch(r -> r.method().equals("DELETE"));
  }

  @Test
  @Order(3)
  void shouldArchiveWithConditionalWritesAndOverwriteNothing() throws Exception {
    ArchiverHandler handler = handler(GOVERNED);

    // Given a batch of ten records, one of them text (an error row under csv)
    assertThat(invoke(handler, batch(0, 9))).isEqualTo("{\"batchItemFailures\":[]}");
    // When the mapping redelivers a shorter batch (it ends inside the stored claim: pointers), and
    // then a grown one (only the new records are written)
    assertThat(invoke(handler, batch(0, 4))).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(invoke(handler, batch(0, 14))).isEqualTo("{\"batchItemFailures\":[]}");

    // Then data, error, pointer and schema objects were written, each key once: one version
    Map<String, Integer> versions = new TreeMap<>();
    try (S3Client s3 = moto.s3()) {
      for (ObjectVersion v :
          s3.listObjectVersionsPaginator(b -> b.bucket(GOVERNED).prefix("condense/")).versions()) {
        versions.merge(v.key(), 1, Integer::sum);
      }
    }
    assertThat(versions.keySet())
        .anyMatch(k -> k.startsWith("condense/" + TOPIC + "/year="))
        .anyMatch(k -> k.startsWith("condense/_errors/" + TOPIC + "/"))
        .anyMatch(k -> k.startsWith("condense/_schemas/" + TOPIC + "/"))
        .anyMatch(k -> k.startsWith("condense/_preflight/"));
    assertThat(versions).allSatisfy((key, n) -> assertThat(n).as(key).isEqualTo(1));
    // a pointer: a zero-row object claiming 5-9, where the short delivery's restart begins
    assertThat(pointerPuts()).isNotEmpty();
  }

  @Test
  @Order(4)
  void shouldSendAChecksumWithEveryPutOfTheFunction() {
    List<MotoServer.Recorded> puts =
        functionCalls(GOVERNED).stream().filter(r -> r.method().equals("PUT")).toList();

    assertThat(puts.stream().map(r -> kind(r.url())).distinct())
        .containsExactlyInAnyOrder("data", "errors", "schemas", "preflight");
    assertThat(pointerPuts()).isNotEmpty();
    assertThat(puts)
        .allSatisfy(
            r -> {
              assertThat(r.header("Content-MD5")).as("Content-MD5 of %s", r.url()).isNotBlank();
              assertThat(r.header("x-amz-checksum-crc32c"))
                  .as("CRC32C of %s", r.url())
                  .isNotBlank();
              assertThat(r.header("If-None-Match")).as("condition of %s", r.url()).isEqualTo("*");
            });
  }

  @Test
  @Order(5)
  void shouldRefuseToDeleteARetainedVersion() {
    try (S3Client s3 = moto.s3()) {
      ObjectVersion archived = firstArchivedVersion(s3, GOVERNED);

      // A delete of the version itself is refused while its retention runs
      assertThatThrownBy(
              () ->
                  s3.deleteObject(
                      b -> b.bucket(GOVERNED).key(archived.key()).versionId(archived.versionId())))
          .isInstanceOfSatisfying(
              S3Exception.class,
              e -> {
                assertThat(e.statusCode()).isEqualTo(403);
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
              });
      // A delete without a version only adds a delete marker: the retained bytes stay
      var marker = s3.deleteObject(b -> b.bucket(GOVERNED).key(archived.key()));
      assertThat(marker.deleteMarker()).isTrue();
      assertThat(
              s3.getObjectAsBytes(
                      b -> b.bucket(GOVERNED).key(archived.key()).versionId(archived.versionId()))
                  .asByteArray())
          .isNotEmpty();
      // GOVERNANCE yields to a caller allowed to bypass it (s3:BypassGovernanceRetention)
      s3.deleteObject(
          b ->
              b.bucket(GOVERNED)
                  .key(archived.key())
                  .versionId(archived.versionId())
                  .bypassGovernanceRetention(true));
    }
  }

  @Test
  @Order(6)
  void shouldRefuseEvenABypassingDeleteUnderCompliance() throws Exception {
    ArchiverHandler handler = handler(COMPLIANT);
    JsonNode report = preflight(handler);
    assertThat(report.path("ok").asBoolean()).as("%s", report).isTrue();
    assertThat(step(report, "objectLock").path("detail").asText())
        .contains("Object Lock (COMPLIANCE, 1 day)");
    assertThat(invoke(handler, batch(0, 2))).isEqualTo("{\"batchItemFailures\":[]}");

    try (S3Client s3 = moto.s3()) {
      ObjectVersion archived = firstArchivedVersion(s3, COMPLIANT);
      assertThatThrownBy(
              () ->
                  s3.deleteObject(
                      b ->
                          b.bucket(COMPLIANT)
                              .key(archived.key())
                              .versionId(archived.versionId())
                              .bypassGovernanceRetention(true)))
          .isInstanceOfSatisfying(
              S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
    }
  }

  // ---- helpers ----

  private static ArchiverHandler handler(String bucket) {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", bucket);
    env.put("BUCKET_REGION", MotoServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", moto.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    // csv: the topic's schema is persisted under _schemas/, and a text value is an error row
    env.put("OUTPUT_FORMAT", "csv");
    return new ArchiverHandler(ArchiverConfig.fromEnv(env), env::get);
  }

  /** Offsets {@code from..to} of partition 0; offset 3 holds text, which csv cannot take. */
  private static InputStream batch(long from, long to) {
    EventBuilder event = new EventBuilder();
    for (long o = from; o <= to; o++) {
      String value =
          o == 3 ? "plain text, not JSON" : "{\"vehicle\":\"v" + o + "\",\"speed\":" + o + "}";
      event.add(
          TOPIC, 0, o, 1_767_225_600_000L + o, "k" + o, value.getBytes(StandardCharsets.UTF_8));
    }
    return event.stream();
  }

  private static String invoke(ArchiverHandler handler, InputStream event) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(event, out, new LocalContext(60_000));
    return out.toString(StandardCharsets.UTF_8);
  }

  private static JsonNode preflight(ArchiverHandler handler) throws Exception {
    return JSON.readTree(
        invoke(
            handler,
            new ByteArrayInputStream(
                "{\"action\":\"preflight\"}".getBytes(StandardCharsets.UTF_8))));
  }

  /** The function's PUTs of a claim that starts at offset 5: the short delivery's pointers. */
  private static List<MotoServer.Recorded> pointerPuts() {
    return functionCalls(GOVERNED).stream()
        .filter(r -> r.method().equals("PUT"))
        .filter(r -> String.valueOf(r.header("x-amz-meta-kafka-offsets")).startsWith("5-"))
        .toList();
  }

  private static String kind(String url) {
    if (url.contains("/_preflight/")) {
      return "preflight";
    }
    if (url.contains("/_schemas/")) {
      return "schemas";
    }
    if (url.contains("/_errors/")) {
      return "errors";
    }
    return "data";
  }

  /** The function's requests to {@code bucket} (the test's own client signs as "admin"). */
  /** The first version of a data object the handler archived into {@code bucket}. */
  private static ObjectVersion firstArchivedVersion(S3Client s3, String bucket) {
    return s3.listObjectVersionsPaginator(
            b -> b.bucket(bucket).prefix("condense/" + TOPIC + "/year="))
        .versions()
        .iterator()
        .next();
  }

  private static List<MotoServer.Recorded> functionCalls(String bucket) {
    List<MotoServer.Recorded> all = moto.recorded();
    return all.subList(firstRequest, all.size()).stream()
        .filter(r -> r.url().contains("/" + bucket + "/") || r.url().contains("/" + bucket + "?"))
        .filter(r -> !String.valueOf(r.header("Authorization")).contains("Credential=admin/"))
        .toList();
  }
}
