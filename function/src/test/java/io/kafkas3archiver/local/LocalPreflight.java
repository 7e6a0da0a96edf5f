package io.kafkas3archiver.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The preflight check as a local command: the handler's own {@code {"action":"preflight"}} branch,
 * configured from the same environment variables as in Lambda.
 *
 * <p>Without {@code AWS_ENDPOINT_URL_S3} and without AWS credentials in the environment it checks
 * an embedded S3-compatible server (data in {@code .local-s3/}), so it runs with no account. With
 * {@code AWS_ENDPOINT_URL_S3}, or with {@code AWS_ACCESS_KEY_ID} / {@code AWS_PROFILE} set, it
 * checks the real target with the credentials the function would use ({@code
 * CREDENTIALS_SECRET_ARN}, {@code ROLE_ARN} + {@code EXTERNAL_ID}, else yours). A failed step ends
 * the command with an error (Maven's exit code 1), after the report.
 */
public final class LocalPreflight {
  private LocalPreflight() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    boolean real =
        notBlank(env.get("AWS_ENDPOINT_URL_S3"))
            || notBlank(env.get("AWS_ACCESS_KEY_ID"))
            || notBlank(env.get("AWS_PROFILE"));
    S3ProxyServer embedded = null;
    if (!real) {
      env.putIfAbsent("BUCKET_NAME", "local-archive");
      env.putIfAbsent("AWS_REGION", S3ProxyServer.REGION);
      env.putIfAbsent("TITLE", "local-preflight");
      Path data = Path.of(".local-s3");
      // A bad setting fails before S3Proxy's non-daemon threads exist (see LocalS3.open).
      ArchiverConfig.fromEnv(env);
      embedded = S3ProxyServer.onDisk(data);
      env.put("AWS_ENDPOINT_URL_S3", embedded.endpoint().toString());
      env.put("S3_FORCE_PATH_STYLE", "true");
      // The embedded server's keys stand in for the execution role's, as Lambda sets them.
      env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
      try {
        LocalS3.createBucketIfMissing(embedded, env.get("BUCKET_NAME"));
      } catch (RuntimeException e) {
        embedded.close();
        throw e;
      }
      System.err.println(
          "embedded S3 server at " + embedded.endpoint() + ", data in " + data.toAbsolutePath());
    }
    boolean ok;
    try {
      ArchiverConfig config = ArchiverConfig.fromEnv(env);
      ArchiverHandler handler = new ArchiverHandler(config, env::get);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      // The handler logs one JSON line to stdout; the report goes to stdout after it, pretty.
      handler.handleRequest(
          new ByteArrayInputStream("{\"action\":\"preflight\"}".getBytes(StandardCharsets.UTF_8)),
          out,
          new LocalContext(60_000));
      ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      var report = json.readTree(out.toString(StandardCharsets.UTF_8));
      System.out.println(json.writeValueAsString(report));
      ok = report.path("ok").asBoolean();
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
    if (!ok) {
      throw new IllegalStateException(
          "preflight failed: see the FAIL steps and their advice above");
    }
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }
}
