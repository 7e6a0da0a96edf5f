package io.kafkas3archiver.iceberg;

import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * Hands the archiver's own credentials (execution role, CREDENTIALS_SECRET_ARN or ROLE_ARN) to
 * Iceberg's S3, Glue and REST-signing clients, which build providers by class name through {@code
 * client.credentials-provider}. The static slot is how a class name reaches a live object; one
 * function holds one configuration, so there is one slot.
 */
public final class ArchiverCredentials implements AwsCredentialsProvider {
  private static volatile AwsCredentialsProvider slot;
  private final AwsCredentialsProvider delegate;

  private ArchiverCredentials(AwsCredentialsProvider delegate) {
    this.delegate = delegate;
  }

  static void use(AwsCredentialsProvider p) {
    slot = p;
  }

  /** Called by Iceberg's {@code AwsClientProperties} through reflection. */
  public static ArchiverCredentials create(Map<String, String> ignored) {
    AwsCredentialsProvider p = slot;
    return new ArchiverCredentials(p != null ? p : DefaultCredentialsProvider.builder().build());
  }

  @Override
  public AwsCredentials resolveCredentials() {
    return delegate.resolveCredentials();
  }
}
