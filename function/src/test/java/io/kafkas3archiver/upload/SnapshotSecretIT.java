package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No secret in the SnapStart snapshot (DESIGN §6): the handler is built and primed exactly as
 * {@code beforeCheckpoint} would, and moto's request recorder counts the GetSecretValue calls that
 * reached Secrets Manager. Priming must make none; the first real invocation makes one.
 */
class SnapshotSecretIT {
  private static final String BUCKET = "snapshot-archive";
  private static S3ProxyServer s3;
  private static MotoServer moto;

  @BeforeAll
  static void startServers() {
    s3 = S3ProxyServer.inMemory();
    s3.createBucket(BUCKET);
    moto = MotoServer.start();
  }

  @AfterAll
  static void stopServers() {
    if (moto != null) {
      moto.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void shouldFetchTheSecretOnTheFirstInvocationNotWhilePriming() throws Exception {
    // Given a secret with the keys S3 accepts, and a handler built at init from it
    String arn =
        moto.createSecret(
            "kafka-archiver/snapshot-keys",
            "{\"accessKey\":\""
                + S3ProxyServer.ACCESS_KEY
                + "\",\"secretKey\":\""
                + S3ProxyServer.SECRET_KEY
                + "\"}");
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", BUCKET);
    env.put("BUCKET_REGION", S3ProxyServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("CREDENTIALS_SECRET_ARN", arn);
    ArchiverHandler handler = new ArchiverHandler(ArchiverConfig.fromEnv(env), env::get);

    // When SnapStart primes it before the snapshot
    handler.prime();

    // Then Secrets Manager was not asked: no key can be in the snapshot
    assertThat(getSecretValueCalls(arn)).as("GetSecretValue calls while priming").isZero();

    // When the first real invocation arrives (after the restore)
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = Files.newInputStream(CredentialsIT.event())) {
      handler.handleRequest(in, out, new LocalContext(60_000));
    }

    // Then it fetched the secret once, and archived with its keys
    assertThat(out.toString()).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(getSecretValueCalls(arn)).as("GetSecretValue calls after invocation 1").isEqualTo(1);
    try (var client = s3.client()) {
      assertThat(client.listObjectsV2(b -> b.bucket(BUCKET)).keyCount()).isPositive();
    }
  }

  private static long getSecretValueCalls(String arn) {
    return moto.recorded().stream()
        .filter(r -> "secretsmanager.GetSecretValue".equals(r.header("X-Amz-Target")))
        .filter(r -> r.body().contains(arn))
        .count();
  }
}
