package io.kafkas3archiver.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * The preflight check as a local command: the handler's own {@code {"action":"preflight"}} branch,
 * configured from the same environment variables as in Lambda.
 *
 * <p>It checks the real target unless asked otherwise: {@code AWS_ENDPOINT_URL_S3} if set, else
 * AWS's S3, with the credentials the function would use ({@code CREDENTIALS_SECRET_ARN}, {@code
 * ROLE_ARN} + {@code EXTERNAL_ID}, else yours from the SDK's default chain). Only {@code
 * --embedded} checks an embedded S3-compatible server (data in {@code .local-s3/}), which says
 * nothing about a real bucket. The report names the endpoint and the credentials it used. A failed
 * step ends the command with an error (Maven's exit code 1), after the report.
 */
public final class LocalPreflight {
  static final String EMBEDDED = "--embedded";

  private LocalPreflight() {}

  public static void main(String[] args) throws Exception {
    boolean ok;
    try {
      ok = run(args, new HashMap<>(System.getenv()), System.out);
    } catch (Exception e) {
      throw LocalRun.plain(e);
    }
    if (!ok) {
      throw new IllegalStateException(
          "preflight failed: see the FAIL steps and their advice above");
    }
  }

  /** Runs the preflight for {@code env} and prints the report; true when every step passed. */
  static boolean run(String[] args, Map<String, String> env, PrintStream out) throws Exception {
    for (String a : args) {
      if (!a.equals(EMBEDDED)) {
        throw new IllegalArgumentException(
            "unknown argument '"
                + a
                + "'; the only one is "
                + EMBEDDED
                + " (an embedded S3 server)");
      }
    }
    boolean embedded = Arrays.asList(args).contains(EMBEDDED);
    S3ProxyServer server = null;
    String endpoint;
    String credentials;
    if (embedded) {
      env.putIfAbsent("BUCKET_NAME", "local-archive");
      env.putIfAbsent("AWS_REGION", S3ProxyServer.REGION);
      env.putIfAbsent("TITLE", "local-preflight");
      Path data = Path.of(".local-s3");
      // A bad setting fails before S3Proxy's non-daemon threads exist (see LocalS3.open).
      ArchiverConfig.fromEnv(env);
      server = S3ProxyServer.onDisk(data);
      env.put("AWS_ENDPOINT_URL_S3", server.endpoint().toString());
      env.put("S3_FORCE_PATH_STYLE", "true");
      // The embedded server's keys stand in for the execution role's, as Lambda sets them.
      env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
      env.remove("AWS_SESSION_TOKEN");
      try {
        LocalS3.createBucketIfMissing(server, env.get("BUCKET_NAME"));
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
      endpoint =
          "embedded S3 server (S3Proxy, asked for with --embedded) at "
              + server.endpoint()
              + ", data in "
              + data.toAbsolutePath()
              + ": this says nothing about a real bucket";
      credentials = "the embedded server's test keys";
    } else {
      endpoint = describeEndpoint(env);
      credentials = describeCredentials(env);
    }
    try {
      ArchiverConfig config = ArchiverConfig.fromEnv(env);
      ArchiverHandler handler = new ArchiverHandler(config, env::get);
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      // The handler logs one JSON line to stdout; the report goes to stdout after it, pretty.
      handler.handleRequest(
          new ByteArrayInputStream("{\"action\":\"preflight\"}".getBytes(StandardCharsets.UTF_8)),
          answer,
          new LocalContext(60_000));
      ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      ObjectNode report = (ObjectNode) json.readTree(answer.toString(StandardCharsets.UTF_8));
      ObjectNode shown = json.createObjectNode();
      shown.put("target", endpoint);
      shown.put("credentialsFrom", credentials);
      shown.setAll(report);
      out.println(json.writeValueAsString(shown));
      return report.path("ok").asBoolean();
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  static String describeEndpoint(Map<String, String> env) {
    String url = env.get("AWS_ENDPOINT_URL_S3");
    if (notBlank(url)) {
      return "AWS_ENDPOINT_URL_S3=" + url;
    }
    String region =
        notBlank(env.get("BUCKET_REGION"))
            ? env.get("BUCKET_REGION") + " (BUCKET_REGION)"
            : notBlank(env.get("AWS_REGION"))
                ? env.get("AWS_REGION") + " (AWS_REGION)"
                : "the SDK's default region";
    return "AWS S3 in " + region;
  }

  /** Where the keys come from, by name only: never a key or a secret. */
  static String describeCredentials(Map<String, String> env) {
    String base;
    if (notBlank(env.get("AWS_ACCESS_KEY_ID"))) {
      base = "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY from the environment";
    } else {
      String profile = notBlank(env.get("AWS_PROFILE")) ? env.get("AWS_PROFILE") : "default";
      try (DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build()) {
        base =
            "the SDK's default chain: "
                + chain.resolveCredentials().providerName().orElse("a provider")
                + " (profile '"
                + profile
                + "' if from ~/.aws)";
      } catch (RuntimeException e) {
        base =
            "the SDK's default chain, which found none (environment, ~/.aws profile '"
                + profile
                + "', container, instance); to try the command without AWS, run it with "
                + EMBEDDED;
      }
    }
    String out = base;
    if (notBlank(env.get("CREDENTIALS_SECRET_ARN"))) {
      out = "keys from the secret " + env.get("CREDENTIALS_SECRET_ARN") + ", read with " + out;
    }
    if (notBlank(env.get("ROLE_ARN"))) {
      out = "role " + env.get("ROLE_ARN") + ", assumed with " + out;
    }
    return out;
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }
}
