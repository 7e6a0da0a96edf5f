package io.kafkas3archiver.upload;

import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import java.net.SocketTimeoutException;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The one place that sorts failures into retryable and fatal: S3 calls, and the Secrets Manager and
 * STS calls that resolve credentials. {@link ErrorAdvice} words each with the cause and the fix.
 */
public final class ErrorClassifier {
  private static final Pattern EXPECTING_REGION = Pattern.compile("expecting '([a-z0-9-]+)'");

  /** The S3 call that failed: it decides which permission an AccessDenied is about. */
  public enum Operation {
    PUT_OBJECT("s3:PutObject", "writing"),
    HEAD_OBJECT("s3:GetObject", "reading a stored object's offset range"),
    GET_OBJECT("s3:GetObject", "reading a topic's stored schema"),
    HEAD_BUCKET("s3:ListBucket", "checking the bucket"),
    GET_BUCKET_LOCATION("s3:GetBucketLocation", "reading the bucket's region"),
    GET_OBJECT_LOCK(
        "s3:GetBucketObjectLockConfiguration", "reading the Object Lock configuration of"),
    DELETE_OBJECT("s3:DeleteObject", "deleting");

    private final String permission;
    private final String doing;

    Operation(String permission, String doing) {
      this.permission = permission;
      this.doing = doing;
    }

    public String permission() {
      return permission;
    }

    String doing() {
      return doing;
    }
  }

  /** What to check when S3 rejects keys whose source is not known here. */
  static final String REJECTED_KEYS_ADVICE =
      "Check the keys stored in CREDENTIALS_SECRET_ARN (after a rotation, update the secret: it is"
          + " re-read once per invocation after a rejection), or the role the function runs as";

  private final ErrorAdvice advice;

  public ErrorClassifier(String bucket, String region, String endpoint, String keyPrefix) {
    this(bucket, region, endpoint, keyPrefix, REJECTED_KEYS_ADVICE);
  }

  /**
   * With advice for rejected keys that fits where they come from ({@link
   * CredentialsSource#rejectionAdvice()}).
   */
  public ErrorClassifier(
      String bucket, String region, String endpoint, String keyPrefix, String rejectedKeysAdvice) {
    this(bucket, region, endpoint, keyPrefix, rejectedKeysAdvice, UnaryOperator.identity());
  }

  /**
   * With {@code shownKey}, how messages show a key ({@code ArchiverConfig.shownKey}: record content
   * masked). A failure whose own text would quote a masked key is carried as a {@link
   * ScrubbedFailure}, so the exception chain the runtime prints holds the shown key only.
   */
  public ErrorClassifier(
      String bucket,
      String region,
      String endpoint,
      String keyPrefix,
      String rejectedKeysAdvice,
      UnaryOperator<String> shownKey) {
    this.advice =
        new ErrorAdvice(bucket, region, endpoint, keyPrefix, rejectedKeysAdvice, shownKey);
  }

  /** A failed PutObject of {@code key}. */
  public UploadException classify(Throwable failure, String key, int attempts) {
    return classify(Operation.PUT_OBJECT, failure, key, attempts);
  }

  /** A failed S3 call; {@code key} is null for bucket-level calls. */
  public UploadException classify(Operation op, Throwable failure, String key, int attempts) {
    String tries = " (" + attempts + (attempts == 1 ? " attempt)" : " attempts)");
    CredentialsResolutionException credentials = find(failure);
    if (credentials != null) {
      ErrorType type = credentialsType(credentials);
      return new UploadException(
          type, ErrorAdvice.forCredentials(type, credentials, tries), attempts, failure);
    }
    ErrorType type = type(failure);
    String message = advice.forS3(type, op, failure, key, tries);
    Throwable cause =
        advice.masks(key) ? ScrubbedFailure.of(failure, text -> advice.scrub(text, key)) : failure;
    return new UploadException(type, message, attempts, cause);
  }

  /** The deadline came before an upload could succeed. */
  public UploadException deadlineReached(String key, int attempts) {
    return new UploadException(
        ErrorType.TIMEOUT, advice.deadlineReached(key, attempts), attempts, null);
  }

