package io.kafkas3archiver.local;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.RecordingStore;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * README's first command: runs the real handler on an event file from {@code events/}. Without
 * {@code AWS_ENDPOINT_URL_S3} it starts an embedded S3-compatible server whose data stays in {@code
 * .local-s3/}; with it, it writes to that endpoint using the usual AWS credentials. The
 * configuration comes from the same environment variables as in Lambda.
 *
 * <p>Usage: {@code LocalRun [event.json]} (default {@code events/msk-event.json}). With {@code
 * --kafka} or {@code --bootstrap-servers}, the records come from a real Kafka cluster through the
 * event-source emulator instead: see {@link KafkaLocalRun}.
 */
public final class LocalRun {
  private LocalRun() {}

  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } catch (Exception e) {
      throw plain(e);
    }
  }

  /**
   * The failure as its message alone. exec:java closes this class loader before Maven prints the
   * exception, so an SDK exception's getMessage(), which loads SDK classes, would end the run in a
   * NoClassDefFoundError dump instead of the advice.
   */
  static IllegalStateException plain(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    IllegalStateException out = new IllegalStateException(message);
    out.setStackTrace(new StackTraceElement[0]);
    return out;
  }

  private static void run(String[] args) throws Exception {
    if (KafkaLocalRun.wants(args)) {
      KafkaLocalRun.main(args);
      return;
    }
    Path event = Path.of(args.length > 0 ? args[0] : "events/msk-event.json");
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putIfAbsent("BUCKET_NAME", "local-archive");
    env.putIfAbsent("AWS_REGION", S3ProxyServer.REGION);
    env.putIfAbsent("TITLE", "local-run");

    try (LocalS3 localS3 = LocalS3.open(env, Path.of(".local-s3"))) {
      ArchiverConfig config = ArchiverConfig.fromEnv(env);
      AwsCredentialsProvider credentials = localS3.credentials(config);
      RecordingStore store = new RecordingStore(S3ObjectStore.create(config, credentials));
      ArchiverHandler handler = new ArchiverHandler(config, store, Clock.systemUTC());
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      System.out.println("invoking the handler with " + event + " ...");
      try (InputStream in = Files.newInputStream(event)) {
        handler.handleRequest(in, response, new LocalContext(60_000));
      }
      System.out.println("response: " + response.toString(StandardCharsets.UTF_8));
      System.out.println(
          "wrote " + store.keys().size() + " object(s) to s3://" + config.bucketName() + "/:");
      store.keys().forEach(k -> System.out.println("  " + k));
      if (!store.keys().isEmpty()) {
        String first = store.keys().get(0);
        try (S3Client s3 = readClient(config, credentials)) {
          byte[] bytes = ObjectBodies.decompressed(s3, config.bucketName(), first);
          System.out.println("preview of " + first + ":");
          previewLines(first, bytes)
              .limit(10)
              .forEach(l -> System.out.println("  " + abbreviate(l)));
        }
      }
    }
  }

  private static S3Client readClient(ArchiverConfig config, AwsCredentialsProvider credentials) {
    var b =
        S3Client.builder()
            .region(Region.of(config.bucketRegion()))
            .credentialsProvider(credentials)
            .forcePathStyle(config.forcePathStyle());
    config.endpoint().ifPresent(b::endpointOverride);
    return b.build();
  }

  /** Text objects as they are; Parquet as rows read by DuckDB (a test-only reader). */
  private static java.util.stream.Stream<String> previewLines(String key, byte[] bytes)
      throws java.io.IOException {
    if (!key.endsWith(".parquet")) {
      return new String(bytes, StandardCharsets.UTF_8).lines();
    }
    Path file = Files.createTempFile("preview", ".parquet");
    try (DuckDb duck = new DuckDb()) {
      Files.write(file, bytes);
      return duck
          .query("SELECT * FROM read_parquet(" + DuckDb.literal(file) + ") LIMIT 10")
          .stream()
          .map(Object::toString)
          .toList()
          .stream();
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static String abbreviate(String line) {
    return line.length() <= 200 ? line : line.substring(0, 197) + "...";
  }
}
