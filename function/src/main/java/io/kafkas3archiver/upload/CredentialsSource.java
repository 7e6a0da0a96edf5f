package io.kafkas3archiver.upload;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * Where the S3 client's credentials come from (DESIGN §2). The execution role is the default;
 * access keys in Secrets Manager and an assumed role are separate cases of this closed set.
 */
public sealed interface CredentialsSource {

  AwsCredentialsProvider provider();

  /** The SDK's default chain: in Lambda, the execution role. */
  record ExecutionRole() implements CredentialsSource {
    @Override
    public AwsCredentialsProvider provider() {
      return DefaultCredentialsProvider.builder().build();
    }
  }

  static CredentialsSource from(ArchiverConfig config) {
    if (config.credentialsSecretArn().isPresent() || config.roleArn().isPresent()) {
      throw new ConfigException(
          "CREDENTIALS_SECRET_ARN and ROLE_ARN are not available in this build yet; unset them to"
              + " use the execution role");
    }
    return new ExecutionRole();
  }
}
