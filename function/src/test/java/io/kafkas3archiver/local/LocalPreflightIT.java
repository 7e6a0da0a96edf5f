package io.kafkas3archiver.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.testing.MotoServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * README's preflight command against the embedded S3 server (only with --embedded) and against a
 * moto S3 named by AWS_ENDPOINT_URL_S3; each report names the endpoint and the credentials.
 */
class LocalPreflightIT {
  private static MotoServer moto;

  @BeforeAll
  static void start() {
    moto = MotoServer.start();
    moto.s3().createBucket(b -> b.bucket("moto-preflight"));
  }

  @AfterAll
  static void stop() {
    moto.close();
  }

  record Outcome(boolean ok, JsonNode report) {}

  static Outcome run(String[] args, Map<String, String> env) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean ok;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      ok = LocalPreflight.run(args, new HashMap<>(env), out);
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(text);
    return new Outcome(ok, new ObjectMapper().readTree(text));
  }

  @Test
  void shouldSayItCheckedTheEmbeddedServerOnlyWhenAskedTo() throws Exception {
    Outcome o = run(new String[] {"--embedded"}, Map.of("BUCKET_NAME", "local-archive"));

    assertThat(o.ok()).isTrue();
    assertThat(o.report().path("target").asText())
        .startsWith("embedded S3 server (S3Proxy, asked for with --embedded) at http://127.0.0.1:")
        .endsWith("this says nothing about a real bucket");
    assertThat(o.report().path("credentialsFrom").asText())
        .isEqualTo("the embedded server's test keys");
  }

  @Test
  void shouldCheckTheNamedEndpointWithTheFunctionsCredentialsAndSaySo() throws Exception {
    Map<String, String> env = motoEnv("moto-preflight");

    Outcome o = run(new String[0], env);

    assertThat(o.ok()).isTrue();
    assertThat(o.report().path("target").asText())
        .isEqualTo("AWS_ENDPOINT_URL_S3=" + moto.endpoint());
    assertThat(o.report().path("credentialsFrom").asText())
        .isEqualTo("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY from the environment");
    assertThat(o.report().toString())
        .doesNotContain(MotoServer.EXECUTION_ROLE_ENV.get("AWS_SECRET_ACCESS_KEY"));
  }

  @Test
  void shouldFailOnAMissingBucketAndNeverCreateIt() throws Exception {
    Outcome o = run(new String[0], motoEnv("no-such-bucket"));

    assertThat(o.ok()).isFalse();
    assertThat(o.report().path("target").asText()).contains(moto.endpoint().toString());
    assertThat(moto.s3().listBuckets().buckets()).noneMatch(b -> b.name().equals("no-such-bucket"));
  }

  private static Map<String, String> motoEnv(String bucket) {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", bucket);
    env.put("BUCKET_REGION", MotoServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", moto.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    return env;
  }
}
