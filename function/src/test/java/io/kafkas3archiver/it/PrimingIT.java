package io.kafkas3archiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/** SnapStart priming against a real S3-compatible server: it writes nothing, and logs nothing. */
class PrimingIT {
  private static final String BUCKET = "priming-it";
  private static S3ProxyServer server;
  private static S3Client s3;

  @BeforeAll
  static void startServer() {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    s3 = server.client();
  }

  @AfterAll
  static void stopServer() {
    s3.close();
    server.close();
  }

  private static ArchiverHandler handler(String format, String compression) {
    ArchiverConfig config =
        Harness.against(server.endpoint().toString(), BUCKET)
            .with("OUTPUT_FORMAT", format)
            .with("COMPRESSION", compression)
            .config();
    var store =
        S3ObjectStore.create(
            config,
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)));
    return new ArchiverHandler(config, store, Clock.systemUTC());
  }

  private static int objects() {
    return s3.listObjectsV2(b -> b.bucket(BUCKET)).keyCount();
  }

  @ParameterizedTest
  @CsvSource({"ndjson,none", "json,gzip", "csv,none"})
  void shouldWriteNothingToTheBucketWhenPrimed(String format, String compression) throws Exception {
    // Given a handler built against the real server, and an empty bucket
    int before = objects();
    try (StdoutCapture stdout = new StdoutCapture()) {
      ArchiverHandler handler = handler(format, compression);

      // When SnapStart's beforeCheckpoint runs the priming
      handler.prime();

      // Then nothing was written and nothing was logged
      assertThat(objects()).isEqualTo(before);
      assertThat(stdout.lines()).isEmpty();

      // And the primed handler still archives a real batch
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (InputStream in = Files.newInputStream(Harness.event("msk-event.json"))) {
        handler.handleRequest(in, out, new LocalContext(30_000));
      }
      assertThat(out.toString()).contains("\"batchItemFailures\":[]");
      assertThat(objects()).isGreaterThan(before);
      s3.listObjectsV2(b -> b.bucket(BUCKET))
          .contents()
          .forEach(o -> s3.deleteObject(d -> d.bucket(BUCKET).key(o.key())));
    }
  }
}
