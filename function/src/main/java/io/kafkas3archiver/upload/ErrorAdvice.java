package io.kafkas3archiver.upload;

import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.upload.ErrorClassifier.Operation;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * The words of each failure {@link ErrorClassifier} sorts: the cause and the fix (the seeds'
 * troubleshooting advice). Messages name the missing permission, the setting to verify and the
 * number of attempts; they never include credentials. Keys are quoted through {@code shownKey},
 * which masks the segments a key template fills from record content (DESIGN §6), and so is any text
 * of S3's that quotes the key.
 */
final class ErrorAdvice {
  private final String bucket;
  private final String region;
  private final String endpoint;
  private final String keyPrefix;
  private final String rejectedKeysAdvice;
  private final UnaryOperator<String> shownKey;

  ErrorAdvice(
      String bucket,
      String region,
      String endpoint,
      String keyPrefix,
      String rejectedKeysAdvice,
      UnaryOperator<String> shownKey) {
    this.bucket = bucket;
    this.region = region;
    this.endpoint = endpoint;
    this.keyPrefix = keyPrefix;
    this.rejectedKeysAdvice = rejectedKeysAdvice;
    this.shownKey = shownKey;
  }

  /** Whether a message about this key must not quote it whole. */
  boolean masks(String key) {
    return key != null && !shownKey.apply(key).equals(key);
  }

  /** {@code text} with the key, as is or as it travels in a URL path, in its shown form. */
  String scrub(String text, String key) {
    if (text == null || !masks(key)) {
      return text;
    }
    String shown = shownKey.apply(key);
    return text.replace(key, shown).replace(SdkHttpUtils.urlEncodeIgnoreSlashes(key), shown);
  }

  /** A failed S3 call of type {@code type}; {@code key} is null for bucket-level calls. */
  String forS3(ErrorType type, Operation op, Throwable failure, String key, String tries) {
    return scrub(words(type, op, failure, key, tries), key);
  }

  private String words(ErrorType type, Operation op, Throwable failure, String key, String tries) {
    String target =
        key == null ? "bucket '" + bucket + "'" : "s3://" + bucket + "/" + shownKey.apply(key);
    return switch (type) {
      case ACCESS_DENIED -> accessDenied(op, target, key, tries);
      case INVALID_CREDENTIALS ->
          "S3 rejected the credentials"
              + tries
              + " ("
              + ErrorClassifier.errorCode(failure)
              + "): the access key does not exist at "
              + endpoint
              + " or the secret key is wrong. "
              + rejectedKeysAdvice;
      case CREDENTIALS_UNAVAILABLE ->
          "No AWS credentials could be resolved"
              + tries
              + ": "
              + ErrorClassifier.rootMessage(failure)
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
              + ErrorClassifier.bucketRegion(failure).orElse("another region")
              + ", function configured for "
              + region
              + tries
              + ". Set BUCKET_REGION="
              + ErrorClassifier.bucketRegion(failure).orElse("<the bucket's region>");
      case INVALID_REQUEST ->
          "S3 refused the request for "
              + target
              + tries
              + ": "
              + ErrorClassifier.errorCode(failure)
              + " "
              + ErrorClassifier.rootMessage(failure)
              + ". Check KEY_PREFIX/KEY_TEMPLATE and the SSE settings";
      case THROTTLED ->
          "S3 throttled the request for "
              + target
              + tries
              + " ("
              + ErrorClassifier.errorCode(failure)
              + "). The batch will be retried; if this persists, spread"
              + " writes over more prefixes or lower the mapping's concurrency";
      case SERVER_ERROR ->
          "S3 answered with a server error for "
              + target
              + tries
              + " ("
              + ErrorClassifier.errorCode(failure)
              + "). The batch will be retried";
      case NETWORK ->
          "Could not reach S3 at "
              + endpoint
              + tries
              + ": "
              + ErrorClassifier.rootMessage(failure)
              + ". Check the network path: a function in a VPC needs an S3 gateway endpoint"
              + " or a NAT gateway; with AWS_ENDPOINT_URL_S3 set, check that the server is up";
      // Table errors are classified by the iceberg artifact, never from an S3 exception.
      case COMMIT_CONFLICT, CATALOG -> ErrorClassifier.rootMessage(failure);
      case TIMEOUT ->
          "The request for "
              + target
              + " timed out"
              + tries
              + " before the"
              + " Lambda deadline. Raise the function's timeout or memory, or lower the batch"
              + " size";
    };
  }

