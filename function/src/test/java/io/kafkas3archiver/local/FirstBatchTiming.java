package io.kafkas3archiver.local;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.UnconditionalStore;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * Times the first batches of a fresh JVM on the shaded jar alone, for README's cold-start figure:
 * {@code java -cp kafka-s3-archiver.jar:test-classes FirstBatchTiming event.json outDir format
 * compression...} ({@code -Darchiver.metadata=true} sets INCLUDE_KAFKA_METADATA). Objects go to
 * {@code outDir/<compression>/<key>} instead of S3, so only decoding and encoding are timed. One
 * line for the handler's init ({@code batch=0}), then one per batch: {@code timing format=..
 * compression=.. batch=1 millis=.. jvmUptimeMillis=..}.
 */
public final class FirstBatchTiming {
  private FirstBatchTiming() {}

  public static void main(String[] args) throws IOException {
    Path event = Path.of(args[0]);
    Path outDir = Path.of(args[1]);
    String format = args[2];
    for (int i = 3; i < args.length; i++) {
      String compression = args[i];
      ArchiverConfig config =
          ArchiverConfig.fromEnv(
              Map.of(
                  "BUCKET_NAME",
                  "timing-bucket",
                  "AWS_REGION",
                  "us-east-1",
                  "OUTPUT_FORMAT",
                  format,
                  "COMPRESSION",
                  compression,
                  "INCLUDE_KAFKA_METADATA",
                  System.getProperty("archiver.metadata", "false")));
      Path target = outDir.resolve(compression);
      UnconditionalStore files =
          (key, body, contentType, deadline) -> {
            try {
              Path file = target.resolve(key);
              Files.createDirectories(file.getParent());
              Files.write(file, body.toByteArray());
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            return new ObjectStore.PutResult(1, 0);
          };
      long init = System.nanoTime();
      ArchiverHandler handler = new ArchiverHandler(config, files, Clock.systemUTC());
      System.out.println(
          "timing format="
              + format
              + " compression="
              + compression
              + " batch=0 millis="
              + (System.nanoTime() - init) / 1_000_000
              + " jvmUptimeMillis="
              + ManagementFactory.getRuntimeMXBean().getUptime()
              + " (handler init)");
      for (int batch = 1; batch <= 2; batch++) {
        long start = System.nanoTime();
        try (InputStream in = Files.newInputStream(event)) {
          handler.handleRequest(in, new ByteArrayOutputStream(), new LocalContext(60_000));
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println(
            "timing format="
                + format
                + " compression="
                + compression
                + " batch="
                + batch
                + " millis="
                + millis
                + " jvmUptimeMillis="
                + ManagementFactory.getRuntimeMXBean().getUptime());
      }
    }
  }
}
