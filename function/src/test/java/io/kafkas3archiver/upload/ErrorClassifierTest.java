package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.CredentialsResolutionException.Step;
import io.kafkas3archiver.upload.ErrorClassifier.Operation;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.secretsmanager.model.SecretsManagerException;
import software.amazon.awssdk.services.sts.model.StsException;

class ErrorClassifierTest {
  private static final String SECRET_ARN =
      "arn:aws:secretsmanager:ap-south-1:123456789012:secret:archiver-AbCdEf";
  private static final String ROLE_ARN = "arn:aws:iam::210987654321:role/writer";

  private final ErrorClassifier classifier =
      new ErrorClassifier("my-bucket", "ap-south-1", "https://s3.ap-south-1.amazonaws.com", "raw");

  @Test
  void shouldNameTheBucketsRegionFromA301PermanentRedirect() {
    // Given S3's answer for a bucket in another region, with x-amz-bucket-region
    S3Exception redirect =
        s3Error(301, "PermanentRedirect", "must be addressed using the endpoint", "eu-west-1");

    // When it is classified
    UploadException e = classifier.classify(redirect, "raw/t/k.ndjson", 1);

    // Then it is a fatal WrongRegion that names both regions and the fix
    assertThat(e.type()).isEqualTo(ErrorType.WRONG_REGION);
    assertThat(e.type().retryable()).isFalse();
    assertThat(e)
        .hasMessageContaining(
            "bucket 'my-bucket' is in eu-west-1, function configured for ap-south-1")
        .hasMessageContaining("Set BUCKET_REGION=eu-west-1")
        .hasMessageContaining("(1 attempt)");
  }

  @Test
  void shouldNameTheBucketsRegionFromA301HeadAnswerWithoutBody() {
    S3Exception head = s3Error(301, null, null, "us-west-2");

    UploadException e = classifier.classify(Operation.HEAD_BUCKET, head, null, 1);

    assertThat(e.type()).isEqualTo(ErrorType.WRONG_REGION);
    assertThat(e).hasMessageContaining("is in us-west-2, function configured for ap-south-1");
  }

  @Test
  void shouldReadTheRegionFromAnAuthorizationHeaderMalformedMessage() {
    S3Exception malformed =
        s3Error(
            400,
            "AuthorizationHeaderMalformed",
            "The authorization header is malformed; the region 'ap-south-1' is wrong; expecting"
                + " 'eu-central-1'",
            null);

    UploadException e = classifier.classify(malformed, "raw/t/k.ndjson", 2);

    assertThat(e.type()).isEqualTo(ErrorType.WRONG_REGION);
    assertThat(e)
        .hasMessageContaining("is in eu-central-1, function configured for ap-south-1")
        .hasMessageContaining("(2 attempts)");
    assertThat(ErrorClassifier.bucketRegion(malformed)).contains("eu-central-1");
  }

  @ParameterizedTest
  @CsvSource({
    "PUT_OBJECT, s3:PutObject, arn:aws:s3:::my-bucket/raw/*",
    "HEAD_BUCKET, s3:ListBucket, arn:aws:s3:::my-bucket",
    "GET_BUCKET_LOCATION, s3:GetBucketLocation, arn:aws:s3:::my-bucket",
    "GET_OBJECT_LOCK, s3:GetBucketObjectLockConfiguration, arn:aws:s3:::my-bucket",
  })
  void shouldNameTheMissingPermissionOfEachCall(Operation op, String permission, String arn) {
    S3Exception denied = s3Error(403, "AccessDenied", "Access Denied", null);

    UploadException e =
        classifier.classify(op, denied, op == Operation.PUT_OBJECT ? "raw/t/k" : null, 3);

    assertThat(e.type()).isEqualTo(ErrorType.ACCESS_DENIED);
    assertThat(e)
        .hasMessageContaining(permission + " on " + arn)
        .hasMessageContaining("3 attempts");
  }

  @Test
  void shouldScopeTheDeletePermissionToThePreflightPrefix() {
    S3Exception denied = s3Error(403, "AccessDenied", "Access Denied", null);

    UploadException e =
        classifier.classify(Operation.DELETE_OBJECT, denied, "raw/_preflight/abc.txt", 1);

    assertThat(e)
        .hasMessageContaining("s3:DeleteObject on arn:aws:s3:::my-bucket/raw/_preflight/*");
  }

