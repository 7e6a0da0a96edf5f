package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * EXPECTED_BUCKET_OWNER on every S3 call, seen at the HTTP level by a real server: moto's S3, whose
 * request recorder keeps each request's headers. The handler archives a batch and runs the
 * preflight (ListObjectsV2, HeadBucket, GetBucketLocation, GetObjectLockConfiguration, PutObject,
 * DeleteObject), and every request that reached the bucket must carry the header.
 *
 * <p>moto 5.2.5 does not enforce the header (it accepts a wrong owner), so S3's 403 on a mismatch
 * cannot be shown here; what is shown is that S3 is always asked to check.
 */
class ExpectedBucketOwnerIT {
  private static final String BUCKET = "owned-archive";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static MotoServer moto;

  @BeforeAll
  static void startMoto() {
    moto = MotoServer.start();
    try (var s3 = moto.s3()) {
      s3.createBucket(b -> b.bucket(BUCKET));
    }
  }

  @AfterAll
  static void stopMoto() {
    if (moto != null) {
      moto.close();
    }
  }

  @Test
  void shouldSendTheExpectedOwnerOnEveryS3Call() throws Exception {
    // Given a handler with EXPECTED_BUCKET_OWNER set
    ArchiverHandler handler = handler(MotoServer.ACCOUNT);
    int before = moto.recorded().size();

    // When it archives a batch and runs the preflight check
    archive(handler);
    JsonNode report = preflight(handler);

    // Then every step passed, and every request to the bucket carried the owner
    assertThat(report.path("ok").asBoolean()).as("preflight %s", report).isTrue();
    List<MotoServer.Recorded> calls = bucketCalls(before);
    assertThat(operations(calls))
        .contains(
            "PUT object",
            "GET bucket?list-type",
            "HEAD bucket",
            "GET bucket?object-lock",
            "DELETE object");
    assertThat(calls)
        .allSatisfy(
            r ->
                assertThat(r.header(ExpectedBucketOwner.HEADER))
                    .as("%s %s", r.method(), r.url())
                    .isEqualTo(MotoServer.ACCOUNT));
    // And the header is signed, so nothing on the way can strip or change it unnoticed
    assertThat(calls)
        .allSatisfy(
            r -> assertThat(r.header("Authorization")).contains(ExpectedBucketOwner.HEADER));
  }

  @Test
  void shouldSendNoOwnerHeaderWhenUnset() throws Exception {
    ArchiverHandler handler = handler(null);
    int before = moto.recorded().size();

    archive(handler);

    List<MotoServer.Recorded> calls = bucketCalls(before);
    assertThat(calls).isNotEmpty();
    assertThat(calls).allSatisfy(r -> assertThat(r.header(ExpectedBucketOwner.HEADER)).isNull());
  }

  private static ArchiverHandler handler(String owner) {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", BUCKET);
    env.put("BUCKET_REGION", MotoServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", moto.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    if (owner != null) {
      env.put("EXPECTED_BUCKET_OWNER", owner);
    }
    return new ArchiverHandler(ArchiverConfig.fromEnv(env), env::get);
  }

  private static void archive(ArchiverHandler handler) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = Files.newInputStream(CredentialsIT.event())) {
      handler.handleRequest(in, out, new LocalContext(60_000));
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("{\"batchItemFailures\":[]}");
  }

  private static JsonNode preflight(ArchiverHandler handler) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream("{\"action\":\"preflight\"}".getBytes(StandardCharsets.UTF_8)),
        out,
        new LocalContext(60_000));
    return JSON.readTree(out.toString(StandardCharsets.UTF_8));
  }

  /** The function's calls to the bucket since {@code from} (moto's recorder only appends). */
  private static List<MotoServer.Recorded> bucketCalls(int from) {
    List<MotoServer.Recorded> all = moto.recorded();
    // The test's own setup client signs as "admin"; only the function's calls count.
    return all.subList(from, all.size()).stream()
        .filter(r -> r.url().contains("/" + BUCKET))
        .filter(r -> !String.valueOf(r.header("Authorization")).contains("Credential=admin/"))
        .toList();
  }

  /** "PUT object", "GET bucket?list-type", ...: what kinds of calls reached the bucket. */
  private static TreeSet<String> operations(List<MotoServer.Recorded> calls) {
    TreeSet<String> ops = new TreeSet<>();
    for (MotoServer.Recorded r : calls) {
      String path = r.url().replaceFirst("^https?://[^/]+", "");
      String query = path.contains("?") ? path.substring(path.indexOf('?') + 1) : "";
      String resource =
          path.replaceFirst("\\?.*", "").matches("/" + BUCKET + "/?") ? "bucket" : "object";
      String first = query.isEmpty() ? "" : "?" + query.split("[=&]")[0];
      ops.add(r.method() + " " + resource + first);
    }
    return ops;
  }
}
