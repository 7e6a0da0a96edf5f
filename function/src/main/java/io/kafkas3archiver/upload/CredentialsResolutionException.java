package io.kafkas3archiver.upload;

import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * The credentials could not be resolved: Secrets Manager or STS failed, or the secret is not in the
 * expected shape. It extends {@link SdkClientException} so it travels unchanged through the SDK's
 * signing stage to {@link ErrorClassifier}, which words the advice.
 *
 * <p>The message names the step and the resource (an ARN), never a credential. The cause is the
 * service's exception, or none when the secret's content was the problem: parser messages quote
 * their input, and the input is the secret.
 */
public final class CredentialsResolutionException extends SdkClientException {
  private static final long serialVersionUID = 1L;

  /** Which call failed, and therefore which permission or setting to check. */
  public enum Step {
    /** {@code secretsmanager:GetSecretValue} on {@code CREDENTIALS_SECRET_ARN}. */
    GET_SECRET,
    /** The secret was read but does not hold usable keys. */
    PARSE_SECRET,
    /** {@code sts:AssumeRole} on {@code ROLE_ARN}. */
    ASSUME_ROLE
  }

  private final Step step;
  private final String resource;
  private final String detail;

  private CredentialsResolutionException(
      Step step, String resource, String detail, Throwable cause) {
    super(
        SdkClientException.builder()
            .message(step + " failed for " + resource + (detail == null ? "" : ": " + detail))
            .cause(cause));
    this.step = step;
    this.resource = resource;
    this.detail = detail;
  }

  public static CredentialsResolutionException of(Step step, String resource, Throwable cause) {
    return new CredentialsResolutionException(step, resource, null, cause);
  }

  /** A problem with the secret's content; {@code detail} must not quote the content. */
  public static CredentialsResolutionException badSecret(String resource, String detail) {
    return new CredentialsResolutionException(Step.PARSE_SECRET, resource, detail, null);
  }

  public Step step() {
    return step;
  }

  /** The ARN of the secret or role. */
  public String resource() {
    return resource;
  }

  /** What is wrong with the secret's shape (field names only), or null. */
  public String detail() {
    return detail;
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
