package io.kafkas3archiver.preflight;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.preflight.PreflightReport.KeyLayout;
import io.kafkas3archiver.preflight.PreflightReport.Status;
import io.kafkas3archiver.preflight.PreflightReport.Step;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.CredentialsSource;
import io.kafkas3archiver.upload.ErrorClassifier;
import io.kafkas3archiver.upload.ErrorClassifier.Operation;
import io.kafkas3archiver.upload.S3Clients;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Hevo's "test connection" (DESIGN §5), in order: the credentials resolve, the bucket exists, its
 * region matches BUCKET_REGION, whether the bucket has S3 Object Lock, a probe object is written
 * under {@code <KEY_PREFIX>/_preflight/}, and deleted again (skipped with a warning if deletion is
 * not permitted, and skipped on purpose when Object Lock retains every new version: the check then
 * proves writes without deleting). A step that cannot run because an earlier one failed is SKIPPED.
 * Advice comes from the same {@link ErrorClassifier} as archiving, so a preflight FAIL reads
 * exactly like the error archiving would meet.
 */
public final class Preflight {
  public static final String CREDENTIALS = "credentials";
  public static final String BUCKET = "bucket";
  public static final String REGION = "region";
  public static final String OBJECT_LOCK = "objectLock";
  public static final String PROBE_WRITE = "probeWrite";
  public static final String PROBE_DELETE = "probeDelete";
  public static final String CONDITIONAL_WRITE = "conditionalWrite";

  private final ArchiverConfig config;
  private final CredentialsSource credentials;
  private final S3Client s3;
  private final S3ObjectStore store;
  private final ErrorClassifier classifier;
  private final Clock clock;

  public Preflight(
      ArchiverConfig config,
      CredentialsSource credentials,
      S3Client s3,
      S3ObjectStore store,
      Clock clock) {
    this.config = config;
    this.credentials = credentials;
    this.s3 = s3;
    this.store = store;
    this.classifier = store.classifier();
    this.clock = clock;
  }

  /** The check over the store's own client, so it tests exactly what archiving uses. */
  public static Preflight over(
      ArchiverConfig config, CredentialsSource credentials, S3ObjectStore store, Clock clock) {
    return new Preflight(config, credentials, store.client(), store, clock);
  }

  public PreflightReport run(Deadline deadline) {
    credentials.beginInvocation();
    String probeKey = probeKey();
    List<Step> steps = new ArrayList<>(7);

    Step creds = resolveCredentials();
    steps.add(creds);
    if (creds.status() == Status.FAIL) {
      String why = "skipped: the credentials did not resolve";
      steps.add(Step.skipped(BUCKET, why));
      steps.add(Step.skipped(REGION, why));
      steps.add(Step.skipped(OBJECT_LOCK, why));
      steps.add(Step.skipped(PROBE_WRITE, why));
      steps.add(Step.skipped(PROBE_DELETE, why));
      return report(steps, probeKey);
    }

    BucketCheck bucket = checkBucket();
    steps.add(bucket.step());
    if (bucket.step().status() == Status.FAIL) {
      String why = "skipped: the bucket check failed";
      steps.add(Step.skipped(REGION, why));
      steps.add(Step.skipped(OBJECT_LOCK, why));
      steps.add(Step.skipped(PROBE_WRITE, why));
      steps.add(Step.skipped(PROBE_DELETE, why));
      return report(steps, probeKey);
    }

    Step region = checkRegion(bucket.regionHint());
    steps.add(region);
    if (region.status() == Status.FAIL) {
      String why = "skipped: the bucket is in another region, so every write would fail";
      steps.add(Step.skipped(OBJECT_LOCK, why));
      steps.add(Step.skipped(PROBE_WRITE, why));
      steps.add(Step.skipped(PROBE_DELETE, why));
      return report(steps, probeKey);
    }

    LockCheck lock = checkObjectLock();
    steps.add(lock.step());

    Step write = probeWrite(probeKey, deadline);
    steps.add(write);
    if (write.status() == Status.FAIL) {
      steps.add(Step.skipped(CONDITIONAL_WRITE, "skipped: nothing was written"));
      steps.add(Step.skipped(PROBE_DELETE, "skipped: nothing was written"));
      return report(steps, probeKey);
    }
    steps.add(conditionalWrite(probeKey, deadline));
    Optional<BucketLock> retains = lock.lock().filter(l -> l.mode().isPresent());
    if (retains.isPresent()) {
      // A delete could not remove the probe anyway: on a versioned, locked bucket it only adds a
      // delete marker, and the probe's version stays until its retention ends. So the check
      // proves what archiving needs (a write and a refused second write) and deletes nothing.
      steps.add(
          Step.skipped(
              PROBE_DELETE,
              "skipped: bucket has "
                  + retains.get().describe()
                  + ", so the probe s3://"
                  + config.bucketName()
                  + "/"
                  + probeKey
                  + " stays until its retention ends (about 100 bytes; archiving never deletes)"));
    } else {
      steps.add(probeDelete(probeKey));
    }
    return report(steps, probeKey);
  }