  /**
   * The region S3 says the bucket is in: the {@code x-amz-bucket-region} header of a 301/400
   * answer, or the region named in an AuthorizationHeaderMalformed message.
   */
  public static Optional<String> bucketRegion(Throwable failure) {
    if (failure instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
      var response = s3.awsErrorDetails().sdkHttpResponse();
      if (response != null) {
        var header = response.firstMatchingHeader("x-amz-bucket-region");
        if (header.isPresent() && !header.get().isBlank()) {
          return header;
        }
      }
      Matcher m = EXPECTING_REGION.matcher(String.valueOf(s3.awsErrorDetails().errorMessage()));
      if (m.find()) {
        return Optional.of(m.group(1));
      }
    }
    return Optional.empty();
  }

  static ErrorType type(Throwable failure) {
    CredentialsResolutionException credentials = find(failure);
    if (credentials != null) {
      return credentialsType(credentials);
    }
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
        default -> serviceType(code, status);
      };
    }
    return transportType(failure);
  }

  /** Retryable and fatal for a service error outside the codes each service names. */
  private static ErrorType serviceType(String code, int status) {
    return switch (code) {
      case "SlowDown",
          "Throttling",
          "ThrottlingException",
          "RequestLimitExceeded",
          "TooManyRequestsException" ->
          ErrorType.THROTTLED;
      // BadDigest ... IncompleteBody: the body arrived damaged or short (a corruption or cut in
      // transit); the next attempt sends the same bytes again, so these are transient.
      case "RequestTimeout",
          "RequestTimeTooSkewed",
          "InternalServiceError",
          "InternalFailure",
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

  /** Client-side failures: no answer, or no credentials. */
  private static ErrorType transportType(Throwable failure) {
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
      // Connection refused, unknown host, resets: everything below the HTTP answer.
      return root(failure) instanceof SocketTimeoutException
          ? ErrorType.TIMEOUT
          : ErrorType.NETWORK;
    }
    return ErrorType.SERVER_ERROR;
  }

  private static ErrorType credentialsType(CredentialsResolutionException e) {
    if (e.step() == CredentialsResolutionException.Step.PARSE_SECRET) {
      return ErrorType.CREDENTIALS_UNAVAILABLE;
    }
    AwsServiceException service = findService(e.getCause());
    if (service == null) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      ErrorType transport = transportType(cause);
      return transport == ErrorType.SERVER_ERROR ? ErrorType.CREDENTIALS_UNAVAILABLE : transport;
    }
    String code = service.awsErrorDetails() == null ? "" : service.awsErrorDetails().errorCode();
    code = code == null ? "" : code;
    return switch (code) {
      case "AccessDenied", "AccessDeniedException", "DecryptionFailure" -> ErrorType.ACCESS_DENIED;
      case "InvalidClientTokenId",
          "UnrecognizedClientException",
          "SignatureDoesNotMatch",
          "InvalidSignatureException",
          "ExpiredToken",
          "ExpiredTokenException" ->
          ErrorType.INVALID_CREDENTIALS;
      case "ResourceNotFoundException",
          "InvalidRequestException",
          "InvalidParameterException",
          "RegionDisabledException",
          "MalformedPolicyDocument",
          "PackedPolicyTooLarge",
          "ValidationError" ->
          ErrorType.CREDENTIALS_UNAVAILABLE;
      default -> {
        ErrorType t = serviceType(code, service.statusCode());
        yield t == ErrorType.NO_SUCH_BUCKET || t == ErrorType.WRONG_REGION
            ? ErrorType.CREDENTIALS_UNAVAILABLE
            : t;
      }
    };
  }

  private static CredentialsResolutionException find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof CredentialsResolutionException cre) {
        return cre;
      }
    }
    return null;
  }

  static AwsServiceException findService(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof AwsServiceException s) {
        return s;
      }
    }
    return null;
  }

  static String serviceCode(CredentialsResolutionException e) {
    AwsServiceException s = findService(e.getCause());
    if (s == null) {
      return e.getCause() == null ? "no answer" : root(e).getClass().getSimpleName();
    }
    String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
    return (code == null ? "HTTP" : code) + " " + s.statusCode();
  }

  static String errorCode(Throwable failure) {
    if (failure instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
      return s3.awsErrorDetails().errorCode() + " " + s3.statusCode();
    }
    return failure.getClass().getSimpleName();
  }

  static Throwable root(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  static String rootMessage(Throwable t) {
    Throwable root = root(t);
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }
}
