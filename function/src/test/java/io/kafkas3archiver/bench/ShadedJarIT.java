package io.kafkas3archiver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.S3ProxyServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The Lambda artifact itself, not the test classpath: a fresh JVM with only the shaded jar (and the
 * benchmark's one-class driver) builds the handler from the environment as the Lambda runtime does,
 * and archives the sample event to S3Proxy. This is what caught slf4j-api missing from the jar.
 * Runs after {@code package}, under failsafe.
 */
class ShadedJarIT {
  private static final Path JAR = Path.of("target", "kafka-s3-archiver.jar");

  @TempDir Path work;

  @Test
  void shouldArchiveTheSampleEventFromAFreshJvmWithOnlyTheShadedJar() throws Exception {
    // Given the shaded jar and a server with the bucket
    assertThat(JAR).exists();
    try (S3ProxyServer server = S3ProxyServer.inMemory();
        S3Client s3 = server.client()) {
      server.createBucket(Combo.BUCKET);
      Bench.Forks forks = new Bench.Forks(JAR, work, server);

      // When the handler is built and invoked there, as Lambda would
      double[] timings =
          forks.run(
              "eager",
              "url",
              Path.of("..", "events", "msk-event.json"),
              Map.of("OUTPUT_FORMAT", "ndjson", "COMPRESSION", "gzip"),
              List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
              120);

      // Then it archived the batch
      assertThat(timings).as(forks.lastStderr()).isNotNull();
      assertThat(s3.listObjectsV2(b -> b.bucket(Combo.BUCKET)).contents())
          .singleElement()
          .satisfies(o -> assertThat(o.key()).endsWith(".ndjson.gz"));
    }
  }
}
