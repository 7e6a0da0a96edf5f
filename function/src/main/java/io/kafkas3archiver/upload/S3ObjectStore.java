package io.kafkas3archiver.upload;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

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

  /**
   * Keys that open nothing, for the priming request only: it is stopped before transmission, so
   * they only feed the signer's code path.
   */
  static final AwsCredentialsProvider PRIMING_CREDENTIALS =
      StaticCredentialsProvider.create(
          AwsBasicCredentials.create("AKIDPRIMINGNOTAKEY00", "priming-placeholder-opens-nothing"));

  private final S3Client s3;
  private final ArchiverConfig config;
  private final ErrorClassifier classifier;
  private final CredentialsSource credentials;

  public S3ObjectStore(S3Client s3, ArchiverConfig config, ErrorClassifier classifier) {
    this(s3, config, classifier, null);
  }

  /**
   * With a credentials source, a rejection of the keys (InvalidAccessKeyId, SignatureDoesNotMatch)
   * makes the source re-read them once per invocation, then the put is retried at once.
   */
  public S3ObjectStore(
      S3Client s3,
      ArchiverConfig config,
      ErrorClassifier classifier,
      CredentialsSource credentials) {
    this.s3 = s3;
    this.config = config;
    this.classifier = classifier;
    this.credentials = credentials;
  }

  /** A store over fixed credentials (tests, the local run): no re-reading on rejection. */
  public static S3ObjectStore create(ArchiverConfig config, AwsCredentialsProvider credentials) {
    return new S3ObjectStore(S3Clients.build(config, credentials), config, classifier(config));
  }

  /** The store the handler uses: the client, the classifier and the retry loop, from config. */
  public static S3ObjectStore create(ArchiverConfig config, CredentialsSource credentials) {
    var classifier =
        new ErrorClassifier(
            config.bucketName(),
            config.bucketRegion(),
            S3Clients.endpointName(config),
            config.keyPrefix(),
            credentials.rejectionAdvice(),
            config::shownKey);
    return new S3ObjectStore(
        S3Clients.build(config, credentials.provider()), config, classifier, credentials);
  }

  /** The classifier for this configuration's bucket, region, endpoint and prefix. */
  public static ErrorClassifier classifier(ArchiverConfig config) {
    return new ErrorClassifier(
        config.bucketName(),
        config.bucketRegion(),
        S3Clients.endpointName(config),
        config.keyPrefix(),
        ErrorClassifier.REJECTED_KEYS_ADVICE,
        config::shownKey);
  }

  /** The client this store writes with (shared with the preflight check). */
  public S3Client client() {
    return s3;
  }

  public ErrorClassifier classifier() {
    return classifier;
  }

  @Override
  public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
      throws UploadException {
    return write(key, body, contentType, null, deadline);
  }

  /**
   * PutObject with {@code If-None-Match: *}. A 412 (the key exists) is an answer, not a failure. A
   * 409 (ConditionalRequestConflict: a concurrent write to the key) is retried, and the retry then
   * meets that write as a 412. A retried put can meet its own first attempt, whose response was
   * lost, the same way: the pipeline then finds its own range in the stored metadata.
   */
  @Override
  public PutResult putIfAbsent(
      String key,
      ObjectBody body,
      String contentType,
      Map<String, String> metadata,
      Deadline deadline)
      throws UploadException {
    return write(key, body, contentType, metadata, deadline);
  }

  @Override
  public Optional<Map<String, String>> metadata(String key, Deadline deadline)
      throws UploadException {
    for (int attempt = 1; ; attempt++) {
      long budget = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS;
      if (budget <= 0) {
        throw classifier.deadlineReached(key, attempt - 1);
      }
      try {
        var head =
            s3.headObject(
                b ->
                    b.bucket(config.bucketName())
                        .key(key)
                        .overrideConfiguration(
                            o ->
                                o.apiCallTimeout(
                                    Duration.ofMillis(Math.min(budget, MAX_ATTEMPT_MILLIS)))));
        return Optional.of(head.metadata());
      } catch (NoSuchKeyException e) {
        return Optional.empty();
      } catch (SdkException e) {
        if (e instanceof S3Exception s && s.statusCode() == 404) {
          return Optional.empty();
        }
        UploadException failure =
            classifier.classify(ErrorClassifier.Operation.HEAD_OBJECT, e, key, attempt);
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
   * The user-metadata name of the CRC32C a conditional put records beside its claim (base64 of the
   * four big-endian bytes, as S3 writes {@code x-amz-checksum-crc32c}); the audit's {@code
   * --verify-checksums} compares it with the stored bytes (docs/audit.md). The claim's budget keeps
   * room for it ({@code Claim.CHECKSUM_ROOM}).
   */
  public static final String CHECKSUM_METADATA = "kafka-crc32c";

  @Override
  public Optional<byte[]> read(String key, Deadline deadline) throws UploadException {
    for (int attempt = 1; ; attempt++) {
      long budget = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS;
      if (budget <= 0) {
        throw classifier.deadlineReached(key, attempt - 1);
      }
      try {
        var body =
            s3.getObjectAsBytes(
                b ->
                    b.bucket(config.bucketName())
                        .key(key)
                        .overrideConfiguration(
                            o ->
                                o.apiCallTimeout(
                                    Duration.ofMillis(Math.min(budget, MAX_ATTEMPT_MILLIS)))));
        return Optional.of(body.asByteArrayUnsafe());
      } catch (NoSuchKeyException e) {
        return Optional.empty();
      } catch (SdkException e) {
        if (e instanceof S3Exception s && s.statusCode() == 404) {
          return Optional.empty();
        }
        UploadException failure =
            classifier.classify(ErrorClassifier.Operation.GET_OBJECT, e, key, attempt);
        long backoff = backoff(attempt);
        boolean timeLeft = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS > backoff + 500;
        if (!failure.type().retryable() || attempt >= MAX_ATTEMPTS || !timeLeft) {
          throw failure;
        }
        sleep(backoff);
      }
    }
  }

  private PutResult write(
      String key, ObjectBody body, String contentType, Map<String, String> claim, Deadline deadline)
      throws UploadException {
    long started = System.nanoTime();
    String md5 = contentMd5(body);
    String crc32c = claim == null ? null : crc32c(body);
    Map<String, String> metadata = claim;
    if (claim != null) {
      metadata = new java.util.HashMap<>(claim);
      metadata.put(CHECKSUM_METADATA, crc32c);
    }
    boolean reread = false;
    for (int attempt = 1; ; attempt++) {
      long budget = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS;
      if (budget <= 0) {
        throw classifier.deadlineReached(key, attempt - 1);
      }
      try {
        PutObjectRequest request =
            request(key, body.length(), md5, contentType, Math.min(budget, MAX_ATTEMPT_MILLIS));
        if (metadata != null) {
          // S3 checks the body against the checksum and keeps it as the object's own.
          request =
              request.toBuilder()
                  .ifNoneMatch("*")
                  .metadata(metadata)
                  .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                  .checksumCRC32C(crc32c)
                  .build();
        }
        s3.putObject(
            request,
            // The body's own ranges, never copied into one array (fromBytes would copy it again).
            RequestBody.fromContentProvider(body::newStream, body.length(), contentType));
        return new PutResult(attempt, (System.nanoTime() - started) / 1_000_000, true);
      } catch (SdkException e) {
        if (metadata != null && e instanceof S3Exception s && s.statusCode() == 412) {
          return new PutResult(attempt, (System.nanoTime() - started) / 1_000_000, false);
        }
        boolean conditionalConflict =
            metadata != null && e instanceof S3Exception s && s.statusCode() == 409;
        UploadException failure = classifier.classify(e, key, attempt);
        if (failure.type() == ErrorType.INVALID_CREDENTIALS && credentials != null) {
          if (!reread && rereadCredentials(key, attempt)) {
            // The keys may have been rotated: retry at once with the fresh ones.
            reread = true;
            continue;
          }
          if (reread) {
            throw new UploadException(
                failure.type(),
                failure.getMessage()
                    + ". The credentials were re-read once in this invocation and were"
                    + " rejected again",
                attempt,
                failure.getCause());
          }
        }
        long backoff = backoff(attempt);
        boolean timeLeft = deadline.remainingMillis() - SAFETY_MARGIN_MILLIS > backoff + 500;
        boolean retryable = conditionalConflict || failure.type().retryable();
        if (!retryable || attempt >= MAX_ATTEMPTS || !timeLeft) {
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
    primeSigned();
  }

  /**
   * Signs the priming request with {@link #PRIMING_CREDENTIALS}, never the client's own provider:
   * priming runs before the SnapStart snapshot, and the client's provider would fetch the Secrets
   * Manager keys (or an STS session) there and leave them cached in every restored copy of the
   * snapshot (DESIGN §6). The first real put resolves the real credentials. True when the request
   * was signed and then stopped.
   */
  boolean primeSigned() {
    boolean guarded =
        s3.serviceClientConfiguration().overrideConfiguration().executionInterceptors().stream()
            .anyMatch(PrimingGuard.class::isInstance);
    if (!guarded) {
      return false; // a client not built by S3Clients: it would really send the request
    }
    byte[] body = {'{', '}'};
    PutObjectRequest request =
        request(
                config.keyPrefix() + "/_priming",
                body.length,
                contentMd5(body),
                "application/octet-stream",
                10_000)
            .toBuilder()
            .overrideConfiguration(
                o ->
                    o.apiCallTimeout(Duration.ofSeconds(10))
                        .credentialsProvider(PRIMING_CREDENTIALS)
                        .putExecutionAttribute(PrimingGuard.PRIMING, Boolean.TRUE))
            .build();
    try {
      s3.putObject(request, RequestBody.fromBytes(body));
      return false;
    } catch (PrimingGuard.Stopped stopped) {
      return stopped.signed();
    } catch (SdkException e) {
      // The SDK may wrap Stopped. Any other failure is ignored: priming is best effort and must
      // not fail the snapshot.
      return e.getCause() instanceof PrimingGuard.Stopped stopped && stopped.signed();
    }
  }

  /** Asks the source for fresh credentials; a failure to get them is classified like any other. */
  private boolean rereadCredentials(String key, int attempt) throws UploadException {
    try {
      return credentials.refreshAfterRejection();
    } catch (SdkException e) {
      throw classifier.classify(e, key, attempt);
    }
  }

  private PutObjectRequest request(
      String key, long length, String md5, String contentType, long timeout) {
    PutObjectRequest.Builder b =
        PutObjectRequest.builder()
            .bucket(config.bucketName())
            .key(key)
            .contentType(contentType)
            .contentLength(length)
            .contentMD5(md5)
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

  /**
   * Content-MD5 makes S3 (and every S3-compatible server) refuse a body that was cut or corrupted
   * on the way, so a truncated object can never land under its final key. The SDK's own checksum
   * (CRC32) covers this too, but only while checksum calculation stays on; this one holds whatever
   * the client's checksum or payload-signing settings are.
   */
  static String contentMd5(byte[] body) {
    return contentMd5(ObjectBody.of(body));
  }

  static String contentMd5(ObjectBody body) {
    try {
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      body.forEachRange(md5::update);
      return Base64.getEncoder().encodeToString(md5.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has MD5", e);
    }
  }

  /** CRC32C of {@code body}, base64 of its four big-endian bytes (S3's checksum encoding). */
  public static String crc32c(byte[] body) {
    return crc32c(ObjectBody.of(body));
  }

  /** As above, over a body's ranges. */
  public static String crc32c(ObjectBody body) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    body.forEachRange(crc::update);
    long v = crc.getValue();
    byte[] b = {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    return Base64.getEncoder().encodeToString(b);
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