  @ParameterizedTest
  @CsvSource({
    "InvalidAccessKeyId, 403, INVALID_CREDENTIALS, false",
    "SignatureDoesNotMatch, 403, INVALID_CREDENTIALS, false",
    "NoSuchBucket, 404, NO_SUCH_BUCKET, false",
    "SlowDown, 503, THROTTLED, true",
    "InternalError, 500, SERVER_ERROR, true",
    "InvalidArgument, 400, INVALID_REQUEST, false",
  })
  void shouldSortS3ErrorsIntoRetryableAndFatal(
      String code, int status, ErrorType type, boolean retryable) {
    UploadException e = classifier.classify(s3Error(status, code, "x", null), "raw/k", 1);

    assertThat(e.type()).isEqualTo(type);
    assertThat(e.type().retryable()).isEqualTo(retryable);
  }

  @Test
  void shouldPointAtTheSecretArnWhenSecretsManagerCannotFindIt() {
    var notFound = service(SecretsManagerException.builder(), 400, "ResourceNotFoundException");

    UploadException e =
        classifier.classify(
            CredentialsResolutionException.of(Step.GET_SECRET, SECRET_ARN, notFound), "k", 1);

    assertThat(e.type()).isEqualTo(ErrorType.CREDENTIALS_UNAVAILABLE);
    assertThat(e)
        .hasMessageContaining("CREDENTIALS_SECRET_ARN=" + SECRET_ARN)
        .hasMessageContaining("6-character suffix")
        .hasMessageContaining("region ap-south-1");
  }

  @Test
  void shouldNameGetSecretValueWhenTheSecretIsDenied() {
    var denied = service(SecretsManagerException.builder(), 400, "AccessDeniedException");

    UploadException e =
        classifier.classify(
            CredentialsResolutionException.of(Step.GET_SECRET, SECRET_ARN, denied), "k", 1);

    assertThat(e.type()).isEqualTo(ErrorType.ACCESS_DENIED);
    assertThat(e)
        .hasMessageContaining("secretsmanager:GetSecretValue")
        .hasMessageContaining("kms:Decrypt");
  }

  @Test
  void shouldNameAssumeRoleAndTheExternalIdWhenStsDenies() {
    var denied = service(StsException.builder(), 403, "AccessDenied");

    UploadException e =
        classifier.classify(
            SdkClientException.create(
                "Unable to load credentials",
                CredentialsResolutionException.of(Step.ASSUME_ROLE, ROLE_ARN, denied)),
            "k",
            1);

    assertThat(e.type()).isEqualTo(ErrorType.ACCESS_DENIED);
    assertThat(e)
        .hasMessageContaining("sts:AssumeRole")
        .hasMessageContaining("ROLE_ARN=" + ROLE_ARN)
        .hasMessageContaining("EXTERNAL_ID");
  }

  @Test
  void shouldRetrySecretsManagerThatCannotBeReached() {
    var down =
        SdkClientException.create(
            "Unable to execute HTTP request", new ConnectException("refused"));

    UploadException e =
        classifier.classify(
            CredentialsResolutionException.of(Step.GET_SECRET, SECRET_ARN, down), "k", 1);

    assertThat(e.type()).isEqualTo(ErrorType.NETWORK);
    assertThat(e.type().retryable()).isTrue();
    assertThat(e).hasMessageContaining("Secrets Manager interface endpoint");
  }

  @Test
  void shouldDescribeABadSecretByItsShapeOnly() {
    UploadException e =
        classifier.classify(
            CredentialsResolutionException.badSecret(SECRET_ARN, "lacks \"secretKey\""), "k", 1);

    assertThat(e.type()).isEqualTo(ErrorType.CREDENTIALS_UNAVAILABLE);
    assertThat(e).hasMessageContaining("does not hold usable access keys");
    assertThat(e.getCause()).hasNoCause();
  }

  private static S3Exception s3Error(int status, String code, String message, String region) {
    SdkHttpResponse.Builder response = SdkHttpResponse.builder().statusCode(status);
    if (region != null) {
      response.putHeader("x-amz-bucket-region", region);
    }
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .message(message)
            .awsErrorDetails(
                AwsErrorDetails.builder()
                    .errorCode(code)
                    .errorMessage(message)
                    .serviceName("S3")
                    .sdkHttpResponse(response.build())
                    .build())
            .build();
  }

  private static <T extends software.amazon.awssdk.awscore.exception.AwsServiceException> T service(
      software.amazon.awssdk.awscore.exception.AwsServiceException.Builder builder,
      int status,
      String code) {
    @SuppressWarnings("unchecked")
    T e =
        (T)
            builder
                .statusCode(status)
                .awsErrorDetails(
                    AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(code)
                        .sdkHttpResponse(SdkHttpResponse.builder().statusCode(status).build())
                        .build())
                .build();
    return e;
  }
}
