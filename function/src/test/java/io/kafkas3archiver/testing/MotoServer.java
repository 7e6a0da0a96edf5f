package io.kafkas3archiver.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * moto's server (PyPI {@code moto[server]}, installed into {@code .venv/} by {@code
 * .ci/setup-tools}) on 127.0.0.1 and a free port: a real HTTP Secrets Manager, STS and S3 emulator.
 * Its request recorder is on, so tests can see what reached the server (e.g. the ExternalId of an
 * AssumeRole, or how many GetSecretValue calls were made).
 */
public final class MotoServer implements AutoCloseable {
  public static final String REGION = "us-east-1";
  public static final String ACCOUNT = "123456789012";

  /** moto accepts any keys; these stand in for the Lambda execution role's. */
  public static final Map<String, String> EXECUTION_ROLE_ENV =
      Map.of(
          "AWS_ACCESS_KEY_ID", "ASIAEXECUTIONROLE001",
          "AWS_SECRET_ACCESS_KEY", "execution-role-secret-for-tests-only",
          "AWS_SESSION_TOKEN", "execution-role-session-token-for-tests-only");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final int port;
  private final Path recording;

  private MotoServer(Process process, int port, Path recording) {
    this.process = process;
    this.port = port;
    this.recording = recording;
  }

  /** Starts moto, waits until it answers, and turns the recorder on. */
  public static MotoServer start() {
    Path binary = binary();
    try {
      int port = freePort();
      Path dir = Files.createTempDirectory("moto");
      Path recording = dir.resolve("recording.jsonl");
      ProcessBuilder pb =
          new ProcessBuilder(binary.toString(), "-H", "127.0.0.1", "-p", Integer.toString(port))
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("moto.log").toFile());
      pb.environment().put("MOTO_RECORDER_FILEPATH", recording.toString());
      Process process = pb.start();
      MotoServer server = new MotoServer(process, port, recording);
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "moto_server exited: " + Files.readString(dir.resolve("moto.log")));
        }
        try {
          if (server.request("GET", "/moto-api/", null) == 200) {
            break;
          }
        } catch (IOException notYet) {
          // still starting
        }
        if (System.nanoTime() > until) {
          server.close();
          throw new IllegalStateException("moto_server did not answer within 60 s");
        }
        Thread.sleep(100);
      }
      server.request("POST", "/moto-api/recorder/start-recording", "");
      return server;
    } catch (IOException e) {
      throw new IllegalStateException("could not start moto_server", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code .venv/bin/moto_server} of the checkout, found from the working directory upwards. */
  static Path binary() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(".venv/bin/moto_server");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "moto_server not found in .venv/bin: run .ci/setup-tools once (it installs moto[server])");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Environment the function would see: execution role keys and emulator endpoints. */
  public Map<String, String> functionEnv() {
    var env = new java.util.HashMap<>(EXECUTION_ROLE_ENV);
    env.put("AWS_REGION", REGION);
    env.put("AWS_ENDPOINT_URL_SECRETS_MANAGER", endpoint().toString());
    env.put("AWS_ENDPOINT_URL_STS", endpoint().toString());
    return env;
  }

  public SecretsManagerClient secretsManager() {
    return client(SecretsManagerClient.builder());
  }

  public S3Client s3() {
    return client(S3Client.builder().forcePathStyle(true));
  }

  /** A Glue client on moto, for registries, schemas and databases. */
  public GlueClient glue() {
    return client(GlueClient.builder());
  }

  /** A client of moto with its admin keys (moto accepts any). */
  private <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C client(B builder) {
    return builder
        .endpointOverride(endpoint())
        .region(Region.of(REGION))
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("admin", "admin")))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  /** Creates a secret and returns its ARN. */
  public String createSecret(String name, String value) {
    try (var sm = secretsManager()) {
      return sm.createSecret(r -> r.name(name).secretString(value)).arn();
    }
  }

  public void putSecretValue(String arn, String value) {
    try (var sm = secretsManager()) {
      sm.putSecretValue(r -> r.secretId(arn).secretString(value));
    }
  }

  /** A request moto received: method, path, headers and the decoded body. */
  public record Recorded(String method, String url, Map<String, String> headers, String body) {
    public String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(Map.Entry::getValue)
          .findFirst()
          .orElse(null);
    }
  }

  /** Every request received since the recorder started (or was last cleared). */
  public List<Recorded> recorded() {
    List<Recorded> out = new ArrayList<>();
    try {
      if (!Files.exists(recording)) {
        return out;
      }
      for (String line : Files.readAllLines(recording)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = JSON.readTree(line);
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        n.path("headers")
            .fields()
            .forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        String body = n.path("body").isNull() ? "" : n.path("body").asText("");
        if (n.path("body_encoded").asBoolean(false)) {
          body = new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8);
        }
        out.add(new Recorded(n.path("method").asText(), n.path("url").asText(), headers, body));
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not read moto's recording", e);
    }
    return out;
  }

  /**
   * The recorded JSON-protocol calls with this X-Amz-Target, e.g. secretsmanager.GetSecretValue.
   */
  public long count(String amzTarget) {
    return recorded().stream().filter(r -> amzTarget.equals(r.header("X-Amz-Target"))).count();
  }

  /** The recorded query-protocol calls (STS) of this Action, e.g. AssumeRole. */
  public List<Recorded> queryCalls(String action) {
    return recorded().stream().filter(r -> r.body().contains("Action=" + action + "&")).toList();
  }

  public void clearRecording() {
    try {
      request("POST", "/moto-api/recorder/clear-recording", "");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private int request(String method, String path, String body) throws IOException {
    HttpURLConnection c = (HttpURLConnection) endpoint().resolve(path).toURL().openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout(1000);
    c.setReadTimeout(5000);
    if (body != null) {
      c.setDoOutput(true);
      c.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }
    int code = c.getResponseCode();
    (code < 400 ? c.getInputStream() : c.getErrorStream()).readAllBytes();
    c.disconnect();
    return code;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
