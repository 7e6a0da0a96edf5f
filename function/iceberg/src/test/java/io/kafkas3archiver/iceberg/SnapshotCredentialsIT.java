package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import io.kafkas3archiver.testing.OutputCapture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * No credential is fetched before the SnapStart snapshot (DESIGN §6), for every credential source
 * at once: the S3 keys in Secrets Manager, the assumed role, the Confluent registry's secret, the
 * execution role (from the container credentials endpoint, as SnapStart provides it), the Glue
 * registry's calls, and the Iceberg catalogs (REST signed with SigV4, and Glue).
 *
 * <p>One handler per configuration is built through the Lambda wiring and primed exactly as {@code
 * beforeCheckpoint} would. Everything a credential could come from answers on 127.0.0.1 and records
 * what it is asked: moto (Secrets Manager, STS, Glue, S3) and one small server for the container
 * credentials, the Confluent registry and the REST catalog; the environment seam records every
 * credential variable read. The test does not ask each source whether it fetched: it requires that
 * nothing at all left the JVM and no credential variable was read between the first constructor and
 * the end of priming. Then each handler gets one batch, and each source must show its fetch: proof
 * that the recorders see what they are meant to.
 */
class SnapshotCredentialsIT {
  private static final Set<String> CREDENTIAL_VARIABLES =
      Set.of(
          "AWS_ACCESS_KEY_ID",
          "AWS_SECRET_ACCESS_KEY",
          "AWS_SESSION_TOKEN",
          "AWS_CONTAINER_CREDENTIALS_FULL_URI",
          "AWS_CONTAINER_AUTHORIZATION_TOKEN");
  private static final String BUCKET = "snapshot-credentials";
  private static final String REGISTRY_USER = "archiver";
  private static final String REGISTRY_PASSWORD = "registry-pw-for-tests-only";
  private static final String AVRO =
      "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

  private static MotoServer moto;
  private static HttpServer local;
  private static final List<String> localRequests = new CopyOnWriteArrayList<>();
  private static String s3Secret;
  private static String registrySecret;
  private static String glueRegistry;
  private static String glueSchemaVersion;
  private static final Map<String, String> savedProperties = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws IOException {
    moto = MotoServer.start();
    try (var s3 = moto.s3()) {
      s3.createBucket(b -> b.bucket(BUCKET));
    }
    s3Secret =
        moto.createSecret(
            "snapshot/s3-keys",
            "{\"accessKey\":\"AKIDFROMSECRET000001\",\"secretKey\":\"secret-from-secrets-manager\"}");
    registrySecret =
        moto.createSecret(
            "snapshot/registry",
            "{\"username\":\"" + REGISTRY_USER + "\",\"password\":\"" + REGISTRY_PASSWORD + "\"}");
    try (GlueClient glue = moto.glue()) {
      glueRegistry = glue.createRegistry(r -> r.registryName("orders")).registryArn();
      glueSchemaVersion =
          glue.createSchema(
                  r ->
                      r.registryId(id -> id.registryName("orders"))
                          .schemaName("orders-value")
                          .dataFormat("AVRO")
                          .compatibility("NONE")
                          .schemaDefinition(AVRO))
              .schemaVersionId();
      glue.createDatabase(d -> d.databaseInput(i -> i.name("kafka")));
    }
    local = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    local.createContext("/", SnapshotCredentialsIT::answer);
    local.start();
    // The execution role as SnapStart hands it over: a container credentials endpoint, not
    // environment keys. The SDK's default chain reads these two properties; no profile file.
    setProperty("aws.containerCredentialsFullUri", localUrl() + "/creds");
    setProperty("aws.containerAuthorizationToken", "container-token-for-tests-only");
    setProperty("aws.sharedCredentialsFile", "/nonexistent/snapshot-credentials-it");
    setProperty("aws.configFile", "/nonexistent/snapshot-credentials-it");
  }

