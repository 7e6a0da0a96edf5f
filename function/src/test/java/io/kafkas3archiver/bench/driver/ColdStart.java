package io.kafkas3archiver.bench.driver;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.ErrorClassifier;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.S3Clients;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * The only class the benchmark adds to a forked JVM's classpath beside the shaded Lambda jar (and,
 * for the client comparison, that client's jars). It plays the Lambda runtime: reads the event into
 * memory (as the runtime does), builds the function from the environment, invokes it once, and
 * prints one {@code BENCH} line with the phases in milliseconds.
 *
 * <p>Usage: {@code ColdStart <mode> <http-client> <event-file>}; modes: {@code eager} (the handler
 * as Lambda builds it), {@code lazy} (S3 client built on the first put), {@code primed} (SnapStart
 * priming run after init, before the invoke), {@code putonly} (a minimal function that PUTs the
 * event as one object with the same SDK, client settings and credentials).
 */
public final class ColdStart {
  private ColdStart() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String client = args[1];
    byte[] event = Files.readAllBytes(Path.of(args[2]));
    long start = System.nanoTime();
    double primeMs = -1;
    long init;
    if (mode.equals("putonly")) {
      S3Client s3 = minimalClient(http(client));
      init = System.nanoTime();
      s3.putObject(
          b -> b.bucket(System.getenv("BUCKET_NAME")).key("minimal/" + System.nanoTime()),
          RequestBody.fromBytes(event));
    } else {
      ArchiverHandler handler = handler(mode, client);
      init = System.nanoTime();
      if (mode.equals("primed")) {
        handler.prime(); // with SnapStart this runs before the snapshot, not in the cold start
        long primed = System.nanoTime();
        primeMs = (primed - init) / 1e6;
        init = primed;
      }
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      handler.handleRequest(new ByteArrayInputStream(event), response, null);
      if (!response.toString().contains("\"batchItemFailures\":[]")) {
        throw new IllegalStateException("the batch was not archived: " + response);
      }
    }
    long done = System.nanoTime();
    // CPU time of the whole process (JVM boot, JIT and GC threads included): on a machine shared
    // with other work it varies far less than the wall time.
    long cpu =
        ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    System.out.printf(
        "BENCH init=%.1f prime=%.1f invoke=%.1f cpu=%.1f%n",
        primeMs >= 0 ? (init - start) / 1e6 - primeMs : (init - start) / 1e6,
        primeMs,
        (done - init) / 1e6,
        cpu / 1e6);
    System.out.flush();
  }

  private static ArchiverHandler handler(String mode, String client) {
    if (mode.equals("eager") && client.equals("url")) {
      return new ArchiverHandler(); // exactly what the Lambda runtime calls
    }
    ArchiverConfig config = ArchiverConfig.fromEnv(System::getenv);
    if (mode.equals("primed")) {
      return new ArchiverHandler(config, System::getenv);
    }
    if (mode.equals("lazy")) {
      return new ArchiverHandler(config, new LazyStore(config, client), Clock.systemUTC());
    }
    return new ArchiverHandler(config, store(config, client), Clock.systemUTC());
  }

  static ObjectStore store(ArchiverConfig config, String client) {
    return new S3ObjectStore(
        S3Clients.build(config, DefaultCredentialsProvider.builder().build(), http(client)),
        config,
        new ErrorClassifier(
            config.bucketName(),
            config.bucketRegion(),
            S3Clients.endpointName(config),
            config.keyPrefix()));
  }

  /** Builds the S3 store on the first put instead of at init. */
  private static final class LazyStore implements ObjectStore {
    private final ArchiverConfig config;
    private final String client;
    private ObjectStore delegate;

    LazyStore(ArchiverConfig config, String client) {
      this.config = config;
      this.client = client;
    }

    private ObjectStore delegate() {
      if (delegate == null) {
        delegate = store(config, client);
      }
      return delegate;
    }

    /** An earlier build's jar calls only the array methods; this one passes ranges as they are. */
    @Override
    public PutResult put(String key, byte[] body, String contentType, Deadline deadline)
        throws UploadException {
      return delegate().put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key,
        byte[] body,
        String contentType,
        Map<String, String> metadata,
        Deadline deadline)
        throws UploadException {
      return delegate().putIfAbsent(key, body, contentType, metadata, deadline);
    }

    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
        throws UploadException {
      return delegate().put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key,
        ObjectBody body,
        String contentType,
        Map<String, String> metadata,
        Deadline deadline)
        throws UploadException {
      return delegate().putIfAbsent(key, body, contentType, metadata, deadline);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline)
        throws UploadException {
      return delegate().metadata(key, deadline);
    }
  }

  /** The minimal function's client: the same settings as the archiver's, nothing else. */
  static S3Client minimalClient(SdkHttpClient http) {
    return S3Client.builder()
        .region(Region.of(System.getenv("AWS_REGION")))
        .credentialsProvider(DefaultCredentialsProvider.builder().build())
        .httpClient(http)
        .endpointOverride(URI.create(System.getenv("AWS_ENDPOINT_URL_S3")))
        .forcePathStyle(true)
        .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  /** By reflection, so a client's classes load only in the JVM that measures it. */
  static SdkHttpClient http(String client) {
    String type =
        switch (client) {
          case "url" -> "software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient";
          case "apache" -> "software.amazon.awssdk.http.apache.ApacheHttpClient";
          case "apache5" -> "software.amazon.awssdk.http.apache5.Apache5HttpClient";
          case "crt" -> "software.amazon.awssdk.http.crt.AwsCrtHttpClient";
          default -> throw new IllegalArgumentException("unknown client " + client);
        };
    try {
      return (SdkHttpClient) Class.forName(type).getMethod("create").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build the " + client + " HTTP client", e);
    }
  }
}
