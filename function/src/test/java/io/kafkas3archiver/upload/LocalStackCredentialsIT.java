package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.containers.localstack.LocalStackContainer.Service;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * The secret → assumed role → S3 chain against LocalStack, where a Docker engine exists. Without
 * one it is skipped with the reason; {@link CredentialsIT} covers the same ground on moto and
 * S3Proxy, which always run.
 */
class LocalStackCredentialsIT {
  private static LocalStackContainer localstack;

  /** Checked per test (not in @BeforeAll) so the skip and its reason show in the report. */
  @BeforeEach
  void start() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      String reason =
          "no Docker engine here: the LocalStack variant is skipped (CredentialsIT runs the same"
              + " cases against moto and S3Proxy)";
      System.err.println("LocalStackCredentialsIT: " + reason);
      Assumptions.abort(reason);
    }
    if (localstack != null) {
      return;
    }
    localstack =
        new LocalStackContainer(DockerImageName.parse("localstack/localstack:4"))
            .withServices(Service.S3, Service.SECRETSMANAGER, Service.STS);
    localstack.start();
  }

  @AfterAll
  static void stop() {
    if (localstack != null) {
      localstack.stop();
    }
  }

  @Test
  void shouldArchiveAndPassPreflightThroughSecretAndAssumedRole() throws Exception {
    var creds =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(localstack.getAccessKey(), localstack.getSecretKey()));
    Region region = Region.of(localstack.getRegion());
    String arn;
    try (var sm =
            SecretsManagerClient.builder()
                .endpointOverride(localstack.getEndpoint())
                .region(region)
                .credentialsProvider(creds)
                .build();
        var s3 =
            S3Client.builder()
                .endpointOverride(localstack.getEndpoint())
                .region(region)
                .forcePathStyle(true)
                .credentialsProvider(creds)
                .build()) {
      s3.createBucket(b -> b.bucket("ls-archive"));
      arn =
          sm.createSecret(
                  r ->
                      r.name("archiver-keys")
                          .secretString(
                              "{\"accessKey\":\""
                                  + localstack.getAccessKey()
                                  + "\",\"secretKey\":\""
                                  + localstack.getSecretKey()
                                  + "\"}"))
              .arn();
    }
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "ls-archive");
    env.put("AWS_REGION", localstack.getRegion());
    env.put("AWS_ENDPOINT_URL", localstack.getEndpoint().toString());
    env.put("AWS_ENDPOINT_URL_S3", localstack.getEndpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("AWS_ACCESS_KEY_ID", localstack.getAccessKey());
    env.put("AWS_SECRET_ACCESS_KEY", localstack.getSecretKey());
    env.put("CREDENTIALS_SECRET_ARN", arn);
    env.put("ROLE_ARN", "arn:aws:iam::000000000000:role/archiver-writer");
    env.put("EXTERNAL_ID", "ext-localstack");
    ArchiverConfig config = ArchiverConfig.fromEnv(env);
    var handler =
        new ArchiverHandler(config, CredentialsSource.from(config, env::get), Clock.systemUTC());

    try (InputStream in = Files.newInputStream(CredentialsIT.event())) {
      handler.handleRequest(in, new ByteArrayOutputStream(), new LocalContext(60_000));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream("{\"action\":\"preflight\"}".getBytes(StandardCharsets.UTF_8)),
        out,
        new LocalContext(60_000));

    var report = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
    assertThat(report.path("ok").asBoolean()).as(report.toString()).isTrue();
  }
}