  private Step resolveCredentials() {
    try {
      credentials.provider().resolveCredentials();
      return Step.pass(CREDENTIALS, "resolved " + credentials.describe());
    } catch (SdkException e) {
      return fail(CREDENTIALS, classifier.classify(Operation.HEAD_BUCKET, e, null, 1));
    }
  }

  private record BucketCheck(Step step, Optional<String> regionHint) {}

  /**
   * ListObjectsV2 on the probe prefix, not HeadBucket: a HEAD answer has no body, so a 403 could
   * not tell wrong keys from a missing permission. Needs s3:ListBucket, like HeadBucket.
   */
  private BucketCheck checkBucket() {
    String prefix = probePrefix();
    for (int attempt = 1; ; attempt++) {
      try {
        s3.listObjectsV2(r -> r.bucket(config.bucketName()).prefix(prefix).maxKeys(1));
        return new BucketCheck(
            Step.pass(
                BUCKET,
                "bucket '"
                    + config.bucketName()
                    + "' exists at "
                    + S3Clients.endpointName(config)
                    + config
                        .expectedBucketOwner()
                        .map(o -> ", owned by account " + o + " (EXPECTED_BUCKET_OWNER)")
                        .orElse("")),
            Optional.empty());
      } catch (SdkException e) {
        UploadException u = classifier.classify(Operation.HEAD_BUCKET, e, null, attempt);
        if (u.type() == ErrorType.INVALID_CREDENTIALS && attempt == 1 && rereadCredentials()) {
          continue;
        }
        return switch (u.type()) {
          case WRONG_REGION ->
              new BucketCheck(
                  Step.pass(
                      BUCKET,
                      "bucket '"
                          + config.bucketName()
                          + "' exists, in "
                          + ErrorClassifier.bucketRegion(e).orElse("another region")),
                  ErrorClassifier.bucketRegion(e).or(() -> Optional.of("another region")));
          case ACCESS_DENIED ->
              new BucketCheck(
                  new Step(
                      BUCKET,
                      Status.WARN,
                      "could not check that bucket '"
                          + config.bucketName()
                          + "' exists: s3:ListBucket is not granted (archiving itself needs only"
                          + " s3:PutObject; the probe write below shows whether that works)",
                      u.getMessage(),
                      u.type().label()),
                  Optional.empty());
          default -> new BucketCheck(fail(BUCKET, u), Optional.empty());
        };
      }
    }
  }

  /** Keys rejected: re-read them once (a rotated secret), as archiving would. */
  private boolean rereadCredentials() {
    try {
      return credentials.refreshAfterRejection();
    } catch (SdkException e) {
      return false;
    }
  }

  private Step checkRegion(Optional<String> hint) {
    Optional<String> actual = hint.isPresent() ? hint : bucketRegion();
    String configured = config.bucketRegion();
    if (actual.isEmpty()) {
      return new Step(
          REGION,
          Status.WARN,
          "the endpoint did not say which region bucket '" + config.bucketName() + "' is in",
          "Make sure BUCKET_REGION="
              + configured
              + " is the bucket's region (S3 console, bucket properties); the probe write below"
              + " fails with a wrong-region error if it is not",
          null);
    }
    if (actual.get().equals(configured)) {
      return Step.pass(REGION, "bucket '" + config.bucketName() + "' is in " + configured);
    }
    return new Step(
        REGION,
        Status.FAIL,
        "bucket '"
            + config.bucketName()
            + "' is in "
            + actual.get()
            + ", function configured for "
            + configured,
        "Set BUCKET_REGION=" + actual.get() + " (or use a bucket in " + configured + ")",
        ErrorType.WRONG_REGION.label());
  }

  private record LockCheck(Step step, Optional<BucketLock> lock) {}

