package io.kafkas3archiver.upload;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.HttpUrl;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/** Builds the S3 client from the configuration, once, at cold start. */
public final class S3Clients {
  private S3Clients() {}

  /**
   * The shipped client: url-connection, measured fastest to a first upload from a fresh JVM (see
   * README, Performance).
   */
  public static S3Client build(ArchiverConfig config, AwsCredentialsProvider credentials) {
    return build(
        config,
        credentials,
        UrlConnectionHttpClient.builder()
            .connectionTimeout(Duration.ofSeconds(3))
            .socketTimeout(Duration.ofSeconds(30))
            .build());
  }

  /** The same client over another HTTP client; the cold-start benchmark compares them. */
  public static S3Client build(
      ArchiverConfig config, AwsCredentialsProvider credentials, SdkHttpClient httpClient) {
    var builder =
        S3Client.builder()
            .region(Region.of(config.bucketRegion()))
            .credentialsProvider(credentials)
            .httpClient(httpClient)
            // S3ObjectStore owns the retry loop, so retries are counted and deadline-bounded.
            // PrimingGuard stops SnapStart's priming request before it leaves the JVM;
            // ExpectedBucketOwner puts EXPECTED_BUCKET_OWNER on every call.
            .overrideConfiguration(
                o -> {
                  o.retryStrategy(AwsRetryStrategy.doNotRetry())
                      .addExecutionInterceptor(new PrimingGuard());
                  config
                      .expectedBucketOwner()
                      .ifPresent(
                          owner -> o.addExecutionInterceptor(new ExpectedBucketOwner(owner)));
                })
            .forcePathStyle(config.forcePathStyle());
    config
        .endpoint()
        .ifPresent(
            endpoint -> {
              builder.endpointOverride(endpoint);
              // Over plain http the SDK would stream aws-chunked bodies, which S3-compatible
              // servers (S3Proxy on Jetty) sometimes answer before reading (NOTES.md).
              builder.serviceConfiguration(
                  S3Configuration.builder().chunkedEncodingEnabled(false).build());
            });
    return builder.build();
  }

  /** The endpoint S3 calls go to, for error messages (never with user-info). */
  public static String endpointName(ArchiverConfig config) {
    return config
        .endpoint()
        .map(HttpUrl::redacted)
        .orElse("https://s3." + config.bucketRegion() + ".amazonaws.com");
  }
}
