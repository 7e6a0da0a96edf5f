package io.kafkas3archiver.upload;

import io.kafkas3archiver.config.ArchiverConfig;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Puts objects with a bounded retry loop of its own, so that retries are counted, back off with
 * jitter, and stop before the Lambda deadline instead of being cut off by it.
 */
public final class S3ObjectStore implements ObjectStore {
  /** Time kept back for answering the invocation after the last attempt. */
  static final long SAFETY_MARGIN_MILLIS = 1_500;

  private static final int MAX_ATTEMPTS = 6;
  private static final long BASE_BACKOFF_MILLIS = 100;
  private static final long MAX_BACKOFF_MILLIS = 5_000;
  private static final long MAX_ATTEMPT_MILLIS = 60_000;

  private final S3Client s3;
  private final ArchiverConfig config;
  private final ErrorClassifier classifier;

  public S3ObjectStore(S3Client s3, ArchiverConfig config, ErrorClassifier classifier) {
    this.s3 = s3;
    this.config = config;
    this.classifier = classifier;
  }

  /** The store the handler uses: the client, the classifier and the retry loop, from config. */
  public static S3ObjectStore create(ArchiverConfig config, AwsCredentialsProvider credentials) {
    var classifier =
        new ErrorClassifier(
            config.bucketName(),
            config.bucketRegion(),
            S3Clients.endpointName(config),
            config.keyPrefix());
    return new S3ObjectStore(S3Clients.build(config, credentials), config, classifier);
  }

  @Override
  public PutResult put(String key, byte[] body, String contentType, Deadline deadline)
      throws UploadException {
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      long budget = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS;
      if (budget <= 0) {
        throw classifier.deadlineReached(key, attempt - 1);
      }
      try {
        s3.putObject(
            request(key, body.length, contentType, Math.min(budget, MAX_ATTEMPT_MILLIS)),
            // fromBytes would copy the whole object once more; the pipeline never changes it.
            RequestBody.fromContentProvider(
                ContentStreamProvider.fromByteArrayUnsafe(body), body.length, contentType));
        return new PutResult(attempt, (System.nanoTime() - started) / 1_000_000);
      } catch (SdkException e) {
        UploadException failure = classifier.classify(e, key, attempt);
        long backoff = backoff(attempt);
        boolean timeLeft = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS > backoff + 500;
        if (!failure.type().retryable() || attempt >= MAX_ATTEMPTS || !timeLeft) {
          throw failure;
        }
        sleep(backoff);
      }
    }
  }

  /**
   * Runs one PutObject through the client up to and including signing; {@link PrimingGuard} stops
   * it before transmission, so nothing is sent and nothing written.
   */
  @Override
  public void prime() {
    boolean guarded =
        s3.serviceClientConfiguration().overrideConfiguration().executionInterceptors().stream()
            .anyMatch(PrimingGuard.class::isInstance);
    if (!guarded) {
      return; // a client not built by S3Clients: it would really send the request
    }
    PutObjectRequest request =
        request(config.keyPrefix() + "/_priming", 2, "application/octet-stream", 10_000).toBuilder()
            .overrideConfiguration(
                o ->
                    o.apiCallTimeout(Duration.ofSeconds(10))
                        .putExecutionAttribute(PrimingGuard.PRIMING, Boolean.TRUE))
            .build();
    try {
      s3.putObject(request, RequestBody.fromBytes(new byte[] {'{', '}'}));
    } catch (PrimingGuard.Stopped | SdkException expected) {
      // Stopped: the request got as far as signing and no further (the SDK may wrap it). Any
      // other failure is ignored too: priming is best effort and must not fail the snapshot.
    }
  }

  private PutObjectRequest request(String key, long length, String contentType, long timeout) {
    PutObjectRequest.Builder b =
        PutObjectRequest.builder()
            .bucket(config.bucketName())
            .key(key)
            .contentType(contentType)
            .contentLength(length)
            .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMillis(timeout)));
    config
        .sse()
        .ifPresent(
            sse -> {
              b.serverSideEncryption(sse.headerValue());
              config.kmsKeyId().ifPresent(b::ssekmsKeyId);
            });
    return b.build();
  }

  private static long backoff(int attempt) {
    long ceiling = Math.min(MAX_BACKOFF_MILLIS, BASE_BACKOFF_MILLIS << Math.min(attempt - 1, 20));
    return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