  /**
   * GetObjectLockConfiguration: a 404 ObjectLockConfigurationNotFoundError means no lock. A store
   * that does not implement the call (S3-compatible servers) has no lock either. Without the
   * permission the step warns and the probe is deleted as on any bucket, which on a locked bucket
   * only adds a delete marker.
   */
  private LockCheck checkObjectLock() {
    String bucket = "bucket '" + config.bucketName() + "'";
    try {
      var answer = s3.getObjectLockConfiguration(r -> r.bucket(config.bucketName()));
      Optional<BucketLock> lock = BucketLock.of(answer.objectLockConfiguration());
      if (lock.isEmpty()) {
        return new LockCheck(Step.pass(OBJECT_LOCK, bucket + " has no Object Lock"), lock);
      }
      String retention =
          lock.get().mode().isPresent()
              ? ": every object version the function writes is kept, undeletable, for that"
                  + " period; the probe below is written and left in place"
              : ": new versions get no retention unless a write asks for one, so the probe is"
                  + " deleted as usual";
      return new LockCheck(
          Step.pass(OBJECT_LOCK, bucket + " has " + lock.get().describe() + retention), lock);
    } catch (S3Exception e) {
      String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
      if ("ObjectLockConfigurationNotFoundError".equals(code)) {
        return new LockCheck(
            Step.pass(OBJECT_LOCK, bucket + " has no Object Lock"), Optional.empty());
      }
      if (e.statusCode() == 501 || "NotImplemented".equals(code)) {
        return new LockCheck(
            Step.pass(
                OBJECT_LOCK,
                "the store at "
                    + S3Clients.endpointName(config)
                    + " does not offer Object Lock ("
                    + code
                    + "), so "
                    + bucket
                    + " has none"),
            Optional.empty());
      }
      return new LockCheck(lockUnknown(e), Optional.empty());
    } catch (SdkException e) {
      return new LockCheck(lockUnknown(e), Optional.empty());
    }
  }

  private Step lockUnknown(SdkException e) {
    UploadException u = classifier.classify(Operation.GET_OBJECT_LOCK, e, null, 1);
    return new Step(
        OBJECT_LOCK,
        Status.WARN,
        "could not check whether bucket '"
            + config.bucketName()
            + "' has Object Lock"
            + (u.type() == ErrorType.ACCESS_DENIED
                ? ": s3:GetBucketObjectLockConfiguration is not granted"
                : ""),
        u.getMessage()
            + ". Archiving does not need it; without it the probe is deleted as on any bucket,"
            + " which on a locked bucket only adds a delete marker: the probe's version stays"
            + " until its retention ends (harmless)",
        u.type().label());
  }

  /** HeadBucket's x-amz-bucket-region (also on a 301/403 answer), else GetBucketLocation. */
  private Optional<String> bucketRegion() {
    try {
      String region = s3.headBucket(r -> r.bucket(config.bucketName())).bucketRegion();
      if (region != null && !region.isBlank()) {
        return Optional.of(region);
      }
    } catch (S3Exception e) {
      Optional<String> fromError = ErrorClassifier.bucketRegion(e);
      if (fromError.isPresent()) {
        return fromError;
      }
    } catch (SdkException e) {
      // fall through to GetBucketLocation
    }
    try {
      String constraint =
          s3.getBucketLocation(r -> r.bucket(config.bucketName())).locationConstraintAsString();
      if (constraint == null || constraint.isBlank()) {
        return Optional.of("us-east-1"); // S3 reports the original region as an empty constraint
      }
      return Optional.of(constraint.equals("EU") ? "eu-west-1" : constraint);
    } catch (SdkException e) {
      return Optional.empty();
    }
  }

  private Step probeWrite(String key, Deadline deadline) {
    byte[] body =
        ("kafka-s3-archiver preflight probe of '"
                + config.title()
                + "' at "
                + clock.instant()
                + "; safe to delete\n")
            .getBytes(StandardCharsets.UTF_8);
    try {
      // Conditional, as archiving writes: a store that refuses If-None-Match fails here.
      var result = store.putIfAbsent(key, body, "text/plain; charset=utf-8", Map.of(), deadline);
      String sse =
          config
              .sse()
              .map(
                  s ->
                      ", SSE="
                          + s.headerValue()
                          + config.kmsKeyId().map(k -> " with KMS key " + k).orElse(""))
              .orElse("");
      return Step.pass(
          PROBE_WRITE,
          "wrote s3://"
              + config.bucketName()
              + "/"
              + key
              + " ("
              + body.length
              + " bytes"
              + sse
              + ", "
              + result.attempts()
              + (result.attempts() == 1 ? " attempt)" : " attempts)"));
    } catch (UploadException e) {
      return fail(PROBE_WRITE, e);
    }
  }

