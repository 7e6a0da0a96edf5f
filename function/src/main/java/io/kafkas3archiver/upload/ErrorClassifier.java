package io.kafkas3archiver.upload;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The one place that sorts S3 failures into retryable and fatal, and words each with the cause and
 * the fix (the seeds' troubleshooting advice). Messages never include credentials.
 */
public final class ErrorClassifier {
  private final String bucket;
  private final String region;
  private final String endpoint;
  private final String keyPrefix;

  public ErrorClassifier(String bucket, String region, String endpoint, String keyPrefix) {
    this.bucket = bucket;
    this.region = region;
    this.endpoint = endpoint;
    this.keyPrefix = keyPrefix;
  }

  public UploadException classify(Throwable failure, String key, int attempts) {
    ErrorType type = type(failure);
    String tries = " (" + attempts + (attempts == 1 ? " attempt)" : " attempts)");
    String message =
        switch (type) {
          case ACCESS_DENIED ->
              "AccessDenied writing s3://"
                  + bucket
                  + "/"
                  + key
                  + tries
                  + ": the function's"
                  + " credentials lack s3:PutObject on arn:aws:s3:::"
                  + bucket
                  + "/"
                  + prefixArn()
                  + ", or a bucket policy, KMS key policy or SCP denies it. Grant s3:PutObject"
                  + " (and kms:GenerateDataKey when SSE=aws:kms) to the role in use";
          case INVALID_CREDENTIALS ->
              "S3 rejected the credentials"
                  + tries
                  + " ("
                  + errorCode(failure)
                  + "): the access"
                  + " key does not exist or the secret key is wrong. Check the keys in"
                  + " CREDENTIALS_SECRET_ARN, or the role the function runs as";
          case CREDENTIALS_UNAVAILABLE ->
              "No AWS credentials could be resolved"
                  + tries
                  + ": "
                  + rootMessage(failure)
                  + ". Run the function with an execution role, or set CREDENTIALS_SECRET_ARN";
          case NO_SUCH_BUCKET ->
              "NoSuchBucket: bucket '"
                  + bucket
                  + "' does not exist"
                  + endpointNote()
                  + tries
                  + ". Check BUCKET_NAME (bucket names are global and case-sensitive) and create"
                  + " the bucket first";
          case WRONG_REGION ->
              "Wrong region: bucket '"
                  + bucket
                  + "' is in "
                  + bucketRegion(failure)
                  + ", function configured for "
                  + region
                  + tries
                  + ". Set BUCKET_REGION="
                  + bucketRegion(failure);
          case INVALID_REQUEST ->
              "S3 refused the request for s3://"
                  + bucket
                  + "/"
                  + key
                  + tries
                  + ": "
                  + errorCode(failure)
                  + " "
                  + rootMessage(failure)
                  + ". Check KEY_PREFIX/KEY_TEMPLATE and the SSE settings";
          case THROTTLED ->
              "S3 throttled the upload of s3://"
                  + bucket
                  + "/"
                  + key
                  + tries
                  + " ("
                  + errorCode(failure)
                  + "). The batch will be retried; if this persists, spread"
                  + " writes over more prefixes or lower the mapping's concurrency";
          case SERVER_ERROR ->
              "S3 answered with a server error for s3://"
                  + bucket
                  + "/"
                  + key
                  + tries
                  + " ("
                  + errorCode(failure)
                  + "). The batch will be retried";
          case NETWORK ->
              "Could not reach S3 at "
                  + endpoint
                  + tries
                  + ": "
                  + rootMessage(failure)
                  + ". Check the network path: a function in a VPC needs an S3 gateway endpoint"
                  + " or a NAT gateway; with AWS_ENDPOINT_URL_S3 set, check that the server is up";
          case TIMEOUT ->
              "The upload of s3://"
                  + bucket
                  + "/"
                  + key
                  + " timed out"
                  + tries
                  + " before the"
                  + " Lambda deadline. Raise the function's timeout or memory, or lower the batch"
                  + " size";
        };
    return new UploadException(type, message, attempts, failure);
  }

  /** The deadline came before an upload could succeed. */
  public UploadException deadlineReached(String key, int attempts) {
    return new UploadException(
        ErrorType.TIMEOUT,
        "The upload of s3://"
            + bucket
            + "/"
            + key
            + " ran out of time before the Lambda deadline ("
            + attempts
            + " attempts made). Raise the function's timeout or memory, or lower the"
            + " batch size",
        attempts,
        null);
  }

  static ErrorType type(Throwable failure) {
    if (failure instanceof S3Exception s3) {
      String code = s3.awsErrorDetails() == null ? "" : s3.awsErrorDetails().errorCode();
      code = code == null ? "" : code;
      int status = s3.statusCode();
      return switch (code) {
        case "AccessDenied", "AllAccessDisabled", "KMS.AccessDeniedException" ->
            ErrorType.ACCESS_DENIED;
        case "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "ExpiredToken",
            "InvalidToken",
            "TokenRefreshRequired" ->
            ErrorType.INVALID_CREDENTIALS;
        case "NoSuchBucket" -> ErrorType.NO_SUCH_BUCKET;
        case "PermanentRedirect",
            "AuthorizationHeaderMalformed",
            "IllegalLocationConstraintException" ->
            ErrorType.WRONG_REGION;
        case "SlowDown", "Throttling", "ThrottlingException", "RequestLimitExceeded" ->
            ErrorType.THROTTLED;
        // The body arrived damaged or short (a corruption or cut in transit); the next attempt
        // sends the same bytes again, so these are transient, not a bad request.
        case "RequestTimeout",
            "RequestTimeTooSkewed",
            "BadDigest",
            "XAmzContentSHA256Mismatch",
            "XAmzContentChecksumMismatch",
            "IncompleteBody" ->
            ErrorType.SERVER_ERROR;
        default -> {
          if (status == 301 || status == 307) {
            yield ErrorType.WRONG_REGION;
          }
          if (status == 503 || status == 429) {
            yield ErrorType.THROTTLED;
          }
          if (status >= 500) {
            yield ErrorType.SERVER_ERROR;
          }
          if (status == 403) {
            yield ErrorType.ACCESS_DENIED;
          }
          if (status == 404) {
            yield ErrorType.NO_SUCH_BUCKET;
          }
          yield ErrorType.INVALID_REQUEST;
        }
      };
    }
    if (failure instanceof ApiCallAttemptTimeoutException
        || failure instanceof ApiCallTimeoutException) {
      return ErrorType.TIMEOUT;
    }
    if (failure instanceof SdkClientException) {
      String message = String.valueOf(failure.getMessage());
      if (message.contains("Unable to load credentials")
          || message.contains("credentials provider")) {
        return ErrorType.CREDENTIALS_UNAVAILABLE;
      }
      Throwable root = root(failure);
      if (root instanceof SocketTimeoutException) {
        return ErrorType.TIMEOUT;
      }
      if (root instanceof ConnectException
          || root instanceof UnknownHostException
          || root instanceof IOException) {
        return ErrorType.NETWORK;
      }
      return ErrorType.NETWORK;
    }
    return ErrorType.SERVER_ERROR;
  }

  private String prefixArn() {
    return keyPrefix.isEmpty() ? "*" : keyPrefix + "/*";
  }

  private String endpointNote() {
    return endpoint.startsWith("https://s3.") ? " in this account's view" : " at " + endpoint;
  }

  private String bucketRegion(Throwable failure) {
    if (failure instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
      var header =
          s3.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-bucket-region");
      if (header.isPresent()) {
        return header.get();
      }
      String text = String.valueOf(s3.awsErrorDetails().errorMessage());
      var m = java.util.regex.Pattern.compile("expecting '([a-z0-9-]+)'").matcher(text);
      if (m.find()) {
        return m.group(1);
      }
    }
    return "another region";
  }

  private static String errorCode(Throwable failure) {
    if (failure instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
      return s3.awsErrorDetails().errorCode() + " " + s3.statusCode();
    }
    return failure.getClass().getSimpleName();
  }

  private static Throwable root(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static String rootMessage(Throwable t) {
    Throwable root = root(t);
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }
}