  String deadlineReached(String key, int attempts) {
    return "The upload of s3://"
        + bucket
        + "/"
        + shownKey.apply(key)
        + " ran out of time before the Lambda deadline ("
        + attempts
        + " attempts made). Raise the function's timeout or memory, or lower the"
        + " batch size";
  }

  static String forCredentials(ErrorType type, CredentialsResolutionException e, String tries) {
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
                    + ErrorClassifier.serviceCode(e)
                    + "): the execution role lacks secretsmanager:GetSecretValue on the secret,"
                    + " or kms:Decrypt on its KMS key when that is a customer managed key. Grant"
                    + " them, and check that no resource policy on the secret denies it";
            case INVALID_CREDENTIALS ->
                "Secrets Manager rejected the execution role's credentials while reading "
                    + arn
                    + tries
                    + " ("
                    + ErrorClassifier.serviceCode(e)
                    + "). Check the role the function runs as";
            case NETWORK, TIMEOUT ->
                "Could not reach Secrets Manager to read CREDENTIALS_SECRET_ARN="
                    + arn
                    + tries
                    + ": "
                    + ErrorClassifier.rootMessage(e)
                    + ". A function in a VPC needs a Secrets Manager interface endpoint or a NAT"
                    + " gateway; with AWS_ENDPOINT_URL_SECRETS_MANAGER set, check that the server"
                    + " is up";
            case THROTTLED, SERVER_ERROR ->
                willRetry(
                    "Secrets Manager failed to return CREDENTIALS_SECRET_ARN=" + arn, tries, e);
            default ->
                "CREDENTIALS_SECRET_ARN="
                    + arn
                    + " could not be read"
                    + tries
                    + " ("
                    + ErrorClassifier.serviceCode(e)
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
                    + ErrorClassifier.serviceCode(e)
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
                    + ErrorClassifier.serviceCode(e)
                    + "): when they come from CREDENTIALS_SECRET_ARN, check the keys in the"
                    + " secret (it is re-read once per invocation after a rejection)";
            case NETWORK, TIMEOUT ->
                "Could not reach STS to assume ROLE_ARN="
                    + arn
                    + tries
                    + ": "
                    + ErrorClassifier.rootMessage(e)
                    + ". A function in a VPC needs an STS interface endpoint or a NAT gateway;"
                    + " with AWS_ENDPOINT_URL_STS set, check that the server is up";
            case THROTTLED, SERVER_ERROR ->
                willRetry("STS failed to assume ROLE_ARN=" + arn, tries, e);
            default ->
                "ROLE_ARN="
                    + arn
                    + " could not be assumed"
                    + tries
                    + " ("
                    + ErrorClassifier.serviceCode(e)
                    + "): check the role's ARN, that STS is enabled in this region, and the"
                    + " role's maximum session duration";
          };
    };
  }

  private String accessDenied(Operation op, String target, String key, String tries) {
    String resource =
        op == Operation.HEAD_BUCKET
                || op == Operation.GET_BUCKET_LOCATION
                || op == Operation.GET_OBJECT_LOCK
            ? "arn:aws:s3:::" + bucket
            : "arn:aws:s3:::" + bucket + "/" + prefixArn(op, key);
    return "AccessDenied "
        + op.doing()
        + " "
        + target
        + tries
        + ": the function's credentials lack "
        + op.permission()
        + " on "
        + resource
        + ", or a bucket policy, KMS key policy or SCP denies it. Grant "
        + op.permission()
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

  private static String willRetry(String what, String tries, CredentialsResolutionException e) {
    return what + tries + " (" + ErrorClassifier.serviceCode(e) + "). The batch will be retried";
  }
}