  /**
   * Exactly-once rests on {@code If-None-Match: *}: the probe is written a second time the same
   * way, and the store must refuse it. A store that overwrites instead still archives every record,
   * but a re-formed redelivery can then store records twice.
   */
  private Step conditionalWrite(String key, Deadline deadline) {
    byte[] body = "second conditional write of the probe; must be refused\n".getBytes(UTF_8);
    try {
      var again = store.putIfAbsent(key, body, "text/plain; charset=utf-8", Map.of(), deadline);
      if (!again.created()) {
        return Step.pass(
            CONDITIONAL_WRITE,
            "a second PutObject with If-None-Match: * of the probe was refused (412), as"
                + " exactly-once archiving needs");
      }
      return new Step(
          CONDITIONAL_WRITE,
          Status.WARN,
          "the store at "
              + S3Clients.endpointName(config)
              + " overwrote the probe although the write carried If-None-Match: *",
          "This store ignores conditional writes, so exactly-once does not hold: a redelivery"
              + " that re-forms a batch (a lost response, a split batch, a rebalance) overwrites"
              + " objects instead of meeting them, which can store records twice or replace an"
              + " object with a shorter one and drop records already acknowledged. Use AWS S3 or a"
              + " store that honours If-None-Match (recent MinIO, Ceph RGW, S3Proxy)",
          "ConditionalWritesIgnored");
    } catch (UploadException e) {
      return new Step(
          CONDITIONAL_WRITE,
          Status.WARN,
          "a second conditional write of the probe failed instead of being refused with 412",
          e.getMessage(),
          e.type().label());
    }
  }

  private Step probeDelete(String key) {
    try {
      s3.deleteObject(r -> r.bucket(config.bucketName()).key(key));
      return Step.pass(PROBE_DELETE, "deleted s3://" + config.bucketName() + "/" + key);
    } catch (SdkException e) {
      UploadException u = classifier.classify(Operation.DELETE_OBJECT, e, key, 1);
      String detail =
          u.type() == ErrorType.ACCESS_DENIED
              ? "skipped: deleting is not permitted, so the probe object s3://"
                  + config.bucketName()
                  + "/"
                  + key
                  + " was left behind (harmless; archiving never deletes)"
              : "the probe object s3://"
                  + config.bucketName()
                  + "/"
                  + key
                  + " could not be deleted and was left behind (harmless)";
      return new Step(PROBE_DELETE, Status.WARN, detail, u.getMessage(), u.type().label());
    }
  }

  private PreflightReport report(List<Step> steps, String probeKey) {
    ZonedDateTime now = clock.instant().atZone(config.timeZone());
    String topic = config.inputTopic().orElse("my-topic");
    var template = config.keyTemplate();
    KeyLayout layout =
        new KeyLayout(
            template.source(),
            template.exampleKey(topic, now, false),
            template.exampleKey(topic, now, true),
            probeKey,
            "Objects are written under s3://"
                + config.bucketName()
                + "/"
                + (config.keyPrefix().isEmpty() ? "" : config.keyPrefix() + "/")
                + " in folders of the "
                + config.partitionTime().name().toLowerCase(java.util.Locale.ROOT)
                + " time in "
                + config.timeZone()
                + (config.inputTopic().isEmpty() ? "; 'my-topic' stands for each topic's name" : "")
                + ". Records that cannot be written in the chosen format go under "
                + (config.keyPrefix().isEmpty() ? "" : config.keyPrefix() + "/")
                + "_errors/. Look there if files seem to be missing.");
    return new PreflightReport(
        config.title(),
        config.bucketName(),
        config.bucketRegion(),
        S3Clients.endpointName(config),
        credentials.describe(),
        steps,
        layout);
  }

  private String probePrefix() {
    return (config.keyPrefix().isEmpty() ? "" : config.keyPrefix() + "/") + "_preflight/";
  }

  /** Unique per run, so concurrent checks never delete each other's probe. */
  private String probeKey() {
    return probePrefix() + UUID.randomUUID() + ".txt";
  }

  private static Step fail(String name, UploadException e) {
    return new Step(name, Status.FAIL, e.type().label(), e.getMessage(), e.type().label());
  }
}
