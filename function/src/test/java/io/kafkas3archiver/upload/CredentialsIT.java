package io.kafkas3archiver.upload;

import static io.kafkas3archiver.testing.PreflightReports.statuses;
import static io.kafkas3archiver.testing.PreflightReports.step;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiveFailedException;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import io.kafkas3archiver.testing.OutputCapture;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Credentials end to end, against real servers on 127.0.0.1: moto (Secrets Manager, STS, and S3 for
 * the assume-role chain) and S3Proxy with SigV4, where wrong keys get a real 403. Every line
 * printed or logged and every exception text is captured; the last test checks that no secret value
 * ever appeared.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CredentialsIT {
  private static final String BUCKET = "archive";
  private static final String WRONG_ACCESS_KEY = "AKIDWRONGKEY00000042";
  private static final String WRONG_SECRET_KEY = "wrong-secret-key-that-must-never-print";
  private static final String BASE_ACCESS_KEY = "AKIDROLEBASEKEY00007";
  private static final String BASE_SECRET_KEY = "role-base-secret-key-that-must-never-print";
  private static final String ROLE_ARN = "arn:aws:iam::123456789012:role/archiver-writer";
  private static final String EXTERNAL_ID = "ext-id-4242";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger SECRETS = new AtomicInteger();

  private static OutputCapture capture;
  private static S3ProxyServer s3;
  private static MotoServer moto;
  private static final Map<String, String> secretValues = new java.util.LinkedHashMap<>();

  @BeforeAll
  static void startServers() {
    capture = OutputCapture.start();
    s3 = S3ProxyServer.inMemory();
    s3.createBucket(BUCKET);
    moto = MotoServer.start();
    secretValues.put("right secret key", S3ProxyServer.SECRET_KEY);
    secretValues.put("wrong secret key", WRONG_SECRET_KEY);
    secretValues.put("role base secret key", BASE_SECRET_KEY);
    secretValues.put(
        "execution role secret key", MotoServer.EXECUTION_ROLE_ENV.get("AWS_SECRET_ACCESS_KEY"));
    secretValues.put(
        "execution role session token", MotoServer.EXECUTION_ROLE_ENV.get("AWS_SESSION_TOKEN"));
  }

  @AfterAll
  static void stopServers() {
    try {
      if (moto != null) {
        moto.close();
      }
      if (s3 != null) {
        s3.close();
      }
    } finally {
      capture.close();
    }
  }

  // ---- archiving ----

  @Test
  @Order(1)
  void shouldArchiveWithTheKeysFromTheSecretAndCacheThem() throws Exception {
    // Given a secret with the right keys
    String arn = secret(rightKeys());
    Handler h = handler(Map.of("CREDENTIALS_SECRET_ARN", arn, "KEY_PREFIX", "from-secret"));

    // When two batches are archived
    h.archive();
    h.archive();

    // Then both were written, and the secret was read once for both
    assertThat(keys("from-secret/")).hasSizeGreaterThanOrEqualTo(1);
    assertThat(getSecretValueCalls(arn)).isEqualTo(1);
  }

  @Test
  @Order(2)
  void shouldRereadRotatedKeysOncePerInvocationAndThenSucceed() throws Exception {
    // Given the function cached stale keys (the secret held keys S3 rejects)
    String arn = secret(wrongKeys());
    Handler h = handler(Map.of("CREDENTIALS_SECRET_ARN", arn, "KEY_PREFIX", "rotated"));
    Throwable first = h.archiveFailing();
    // Then the first invocation re-read the secret exactly once after the 403, then gave up
    assertThat(first).hasMessageContaining("InvalidCredentials");
    assertThat(first).hasMessageContaining("re-read once in this invocation");
    assertThat(first).hasMessageContaining("2 attempts");
    assertThat(getSecretValueCalls(arn)).isEqualTo(2);

    // When the secret is rotated to the right keys between invocations
    moto.putSecretValue(arn, rightKeys());
    h.archive();

    // Then the next invocation hit the 403 with its cached keys, re-read once, and succeeded
    assertThat(getSecretValueCalls(arn)).isEqualTo(3);
    assertThat(keys("rotated/")).isNotEmpty();

    // And later invocations use the cached fresh keys without reading the secret again
    h.archive();
    assertThat(getSecretValueCalls(arn)).isEqualTo(3);
  }

  @Test
  @Order(3)
  void shouldNameTheSecretAndWhatToCheckWhenTheArnIsWrong() throws Exception {
    String arn =
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:kafka-archiver/missing-AbCdEf";
    Handler h = handler(Map.of("CREDENTIALS_SECRET_ARN", arn));

    Throwable failure = h.archiveFailing();

    assertThat(((ArchiveFailedException) failure).errorType()).isEqualTo("CredentialsUnavailable");
    assertThat(failure)
        .hasMessageContaining(arn)
        .hasMessageContaining("ResourceNotFoundException")
        .hasMessageContaining("6-character suffix")
        .hasMessageContaining("1 attempt");
  }

  @Test
  @Order(4)
  void shouldSayWhichBucketIsMissing() throws Exception {
    String arn = secret(rightKeys());
    Handler h =
        handler(Map.of("CREDENTIALS_SECRET_ARN", arn, "BUCKET_NAME", "no-such-archive-bucket"));

    Throwable failure = h.archiveFailing();

    assertThat(((ArchiveFailedException) failure).errorType()).isEqualTo("NoSuchBucket");
    assertThat(failure)
        .hasMessageContaining("'no-such-archive-bucket' does not exist")
        .hasMessageContaining("Check BUCKET_NAME");
  }

  @Test
  @Order(5)
  void shouldRejectWrongExecutionRoleKeysWithoutRereadingAnything() throws Exception {
    // Given no secret: the execution role's keys, which S3 does not know
    Map<String, String> env = new HashMap<>();
    env.put("AWS_ACCESS_KEY_ID", WRONG_ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", WRONG_SECRET_KEY);
    env.put("AWS_SESSION_TOKEN", "");
    Handler h = handler(env);

    Throwable failure = h.archiveFailing();

    assertThat(((ArchiveFailedException) failure).errorType()).isEqualTo("InvalidCredentials");
    assertThat(failure)
        .hasMessageContaining("InvalidAccessKeyId 403")
        .hasMessageContaining("(1 attempt)")
        .hasMessageContaining("the role the function runs as")
        .hasMessageContaining("set CREDENTIALS_SECRET_ARN");
  }

  @Test
  @Order(7)
  void shouldNameTheSecretWhenItsSecretKeyIsWrong() throws Exception {
    // Given the right access key id with a wrong secret key: S3 answers SignatureDoesNotMatch
    String arn =
        secret(
            "{\"accessKey\":\""
                + S3ProxyServer.ACCESS_KEY
                + "\",\"secretKey\":\""
                + WRONG_SECRET_KEY
                + "\"}");
    Handler h = handler(Map.of("CREDENTIALS_SECRET_ARN", arn));

    Throwable failure = h.archiveFailing();

    assertThat(((ArchiveFailedException) failure).errorType()).isEqualTo("InvalidCredentials");
    assertThat(failure)
        .hasMessageContaining("SignatureDoesNotMatch 403")
        .hasMessageContaining("The keys come from CREDENTIALS_SECRET_ARN=" + arn)
        .hasMessageContaining("re-read once in this invocation");
  }

  @Test
  @Order(6)
  void shouldAssumeTheRoleWithTheExternalIdUsingTheSecretsKeysAsBase() throws Exception {
    // Given moto as S3 too (it accepts the session credentials its STS issues)
    try (var motoS3 = moto.s3()) {
      motoS3.createBucket(b -> b.bucket("role-archive"));
    }
    String arn =
        secret(
            "{\"accessKey\":\""
                + BASE_ACCESS_KEY
                + "\",\"secretKey\":\""
                + BASE_SECRET_KEY
                + "\"}");
    Map<String, String> env = new HashMap<>();
    env.put("CREDENTIALS_SECRET_ARN", arn);
    env.put("ROLE_ARN", ROLE_ARN);
    env.put("EXTERNAL_ID", EXTERNAL_ID);
    env.put("TITLE", "Creds IT / role chain");
    env.put("BUCKET_NAME", "role-archive");
    env.put("AWS_ENDPOINT_URL_S3", moto.endpoint().toString());
    Handler h = handler(env);

    // When a batch is archived
    h.archive();

    // Then AssumeRole reached STS with the external ID and the TITLE-based session name, signed
    // with the secret's keys
    var assumeRole = moto.queryCalls("AssumeRole");
    assertThat(assumeRole).hasSize(1);
    String body = java.net.URLDecoder.decode(assumeRole.get(0).body(), StandardCharsets.UTF_8);
    assertThat(body)
        .contains("RoleArn=" + ROLE_ARN)
        .contains("ExternalId=" + EXTERNAL_ID)
        .contains("RoleSessionName=Creds-IT---role-chain");
    assertThat(assumeRole.get(0).header("Authorization"))
        .contains("Credential=" + BASE_ACCESS_KEY + "/");

    // And the object was written with the assumed session's keys
    AwsCredentials session = h.credentials.provider().resolveCredentials();
    assertThat(session).isInstanceOf(AwsSessionCredentials.class);
    secretValues.put("assumed role secret key", session.secretAccessKey());
    secretValues.put(
        "assumed role session token", ((AwsSessionCredentials) session).sessionToken());
    var puts =
        moto.recorded().stream()
            .filter(r -> r.method().equals("PUT") && r.url().contains("/role-archive/"))
            .toList();
    assertThat(puts).isNotEmpty();
    assertThat(puts.get(0).header("Authorization"))
        .contains("Credential=" + session.accessKeyId() + "/");
    assertThat(puts.get(0).header("X-Amz-Security-Token"))
        .isEqualTo(((AwsSessionCredentials) session).sessionToken());
    try (var motoS3 = moto.s3()) {
      assertThat(motoS3.listObjectsV2(b -> b.bucket("role-archive")).contents()).isNotEmpty();
    }
  }

  // ---- preflight ----

  @Test
  @Order(10)
  void shouldPassEveryPreflightStepOnAHealthySetup() throws Exception {
    String arn = secret(rightKeys());
    Handler h =
        handler(
            Map.of(
                "CREDENTIALS_SECRET_ARN", arn,
                "INPUT_TOPIC", "vehicle-telemetry",
                "KEY_PREFIX", "healthy",
                "COMPRESSION", "gzip"));

    JsonNode report = h.preflight();

    assertThat(report.path("ok").asBoolean()).isTrue();
    assertThat(statuses(report))
        .containsExactly(
            "credentials=PASS",
            "bucket=PASS",
            "region=PASS",
            "objectLock=PASS",
            "probeWrite=PASS",
            "conditionalWrite=PASS",
            "probeDelete=PASS");
    assertThat(report.path("credentials").asText()).contains(arn);
    JsonNode layout = report.path("keyLayout");
    assertThat(layout.path("exampleKey").asText())
        .matches(
            "healthy/vehicle-telemetry/year=\\d{4}/month=\\d\\d/day=\\d\\d/hour=\\d\\d/[0-9a-f-]{36}\\.ndjson\\.gz");
    assertThat(layout.path("exampleErrorKey").asText())
        .startsWith("healthy/_errors/vehicle-telemetry/");
    assertThat(layout.path("probeKey").asText()).startsWith("healthy/_preflight/");
    // the probe was deleted again
    assertThat(keys("healthy/_preflight/")).isEmpty();
  }

  @Test
  @Order(11)
  void shouldFailPreflightAtTheCredentialsStepWhenTheSecretIsMissing() throws Exception {
    String arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:nope-XyZ123";
    JsonNode report = handler(Map.of("CREDENTIALS_SECRET_ARN", arn)).preflight();

    assertThat(report.path("ok").asBoolean()).isFalse();
    assertThat(statuses(report))
        .containsExactly(
            "credentials=FAIL",
            "bucket=SKIPPED",
            "region=SKIPPED",
            "objectLock=SKIPPED",
            "probeWrite=SKIPPED",
            "probeDelete=SKIPPED");
    assertThat(step(report, "credentials").path("advice").asText())
        .contains(arn)
        .contains("6-character suffix");
  }

  @Test
  @Order(12)
  void shouldFailPreflightAtTheBucketStepWhenTheBucketIsMissing() throws Exception {
    String arn = secret(rightKeys());
    JsonNode report =
        handler(Map.of("CREDENTIALS_SECRET_ARN", arn, "BUCKET_NAME", "missing-bucket-preflight"))
            .preflight();

    assertThat(statuses(report))
        .containsExactly(
            "credentials=PASS",
            "bucket=FAIL",
            "region=SKIPPED",
            "objectLock=SKIPPED",
            "probeWrite=SKIPPED",
            "probeDelete=SKIPPED");
    JsonNode bucket = step(report, "bucket");
    assertThat(bucket.path("errorType").asText()).isEqualTo("NoSuchBucket");
    assertThat(bucket.path("advice").asText()).contains("Check BUCKET_NAME");
  }

  @Test
  @Order(13)
  void shouldFailPreflightAtTheBucketStepWhenTheKeysAreWrong() throws Exception {
    String arn = secret(wrongKeys());
    JsonNode report = handler(Map.of("CREDENTIALS_SECRET_ARN", arn)).preflight();

    assertThat(statuses(report)).startsWith("credentials=PASS", "bucket=FAIL");
    JsonNode bucket = step(report, "bucket");
    assertThat(bucket.path("errorType").asText()).isEqualTo("InvalidCredentials");
    assertThat(bucket.path("advice").asText()).contains("CREDENTIALS_SECRET_ARN=" + arn);
    // it re-read the secret once, as archiving would after a rotation
    assertThat(getSecretValueCalls(arn)).isEqualTo(2);
  }

  @Test
  @Order(14)
  void shouldFailPreflightAtTheRegionStepWhenBucketRegionIsWrong() throws Exception {
    String arn = secret(rightKeys());
    JsonNode report =
        handler(Map.of("CREDENTIALS_SECRET_ARN", arn, "BUCKET_REGION", "ap-south-1")).preflight();

    assertThat(statuses(report))
        .containsExactly(
            "credentials=PASS",
            "bucket=PASS",
            "region=FAIL",
            "objectLock=SKIPPED",
            "probeWrite=SKIPPED",
            "probeDelete=SKIPPED");
    JsonNode region = step(report, "region");
    assertThat(region.path("detail").asText())
        .isEqualTo("bucket 'archive' is in us-east-1, function configured for ap-south-1");
    assertThat(region.path("advice").asText()).contains("BUCKET_REGION=us-east-1");
  }

  @Test
  @Order(15)
  void shouldFailPreflightAtTheCredentialsStepWhenStsIsUnreachable() throws Exception {
    // STS unreachable: the role step cannot resolve, named with its variable and endpoint advice
    String arn = secret(rightKeys());
    Map<String, String> env = new HashMap<>();
    env.put("CREDENTIALS_SECRET_ARN", arn);
    env.put("ROLE_ARN", ROLE_ARN);
    env.put("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:9");
    JsonNode report = handler(env).preflight();

    assertThat(statuses(report)).startsWith("credentials=FAIL");
    assertThat(step(report, "credentials").path("advice").asText())
        .contains("Could not reach STS to assume ROLE_ARN=" + ROLE_ARN)
        .contains("AWS_ENDPOINT_URL_STS");
  }

  // ---- no secret, anywhere ----

  @Test
  @Order(100)
  void shouldNeverPrintASecretValue() {
    // Given everything printed, logged (SDK and ours at DEBUG) and thrown by the cases above
    String everything = capture.all();
    assertThat(everything.length()).as("captured characters").isGreaterThan(10_000);
    assertThat(secretValues).hasSizeGreaterThanOrEqualTo(7); // the role case ran

    // Then no secret key or session token appears in it
    secretValues.forEach((label, value) -> OutputCapture.assertAbsent(everything, label, value));
    // Access key ids are not secret, but nothing here needs to print them either.
    OutputCapture.assertAbsent(everything, "wrong access key id", WRONG_ACCESS_KEY);
    OutputCapture.assertAbsent(everything, "role base access key id", BASE_ACCESS_KEY);

    // And the SDK's own SigV4 DEBUG lines (kept apart) show a session token only as the
    // x-amz-security-token header of the canonical request, and never a secret key
    String signer = capture.sdkSignerDebug();
    secretValues.forEach(
        (label, value) -> {
          if (!label.endsWith("session token")) {
            OutputCapture.assertAbsent(signer, label, value);
          }
        });
    String withoutTokenHeaders = signer.replaceAll("(?m)^x-amz-security-token:.*$", "");
    secretValues.forEach(
        (label, value) -> OutputCapture.assertAbsent(withoutTokenHeaders, label, value));
  }

  // ---- helpers ----

  private static String rightKeys() {
    return "{\"accessKey\":\""
        + S3ProxyServer.ACCESS_KEY
        + "\",\"secretKey\":\""
        + S3ProxyServer.SECRET_KEY
        + "\"}";
  }

  private static String wrongKeys() {
    return "{\"accessKeyId\":\""
        + WRONG_ACCESS_KEY
        + "\",\"secretAccessKey\":\""
        + WRONG_SECRET_KEY
        + "\"}";
  }

  private static String secret(String value) {
    return moto.createSecret("kafka-archiver/keys-" + SECRETS.incrementAndGet(), value);
  }

  private static long getSecretValueCalls(String arn) {
    return moto.recorded().stream()
        .filter(r -> "secretsmanager.GetSecretValue".equals(r.header("X-Amz-Target")))
        .filter(r -> r.body().contains(arn))
        .count();
  }

  private static List<String> keys(String prefix) {
    try (var client = s3.client()) {
      return client.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
          .map(S3Object::key)
          .toList();
    }
  }

  private static Handler handler(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", BUCKET);
    env.put("BUCKET_REGION", S3ProxyServer.REGION);
    env.put("TITLE", "Creds IT");
    env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.putAll(overrides);
    ArchiverConfig config = ArchiverConfig.fromEnv(env);
    CredentialsSource credentials = CredentialsSource.from(config, env::get);
    return new Handler(new ArchiverHandler(config, credentials, Clock.systemUTC()), credentials);
  }

  /** The real handler with its credentials source, invoked as Lambda would. */
  private record Handler(ArchiverHandler handler, CredentialsSource credentials) {
    String invoke(InputStream event) throws Exception {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try {
        handler.handleRequest(event, out, new LocalContext(60_000));
      } catch (Exception e) {
        capture.exception(e);
        throw e;
      }
      String response = out.toString(StandardCharsets.UTF_8);
      capture.text(response);
      return response;
    }

    void archive() throws Exception {
      try (InputStream in = Files.newInputStream(event())) {
        invoke(in);
      }
    }

    Throwable archiveFailing() {
      try (InputStream in = Files.newInputStream(event())) {
        invoke(in);
      } catch (Throwable t) {
        return t;
      }
      throw new AssertionError("the invocation was expected to fail");
    }

    JsonNode preflight() throws Exception {
      String response =
          invoke(
              new ByteArrayInputStream(
                  "{\"action\":\"preflight\"}".getBytes(StandardCharsets.UTF_8)));
      return JSON.readTree(response);
    }
  }

  static Path event() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("events/msk-event.json");
      if (Files.exists(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("events/msk-event.json not found");
  }
}
