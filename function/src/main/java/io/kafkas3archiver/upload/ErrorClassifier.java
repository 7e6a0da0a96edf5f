package io.kafkas3archiver.upload;

import java.net.SocketTimeoutException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The one place that sorts failures into retryable and fatal, and words each with the cause and the
 * fix (the seeds' troubleshooting advice): S3 calls, and the Secrets Manager and STS calls that
 * resolve credentials. Messages name the missing permission, the setting to verify and the number
 * of attempts; they never include credentials.
 */
public final class ErrorClassifier {
  private static final Pattern EXPECTING_REGION = Pattern.compile("expecting '([a-z0-9-]+)'");

  /** The S3 call that failed: it decides which permission an AccessDenied is about. */
  public enum Operation {
    PUT_OBJECT("s3:PutObject", "writing"),
    HEAD_OBJECT("s3:GetObject", "reading a stored object's offset range"),
    HEAD_BUCKET("s3:ListBucket", "checking the bucket"),
    GET_BUCKET_LOCATION("s3:GetBucketLocation", "reading the bucket's region"),
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
  }

  private final String bucket;
  private final String region;
  private final String endpoint;
  private final String keyPrefix;

  private final String rejectedKeysAdvice;

  public ErrorClassifier(String bucket, String region, String endpoint, String keyPrefix) {
    this(
        bucket,
        region,
        endpoint,
        keyPrefix,
        "Check the keys stored in CREDENTIALS_SECRET_ARN (after a rotation, update the secret: it is"
            + " re-read once per invocation after a rejection), or the role the function runs as");
  }

  /**
   * With advice for rejected keys that fits where they come from ({@link
   * CredentialsSource#rejectionAdvice()}).
   */
  public ErrorClassifier(
      String bucket, String region, String endpoint, String keyPrefix, String rejectedKeysAdvice) {
    this.bucket = bucket;
    this.region = region;
    this.endpoint = endpoint;
    this.keyPrefix = keyPrefix;
    this.rejectedKeysAdvice = rejectedKeysAdvice;
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
          type, credentialsMessage(type, credentials, tries), attempts, failure);
    }
    ErrorType type = type(failure);
    String target = key == null ? "bucket '" + bucket + "'" : "s3://" + bucket + "/" + key;
    String message =
        switch (type) {
          case ACCESS_DENIED -> accessDenied(op, target, key, tries);
          case INVALID_CREDENTIALS ->
              "S3 rejected the credentials"
                  + tries
                  + " ("
                  + errorCode(failure)
                  + "): the access key does not exist at "
                  + endpoint
                  + " or the secret key is wrong. "
                  + rejectedKeysAdvice;
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
                  + bucketRegion(failure).orElse("another region")
                  + ", function configured for "
                  + region
                  + tries
                  + ". Set BUCKET_REGION="
                  + bucketRegion(failure).orElse("<the bucket's region>");
          case INVALID_REQUEST ->
              "S3 refused the request for "
                  + target
                  + tries
                  + ": "
                  + errorCode(failure)
                  + " "
                  + rootMessage(failure)
                  + ". Check KEY_PREFIX/KEY_TEMPLATE and the SSE settings";
          case THROTTLED ->
              "S3 throttled the request for "
                  + target
                  + tries
                  + " ("
                  + errorCode(failure)
                  + "). The batch will be retried; if this persists, spread"
                  + " writes over more prefixes or lower the mapping's concurrency";
          case SERVER_ERROR ->
              "S3 answered with a server error for "
                  + target
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
          // Table errors are classified by the iceberg artifact, never from an S3 exception.
          case COMMIT_CONFLICT, CATALOG -> rootMessage(failure);
          case TIMEOUT ->
              "The request for "
                  + target
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

  private static String credentialsMessage(
      ErrorType type, CredentialsResolutionException e, String tries) {
    String arn = e.resource();
    return switch (e.step()) {
      case PARSE_SECRET ->
          "The secret CREDENTIALS_SECRET_ARN="
              + arn
              + " does not hold usable access keys"
              + tries
              + ": "
              + e.detail()
              + ". Store {\"accessKey\": \"...\", \"secretKey\": \"...\"} (or accessKeyId/"
              + "secretAccessKey, optionally sessionToken) as the secret's plaintext";
      case GET_SECRET ->
          switch (type) {
            case ACCESS_DENIED ->
                "AccessDenied reading CREDENTIALS_SECRET_ARN="
                    + arn
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "): the execution role lacks secretsmanager:GetSecretValue on the secret,"
                    + " or kms:Decrypt on its KMS key when that is a customer managed key. Grant"
                    + " them, and check that no resource policy on the secret denies it";
            case INVALID_CREDENTIALS ->
                "Secrets Manager rejected the execution role's credentials while reading "
                    + arn
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "). Check the role the function runs as";
            case NETWORK, TIMEOUT ->
                "Could not reach Secrets Manager to read CREDENTIALS_SECRET_ARN="
                    + arn
                    + tries
                    + ": "
                    + rootMessage(e)
                    + ". A function in a VPC needs a Secrets Manager interface endpoint or a NAT"
                    + " gateway; with AWS_ENDPOINT_URL_SECRETS_MANAGER set, check that the server"
                    + " is up";
            case THROTTLED, SERVER_ERROR ->
                "Secrets Manager failed to return CREDENTIALS_SECRET_ARN="
                    + arn
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "). The batch will be retried";
            default ->
                "CREDENTIALS_SECRET_ARN="
                    + arn
                    + " could not be read"
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "): check the ARN (copy it whole from the console, with its 6-character"
                    + " suffix), that the secret lives in region "
                    + CredentialsSource.arnRegion(arn).orElse("<the ARN's region>")
                    + ", and that it is not scheduled for deletion";
          };
      case ASSUME_ROLE ->
          switch (type) {
            case ACCESS_DENIED ->
                "AccessDenied assuming ROLE_ARN="
                    + arn
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "): the base credentials (the execution role, or the keys in"
                    + " CREDENTIALS_SECRET_ARN) need sts:AssumeRole on that role, and the role's"
                    + " trust policy must trust them; when it requires an external ID"
                    + " (sts:ExternalId), EXTERNAL_ID must match it exactly. Check ROLE_ARN and"
                    + " EXTERNAL_ID";
            case INVALID_CREDENTIALS ->
                "STS rejected the base credentials used to assume ROLE_ARN="
                    + arn
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "): when they come from CREDENTIALS_SECRET_ARN, check the keys in the"
                    + " secret (it is re-read once per invocation after a rejection)";
            case NETWORK, TIMEOUT ->
                "Could not reach STS to assume ROLE_ARN="
                    + arn
                    + tries
                    + ": "
                    + rootMessage(e)
                    + ". A function in a VPC needs an STS interface endpoint or a NAT gateway;"
                    + " with AWS_ENDPOINT_URL_STS set, check that the server is up";
            case THROTTLED, SERVER_ERROR ->
                "STS failed to assume ROLE_ARN="
                    + arn
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "). The batch will be retried";
            default ->
                "ROLE_ARN="
                    + arn
                    + " could not be assumed"
                    + tries
                    + " ("
                    + serviceCode(e)
                    + "): check the role's ARN, that STS is enabled in this region, and the"
                    + " role's maximum session duration";
          };
    };
  }

  private String accessDenied(Operation op, String target, String key, String tries) {
    String resource =
        op == Operation.HEAD_BUCKET || op == Operation.GET_BUCKET_LOCATION
            ? "arn:aws:s3:::" + bucket
            : "arn:aws:s3:::" + bucket + "/" + prefixArn(op, key);
    return "AccessDenied "
        + op.doing
        + " "
        + target
        + tries
        + ": the function's credentials lack "
        + op.permission
        + " on "
        + resource
        + ", or a bucket policy, KMS key policy or SCP denies it. Grant "
        + op.permission
        + (op == Operation.PUT_OBJECT ? " (and kms:GenerateDataKey when SSE=aws:kms)" : "")
        + " to the role in use";
  }

  /** Writes need the whole prefix; only the preflight's probe is ever deleted. */
  private String prefixArn(Operation op, String key) {
    if (op == Operation.DELETE_OBJECT && key != null && key.contains("/_preflight/")) {
      return key.substring(0, key.indexOf("/_preflight/")) + "/_preflight/*";
    }
    return keyPrefix.isEmpty() ? "*" : keyPrefix + "/*";
  }

  private String endpointNote() {
    return endpoint.startsWith("https://s3.") ? " in this account's view" : " at " + endpoint;
  }

  private static CredentialsResolutionException find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof CredentialsResolutionException cre) {
        return cre;
      }
    }
    return null;
  }

  private static AwsServiceException findService(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof AwsServiceException s) {
        return s;
      }
    }
    return null;
  }

  private static String serviceCode(CredentialsResolutionException e) {
    AwsServiceException s = findService(e.getCause());
    if (s == null) {
      return e.getCause() == null ? "no answer" : root(e).getClass().getSimpleName();
    }
    String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
    return (code == null ? "HTTP" : code) + " " + s.statusCode();
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