  @AfterAll
  static void stop() {
    savedProperties.forEach(
        (k, v) -> {
          if (v == null) {
            System.clearProperty(k);
          } else {
            System.setProperty(k, v);
          }
        });
    if (local != null) {
      local.stop(0);
    }
    if (moto != null) {
      moto.close();
    }
  }

  private static void setProperty(String name, String value) {
    savedProperties.put(name, System.getProperty(name));
    System.setProperty(name, value);
  }

  private static String localUrl() {
    return "http://127.0.0.1:" + local.getAddress().getPort();
  }

  /** Container credentials, a Confluent registry that wants basic auth, a REST catalog. */
  private static void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      // The scheme only (Basic, AWS4-HMAC-SHA256), or "token" for the container endpoint's.
      localRequests.add(
          path + " " + (auth == null ? "-" : auth.contains(" ") ? auth.split(" ")[0] : "token"));
      int status;
      String body;
      if (path.equals("/creds")) {
        status = 200;
        body =
            "{\"AccessKeyId\":\"ASIACONTAINERROLE001\",\"SecretAccessKey\":\"container-secret\","
                + "\"Token\":\"container-session\",\"Expiration\":\"2099-01-01T00:00:00Z\"}";
      } else if (path.startsWith("/schemas/ids/")) {
        String expected =
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(
                        (REGISTRY_USER + ":" + REGISTRY_PASSWORD).getBytes(StandardCharsets.UTF_8));
        status = expected.equals(auth) ? 200 : 401;
        body = status == 200 ? "{\"schema\":" + quoted(AVRO) + "}" : "{\"error_code\":401}";
      } else if (path.endsWith("/v1/config")) {
        status = 200;
        body = "{\"defaults\":{},\"overrides\":{}}";
      } else {
        // Refused without a retry (a 5xx would be retried with backoff): the batch fails fast.
        status = 403;
        body = "{\"error\":{\"message\":\"denied\",\"type\":\"ForbiddenException\",\"code\":403}}";
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** The environment seam, recording every credential variable read. */
  private record RecordingEnv(Map<String, String> values, List<String> credentialReads)
      implements Function<String, String> {
    @Override
    public String apply(String name) {
      if (CREDENTIAL_VARIABLES.contains(name)) {
        credentialReads.add(name);
      }
      return values.get(name);
    }
  }

  /** One configuration: its name, its variables, and the schema id its batch carries. */
  private record Source(String name, Map<String, String> env, String schemaId) {}

  private static List<Source> sources() {
    Map<String, String> base = new LinkedHashMap<>();
    base.put("BUCKET_NAME", BUCKET);
    base.put("AWS_REGION", MotoServer.REGION);
    base.put("AWS_ENDPOINT_URL_S3", moto.endpoint().toString());
    base.put("S3_FORCE_PATH_STYLE", "true");
    base.put("AWS_ENDPOINT_URL_SECRETS_MANAGER", moto.endpoint().toString());
    base.put("AWS_ENDPOINT_URL_STS", moto.endpoint().toString());
    base.put("AWS_ENDPOINT_URL_GLUE", moto.endpoint().toString());

    Map<String, String> keysRoleConfluent = new LinkedHashMap<>(base);
    keysRoleConfluent.put("OUTPUT_FORMAT", "parquet");
    keysRoleConfluent.put("CREDENTIALS_SECRET_ARN", s3Secret);
    keysRoleConfluent.put("ROLE_ARN", "arn:aws:iam::" + MotoServer.ACCOUNT + ":role/archiver");
    keysRoleConfluent.put("EXTERNAL_ID", "snapshot-external-id");
    keysRoleConfluent.put("SCHEMA_REGISTRY_URI", localUrl());
    keysRoleConfluent.put("SCHEMA_REGISTRY_SECRET_ARN", registrySecret);

    // No keys in the environment: the execution role comes from the container endpoint.
    Map<String, String> containerRoleGlue = new LinkedHashMap<>(base);
    containerRoleGlue.put("OUTPUT_FORMAT", "parquet");
    containerRoleGlue.put("SCHEMA_REGISTRY_URI", glueRegistry);

    Map<String, String> restCatalog = new LinkedHashMap<>(base);
    restCatalog.putAll(MotoServer.EXECUTION_ROLE_ENV);
    restCatalog.put("OUTPUT_FORMAT", "iceberg");
    restCatalog.put("CREDENTIALS_SECRET_ARN", s3Secret);
    restCatalog.put("ICEBERG_CATALOG", "rest");
    restCatalog.put("ICEBERG_REST_URI", localUrl() + "/catalog");
    restCatalog.put("ICEBERG_WAREHOUSE", "arn:aws:s3tables:us-east-1:123456789012:bucket/b");
    restCatalog.put("ICEBERG_SIGNING_NAME", "s3tables");
    restCatalog.put("ICEBERG_DATABASE", "kafka");

    Map<String, String> glueCatalog = new LinkedHashMap<>(base);
    glueCatalog.putAll(MotoServer.EXECUTION_ROLE_ENV);
    glueCatalog.put("OUTPUT_FORMAT", "iceberg");
    glueCatalog.put("ROLE_ARN", "arn:aws:iam::" + MotoServer.ACCOUNT + ":role/tables");
    glueCatalog.put("ICEBERG_CATALOG", "glue");
    glueCatalog.put("ICEBERG_DATABASE", "kafka");

    return List.of(
        new Source("S3 keys + assumed role + Confluent secret", keysRoleConfluent, "1"),
        new Source(
            "container execution role + Glue registry", containerRoleGlue, glueSchemaVersion),
        new Source("secret keys + REST catalog signed for s3tables", restCatalog, null),
        new Source("assumed role + Glue catalog", glueCatalog, null));
  }

  @Test
  void shouldFetchNoCredentialOfAnySourceBeforeTheSnapshotAndEachOnFirstUse() throws Exception {
    try (OutputCapture capture = OutputCapture.start()) {
      fetchNothingBeforeTheSnapshot();
      // And no secret of any source was printed, logged or thrown on the way
      String everything = capture.all();
      assertThat(everything).contains("\"batch archived\"", "after the first batches");
      Map<String, String> secrets = new LinkedHashMap<>();
      secrets.put("the S3 secret key", "secret-from-secrets-manager");
      secrets.put("the registry password", REGISTRY_PASSWORD);
      secrets.put(
          "the registry's basic auth",
          Base64.getEncoder()
              .encodeToString(
                  (REGISTRY_USER + ":" + REGISTRY_PASSWORD).getBytes(StandardCharsets.UTF_8)));
      secrets.put("the container role's secret key", "container-secret");
      secrets.put("the container role's session token", "container-session");
      secrets.put("the container endpoint's token", "container-token-for-tests-only");
      MotoServer.EXECUTION_ROLE_ENV.forEach(
          (k, v) -> {
            if (!k.equals("AWS_ACCESS_KEY_ID")) {
              secrets.put(k, v);
            }
          });
      secrets.forEach((label, value) -> OutputCapture.assertAbsent(everything, label, value));
    }
  }

  private void fetchNothingBeforeTheSnapshot() throws Exception {
    // Given every credential source, each in a handler built as Lambda builds it at init
    int setupRequests = moto.recorded().size(); // the test's own: bucket, secrets, registry
    localRequests.clear();
    List<String> credentialReads = new CopyOnWriteArrayList<>();
    List<Source> sources = sources();
    List<ArchiverHandler> handlers = new ArrayList<>();
    for (Source s : sources) {
      RecordingEnv env = new RecordingEnv(s.env(), credentialReads);
      handlers.add(new ArchiverHandler(ArchiverConfig.fromEnv(s.env()), env));
    }

    // When SnapStart primes each before its snapshot
    handlers.forEach(ArchiverHandler::prime);

    // Then nothing left the JVM and no credential was read: nothing of one can be in a snapshot
    List<String> before = new ArrayList<>();
    var recorded = moto.recorded();
    recorded
        .subList(setupRequests, recorded.size())
        .forEach(r -> before.add("moto " + r.method() + " " + target(r)));
    localRequests.forEach(r -> before.add("local " + r));
    credentialReads.forEach(v -> before.add("env " + v));
    System.out.println("SnapshotCredentialsIT: before the snapshot " + before);
    assertThat(before).as("requests and credential reads during init and priming").isEmpty();

    // When each handler gets its first batch (after the restore)
    for (int i = 0; i < sources.size(); i++) {
      long started = System.nanoTime();
      try {
        handlers
            .get(i)
            .handleRequest(
                new ByteArrayInputStream(event(sources.get(i).schemaId())),
                new ByteArrayOutputStream(),
                new LocalContext(30_000));
      } catch (RuntimeException | IOException failedAfterItsFetch) {
        // The REST stand-in has no tables: that batch fails after its credentials were fetched.
        System.out.println(
            "SnapshotCredentialsIT: " + sources.get(i).name() + ": " + failedAfterItsFetch);
      }
      System.out.printf(
          "SnapshotCredentialsIT: first batch of %s: %d ms%n",
          sources.get(i).name(), (System.nanoTime() - started) / 1_000_000);
    }

    // Then each source fetched its credentials there, on first use
    Map<String, Long> after = new LinkedHashMap<>();
    after.put("GetSecretValue of the S3 keys", secretReads(s3Secret));
    after.put("GetSecretValue of the registry secret", secretReads(registrySecret));
    after.put("AssumeRole", (long) moto.queryCalls("AssumeRole").size());
    after.put("Glue GetSchemaVersion", moto.count("AWSGlue.GetSchemaVersion"));
    after.put(
        "Glue catalog calls",
        moto.recorded().stream()
            .filter(r -> String.valueOf(r.header("X-Amz-Target")).startsWith("AWSGlue.Get"))
            .filter(r -> !"AWSGlue.GetSchemaVersion".equals(r.header("X-Amz-Target")))
            .count());
    after.put(
        "container credentials",
        localRequests.stream().filter(r -> r.startsWith("/creds")).count());
    after.put(
        "registry calls with basic auth",
        localRequests.stream()
            .filter(r -> r.startsWith("/schemas/ids/") && r.endsWith("Basic"))
            .count());
    after.put(
        "REST catalog calls signed",
        localRequests.stream()
            .filter(r -> r.startsWith("/catalog/") && r.endsWith("AWS4-HMAC-SHA256"))
            .count());
    System.out.println("SnapshotCredentialsIT: after the first batches " + after);
    assertThat(after).allSatisfy((what, n) -> assertThat(n).as(what).isPositive());
  }

  private static long secretReads(String arn) {
    return moto.recorded().stream()
        .filter(r -> "secretsmanager.GetSecretValue".equals(r.header("X-Amz-Target")))
        .filter(r -> r.body().contains(arn))
        .count();
  }

  private static String target(MotoServer.Recorded r) {
    String t = r.header("X-Amz-Target");
    return t != null ? t : r.url();
  }

  /** One record; with registry metadata when the configuration has a registry. */
  private static byte[] event(String schemaId) {
    String value =
        Base64.getEncoder().encodeToString("{\"id\":7}".getBytes(StandardCharsets.UTF_8));
    String metadata =
        schemaId == null
            ? ""
            : ",\"valueSchemaMetadata\":{\"dataFormat\":\"AVRO\",\"schemaId\":\""
                + schemaId
                + "\"}";
    return ("{\"eventSource\":\"aws:kafka\",\"records\":{\"orders-0\":[{\"topic\":\"orders\","
            + "\"partition\":0,\"offset\":7,\"timestamp\":1783955045000,"
            + "\"timestampType\":\"CREATE_TIME\",\"value\":\""
            + value
            + "\",\"headers\":[]"
            + metadata
            + "}]}}")
        .getBytes(StandardCharsets.UTF_8);
  }
}
