package io.kafkas3archiver.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.preflight.PreflightReport.Status;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.upload.CredentialsSource;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetBucketLocationRequest;
import software.amazon.awssdk.services.s3.model.GetBucketLocationResponse;
import software.amazon.awssdk.services.s3.model.GetObjectLockConfigurationRequest;
import software.amazon.awssdk.services.s3.model.GetObjectLockConfigurationResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectLockConfiguration;
import software.amazon.awssdk.services.s3.model.ObjectLockEnabled;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The preflight's decisions on answers no local server gives: a bucket in another region (301 with
 * x-amz-bucket-region), and permissions denied for ListBucket, PutObject or DeleteObject.
 */
class PreflightTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-04T05:06:07Z"), ZoneOffset.UTC);

  @Test
  void shouldReportTheBucketsRegionWhenItIsNotTheConfiguredOne() {
    // Given S3 answers with a 301 naming eu-west-1
    FakeS3 s3 = new FakeS3();
    s3.list = error(301, "PermanentRedirect", "eu-west-1");

    // When the check runs for a function configured for ap-south-1
    PreflightReport report = run(s3, Map.of());

    // Then the bucket exists, the region step fails with both regions, and nothing is written
    assertThat(report.step(Preflight.BUCKET).status()).isEqualTo(Status.PASS);
    var region = report.step(Preflight.REGION);
    assertThat(region.status()).isEqualTo(Status.FAIL);
    assertThat(region.detail())
        .isEqualTo("bucket 'my-bucket' is in eu-west-1, function configured for ap-south-1");
    assertThat(region.advice()).contains("BUCKET_REGION=eu-west-1");
    assertThat(region.errorType()).isEqualTo("WrongRegion");
    assertThat(report.step(Preflight.PROBE_WRITE).status()).isEqualTo(Status.SKIPPED);
    assertThat(s3.puts).isEmpty();
    assertThat(report.ok()).isFalse();
  }

  @Test
  void shouldWarnAndLeaveTheProbeWhenDeletingIsNotPermitted() {
    FakeS3 s3 = new FakeS3();
    s3.delete = error(403, "AccessDenied", null);

    PreflightReport report = run(s3, Map.of());

    var delete = report.step(Preflight.PROBE_DELETE);
    assertThat(delete.status()).isEqualTo(Status.WARN);
    assertThat(delete.detail()).contains("left behind");
    assertThat(delete.advice())
        .contains("s3:DeleteObject on arn:aws:s3:::my-bucket/raw/_preflight/*");
    assertThat(report.ok()).isTrue();
  }

  @Test
  void shouldWarnWithoutListBucketAndStillProbeTheWrite() {
    // Given ListBucket is denied, but HeadBucket's 403 still carries the region header
    FakeS3 s3 = new FakeS3();
    s3.list = error(403, "AccessDenied", null);
    s3.head = error(403, null, "ap-south-1");

    PreflightReport report = run(s3, Map.of());

    assertThat(report.step(Preflight.BUCKET).status()).isEqualTo(Status.WARN);
    assertThat(report.step(Preflight.BUCKET).advice()).contains("s3:ListBucket");
    assertThat(report.step(Preflight.REGION).status()).isEqualTo(Status.PASS);
    assertThat(report.step(Preflight.PROBE_WRITE).status()).isEqualTo(Status.PASS);
    assertThat(report.ok()).isTrue();
  }

  @Test
  void shouldFailTheProbeWriteWithThePutObjectPermission() {
    FakeS3 s3 = new FakeS3();
    s3.put = error(403, "AccessDenied", null);

    PreflightReport report = run(s3, Map.of());

    var write = report.step(Preflight.PROBE_WRITE);
    assertThat(write.status()).isEqualTo(Status.FAIL);
    assertThat(write.advice()).contains("s3:PutObject on arn:aws:s3:::my-bucket/raw/*");
    assertThat(report.step(Preflight.PROBE_DELETE).status()).isEqualTo(Status.SKIPPED);
  }

  @Test
  void shouldApplySseAndTheKmsKeyToTheProbeAndShowTheKeyLayout() {
    FakeS3 s3 = new FakeS3();

    PreflightReport report =
        run(s3, Map.of("SSE", "aws:kms", "KMS_KEY_ID", "alias/archive", "INPUT_TOPIC", "orders"));

    assertThat(report.ok()).isTrue();
    assertThat(report.step(Preflight.CONDITIONAL_WRITE).status()).isEqualTo(Status.PASS);
    assertThat(s3.puts).hasSize(1);
    PutObjectRequest put = s3.puts.get(0);
    assertThat(put.ifNoneMatch()).isEqualTo("*");
    assertThat(put.serverSideEncryptionAsString()).isEqualTo("aws:kms");
    assertThat(put.ssekmsKeyId()).isEqualTo("alias/archive");
    assertThat(put.key()).startsWith("raw/_preflight/").endsWith(".txt");
    assertThat(report.step(Preflight.PROBE_WRITE).detail()).contains("SSE=aws:kms");
    assertThat(report.keyLayout().exampleKey())
        .startsWith("raw/orders/year=2026/month=03/day=04/hour=05/")
        .endsWith(".ndjson");
    assertThat(report.keyLayout().exampleErrorKey()).startsWith("raw/_errors/orders/year=2026/");
    assertThat(report.toJson()).contains("\"exampleKey\":\"raw/orders/year=2026/month=03/");
  }

  @Test
  void shouldWarnWhenTheStoreOverwritesDespiteIfNoneMatch() {
    FakeS3 s3 = new FakeS3();
    s3.honoursIfNoneMatch = false;

    PreflightReport report = run(s3, Map.of());

    var step = report.step(Preflight.CONDITIONAL_WRITE);
    assertThat(step.status()).isEqualTo(Status.WARN);
    assertThat(step.errorType()).isEqualTo("ConditionalWritesIgnored");
    assertThat(step.advice()).contains("exactly-once does not hold", "If-None-Match");
    assertThat(report.ok()).as("a warning does not fail the check").isTrue();
    assertThat(s3.puts).hasSize(2);
  }

  @Test
  void shouldNameTheLockAndKeepTheProbeOnABucketWithDefaultRetention() {
    // Given a bucket with Object Lock and a default retention of 30 days in governance mode
    FakeS3 s3 = new FakeS3();
    s3.lock = locked(ObjectLockRetentionMode.GOVERNANCE, 30);

    // When the check runs
    PreflightReport report = run(s3, Map.of());

    // Then it names the lock, writes the probe (conditionally, refused the second time) and
    // deletes nothing: a delete would only add a delete marker over a version kept 30 days
    var lock = report.step(Preflight.OBJECT_LOCK);
    assertThat(lock.status()).isEqualTo(Status.PASS);
    assertThat(lock.detail())
        .contains("bucket 'my-bucket' has Object Lock (GOVERNANCE, 30 days)")
        .contains("left in place");
    assertThat(report.step(Preflight.PROBE_WRITE).status()).isEqualTo(Status.PASS);
    assertThat(report.step(Preflight.CONDITIONAL_WRITE).status()).isEqualTo(Status.PASS);
    var delete = report.step(Preflight.PROBE_DELETE);
    assertThat(delete.status()).isEqualTo(Status.SKIPPED);
    assertThat(delete.detail())
        .startsWith("skipped: bucket has Object Lock (GOVERNANCE, 30 days), so the probe")
        .contains("stays until its retention ends");
    assertThat(s3.deletes).isZero();
    assertThat(report.ok()).isTrue();
    assertThat(report.toJson()).contains("\"name\":\"objectLock\",\"status\":\"PASS\"");
  }

  @Test
  void shouldNameComplianceModeAndYears() {
    FakeS3 s3 = new FakeS3();
    s3.lock =
        GetObjectLockConfigurationResponse.builder()
            .objectLockConfiguration(
                b ->
                    b.objectLockEnabled(ObjectLockEnabled.ENABLED)
                        .rule(
                            r ->
                                r.defaultRetention(
                                    d -> d.mode(ObjectLockRetentionMode.COMPLIANCE).years(7))))
            .build();

    PreflightReport report = run(s3, Map.of());

    assertThat(report.step(Preflight.OBJECT_LOCK).detail())
        .contains("Object Lock (COMPLIANCE, 7 years)");
    assertThat(report.step(Preflight.PROBE_DELETE).status()).isEqualTo(Status.SKIPPED);
    assertThat(s3.deletes).isZero();
  }

  @Test
  void shouldDeleteTheProbeWhenTheLockHasNoDefaultRetention() {
    // Lock enabled but no default rule: new versions carry no retention, a delete works as usual
    FakeS3 s3 = new FakeS3();
    s3.lock =
        GetObjectLockConfigurationResponse.builder()
            .objectLockConfiguration(b -> b.objectLockEnabled(ObjectLockEnabled.ENABLED))
            .build();

    PreflightReport report = run(s3, Map.of());

    assertThat(report.step(Preflight.OBJECT_LOCK).detail())
        .contains("Object Lock (no default retention)");
    assertThat(report.step(Preflight.PROBE_DELETE).status()).isEqualTo(Status.PASS);
    assertThat(s3.deletes).isEqualTo(1);
  }

  @Test
  void shouldReportNoLockOnA404AndDeleteTheProbe() {
    FakeS3 s3 = new FakeS3(); // answers 404 ObjectLockConfigurationNotFoundError

    PreflightReport report = run(s3, Map.of());

    assertThat(report.step(Preflight.OBJECT_LOCK).status()).isEqualTo(Status.PASS);
    assertThat(report.step(Preflight.OBJECT_LOCK).detail())
        .isEqualTo("bucket 'my-bucket' has no Object Lock");
    assertThat(report.step(Preflight.PROBE_DELETE).status()).isEqualTo(Status.PASS);
    assertThat(s3.deletes).isEqualTo(1);
  }

  @Test
  void shouldWarnThatItCouldNotCheckTheLockWithoutThePermission() {
    FakeS3 s3 = new FakeS3();
    s3.lockError = error(403, "AccessDenied", null);

    PreflightReport report = run(s3, Map.of());

    var lock = report.step(Preflight.OBJECT_LOCK);
    assertThat(lock.status()).isEqualTo(Status.WARN);
    assertThat(lock.detail())
        .isEqualTo(
            "could not check whether bucket 'my-bucket' has Object Lock:"
                + " s3:GetBucketObjectLockConfiguration is not granted");
    assertThat(lock.advice())
        .contains("s3:GetBucketObjectLockConfiguration on arn:aws:s3:::my-bucket,")
        .contains("only adds a delete marker");
    assertThat(lock.errorType()).isEqualTo("AccessDenied");
    // the rest runs as on any bucket
    assertThat(report.step(Preflight.PROBE_DELETE).status()).isEqualTo(Status.PASS);
    assertThat(report.ok()).isTrue();
  }

  @Test
  void shouldTreatAStoreWithoutTheCallAsUnlocked() {
    FakeS3 s3 = new FakeS3();
    s3.lockError = error(501, "NotImplemented", null);

    PreflightReport report = run(s3, Map.of());

    assertThat(report.step(Preflight.OBJECT_LOCK).status()).isEqualTo(Status.PASS);
    assertThat(report.step(Preflight.OBJECT_LOCK).detail())
        .contains("does not offer Object Lock (NotImplemented)");
    assertThat(s3.deletes).isEqualTo(1);
  }

  private static GetObjectLockConfigurationResponse locked(ObjectLockRetentionMode mode, int days) {
    return GetObjectLockConfigurationResponse.builder()
        .objectLockConfiguration(
            ObjectLockConfiguration.builder()
                .objectLockEnabled(ObjectLockEnabled.ENABLED)
                .rule(r -> r.defaultRetention(d -> d.mode(mode).days(days)))
                .build())
        .build();
  }

  private static PreflightReport run(FakeS3 s3, Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "my-bucket");
    env.put("BUCKET_REGION", "ap-south-1");
    env.put("KEY_PREFIX", "raw");
    env.put("AWS_ACCESS_KEY_ID", "AKEXEC");
    env.put("AWS_SECRET_ACCESS_KEY", "SKEXEC");
    env.putAll(overrides);
    ArchiverConfig config = ArchiverConfig.fromEnv(env);
    CredentialsSource credentials = CredentialsSource.from(config, env::get);
    var store = new S3ObjectStore(s3, config, S3ObjectStore.classifier(config), credentials);
    return new Preflight(config, credentials, s3, store, CLOCK)
        .run(Deadline.in(30_000, Clock.systemUTC()));
  }

  private static S3Exception error(int status, String code, String region) {
    SdkHttpResponse.Builder response = SdkHttpResponse.builder().statusCode(status);
    if (region != null) {
      response.putHeader("x-amz-bucket-region", region);
    }
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .awsErrorDetails(
                AwsErrorDetails.builder()
                    .errorCode(code)
                    .errorMessage(code)
                    .sdkHttpResponse(response.build())
                    .build())
            .build();
  }

  /** Answers like a healthy bucket in ap-south-1 unless told to throw. */
  private static final class FakeS3 implements S3Client {
    S3Exception list;
    S3Exception head;
    S3Exception put;
    boolean honoursIfNoneMatch = true;
    S3Exception delete;
    int deletes;
    GetObjectLockConfigurationResponse lock;
    S3Exception lockError;
    final List<PutObjectRequest> puts = new ArrayList<>();

    @Override
    public GetObjectLockConfigurationResponse getObjectLockConfiguration(
        GetObjectLockConfigurationRequest r) {
      if (lockError != null) {
        throw lockError;
      }
      if (lock == null) {
        throw error(404, "ObjectLockConfigurationNotFoundError", null);
      }
      return lock;
    }

    @Override
    public ListObjectsV2Response listObjectsV2(ListObjectsV2Request r) {
      if (list != null) {
        throw list;
      }
      return ListObjectsV2Response.builder().build();
    }

    @Override
    public HeadBucketResponse headBucket(HeadBucketRequest r) {
      if (head != null) {
        throw head;
      }
      return HeadBucketResponse.builder().bucketRegion("ap-south-1").build();
    }

    @Override
    public GetBucketLocationResponse getBucketLocation(GetBucketLocationRequest r) {
      return GetBucketLocationResponse.builder().locationConstraint("ap-south-1").build();
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest r, RequestBody body) {
      if (put != null) {
        throw put;
      }
      boolean exists = puts.stream().anyMatch(p -> p.key().equals(r.key()));
      if (honoursIfNoneMatch && exists && "*".equals(r.ifNoneMatch())) {
        throw error(412, "PreconditionFailed", null);
      }
      puts.add(r);
      return PutObjectResponse.builder().build();
    }

    @Override
    public DeleteObjectResponse deleteObject(DeleteObjectRequest r) {
      if (delete != null) {
        throw delete;
      }
      deletes++;
      return DeleteObjectResponse.builder().build();
    }

    @Override
    public String serviceName() {
      return "s3";
    }

    @Override
    public void close() {}
  }
}
