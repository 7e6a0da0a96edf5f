package io.kafkas3archiver.local;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.CredentialsSource;
import java.nio.file.Path;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 side of a local run: an embedded S3Proxy whose data stays in a folder, unless {@code
 * AWS_ENDPOINT_URL_S3} names another endpoint, which is then used with the credentials the function
 * would use.
 */
final class LocalS3 implements AutoCloseable {
  private final S3ProxyServer embedded;

  private LocalS3(S3ProxyServer embedded) {
    this.embedded = embedded;
  }

  /**
   * Starts the embedded server unless {@code env} names an endpoint; then points {@code env} at it
   * and creates {@code BUCKET_NAME} if it is not there yet.
   */
  static LocalS3 open(Map<String, String> env, Path data) {
    // A bad setting fails here, before S3Proxy's non-daemon threads exist: otherwise the exception
    // leaves them running and exec:java waits on them forever, printing nothing.
    ArchiverConfig.fromEnv(env);
    String endpoint = env.get("AWS_ENDPOINT_URL_S3");
    if (endpoint != null && !endpoint.isBlank()) {
      return new LocalS3(null);
    }
    S3ProxyServer server = S3ProxyServer.onDisk(data);
    try {
      env.put("AWS_ENDPOINT_URL_S3", server.endpoint().toString());
      env.put("S3_FORCE_PATH_STYLE", "true");
      createBucketIfMissing(server, env.get("BUCKET_NAME"));
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    System.out.println(
        "embedded S3 server at " + server.endpoint() + ", data in " + data.toAbsolutePath());
    return new LocalS3(server);
  }

  static void createBucketIfMissing(S3ProxyServer server, String bucket) {
    try (S3Client s3 = server.client()) {
      if (s3.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(bucket))) {
        server.createBucket(bucket);
      }
    }
  }

  /** The embedded server's keys, or the credentials the function would use for this config. */
  AwsCredentialsProvider credentials(ArchiverConfig config) {
    if (embedded != null) {
      return StaticCredentialsProvider.create(
          AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY));
    }
    return CredentialsSource.from(config).provider();
  }

  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }
}
