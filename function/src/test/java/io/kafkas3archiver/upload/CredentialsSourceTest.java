package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.config.ArchiverConfig;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueRequest;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;

class CredentialsSourceTest {
  private static final String ARN =
      "arn:aws:secretsmanager:eu-west-1:123456789012:secret:archiver-keys-AbCdEf";

  @Test
  void shouldReadTheSeedsFieldNames() {
    var c =
        CredentialsSource.SecretKeys.parse(ARN, "{\"accessKey\":\"AK1\",\"secretKey\":\"SK1\"}");

    assertThat(c.accessKeyId()).isEqualTo("AK1");
    assertThat(c.secretAccessKey()).isEqualTo("SK1");
  }

  @Test
  void shouldReadTheAwsFieldNamesWithASessionToken() {
    var c =
        CredentialsSource.SecretKeys.parse(
            ARN,
            "{\"accessKeyId\":\"AK2\",\"secretAccessKey\":\"SK2\",\"sessionToken\":\"TOKEN2\"}");

    assertThat(c).isInstanceOf(AwsSessionCredentials.class);
    assertThat(((AwsSessionCredentials) c).sessionToken()).isEqualTo("TOKEN2");
  }

  @Test
  void shouldNameTheMissingFieldWithoutQuotingTheSecret() {
    assertThatThrownBy(
            () ->
                CredentialsSource.SecretKeys.parse(
                    ARN, "{\"accessKey\":\"AK3\",\"secret\":\"very-secret-value\"}"))
        .isInstanceOf(CredentialsResolutionException.class)
        .hasMessageContaining("lacks \"secretKey\" (or \"secretAccessKey\")")
        .hasMessageNotContaining("very-secret-value")
        .hasMessageNotContaining("AK3")
        .hasNoCause();
  }

  @Test
  void shouldNotQuoteASecretThatIsNotJson() {
    // A Jackson error would quote the input; the message must not.
    assertThatThrownBy(() -> CredentialsSource.SecretKeys.parse(ARN, "AKIA123:very-secret-value"))
        .isInstanceOf(CredentialsResolutionException.class)
        .hasMessageContaining("not a JSON object")
        .hasMessageNotContaining("very-secret-value")
        .hasNoCause();
  }

  @Test
  void shouldCacheTheKeysAndRereadThemAtMostOncePerInvocation() {
    // Given a secret read through a counting client
    FakeSecrets secrets = new FakeSecrets();
    secrets.values.add("{\"accessKey\":\"OLD\",\"secretKey\":\"S1\"}");
    secrets.values.add("{\"accessKey\":\"NEW\",\"secretKey\":\"S2\"}");
    var source = new CredentialsSource.SecretKeys(ARN, () -> secrets, "test");

    // When resolved twice, it is read once
    source.beginInvocation();
    assertThat(source.resolveCredentials().accessKeyId()).isEqualTo("OLD");
    assertThat(source.resolveCredentials().accessKeyId()).isEqualTo("OLD");
    assertThat(secrets.calls.get()).isEqualTo(1);

    // When S3 rejects the keys twice in one invocation, it re-reads only the first time
    assertThat(source.refreshAfterRejection()).isTrue();
    assertThat(source.resolveCredentials().accessKeyId()).isEqualTo("NEW");
    assertThat(source.refreshAfterRejection()).isFalse();
    assertThat(secrets.calls.get()).isEqualTo(2);

    // And the next invocation may re-read again
    source.beginInvocation();
    secrets.values.add("{\"accessKey\":\"NEWER\",\"secretKey\":\"S3\"}");
    assertThat(source.refreshAfterRejection()).isTrue();
    assertThat(secrets.calls.get()).isEqualTo(3);
  }

  @Test
  void shouldBuildTheSessionNameFromTheTitle() {
    assertThat(CredentialsSource.sessionName("S3_Event_Archive_Prod"))
        .isEqualTo("S3_Event_Archive_Prod");
    assertThat(CredentialsSource.sessionName("orders / eu (prod)")).isEqualTo("orders---eu--prod-");
    assertThat(CredentialsSource.sessionName("x".repeat(80))).hasSize(64);
    assertThat(CredentialsSource.sessionName("x")).isEqualTo("kafka-s3-archiver");
  }

  @Test
  void shouldChainTheRoleOverTheSecretWhenBothAreSet() {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "my-bucket",
                "AWS_REGION", "ap-south-1",
                "TITLE", "Orders Archive",
                "CREDENTIALS_SECRET_ARN", ARN,
                "ROLE_ARN", "arn:aws:iam::210987654321:role/writer",
                "EXTERNAL_ID", "ext-1"));

    CredentialsSource source = CredentialsSource.from(config, Map.<String, String>of()::get);

    assertThat(source).isInstanceOf(CredentialsSource.AssumedRole.class);
    var role = (CredentialsSource.AssumedRole) source;
    assertThat(role.sessionName()).isEqualTo("Orders-Archive");
    assertThat(role.base()).isInstanceOf(CredentialsSource.SecretKeys.class);
    assertThat(source.describe())
        .contains("arn:aws:iam::210987654321:role/writer")
        .contains("with an external ID")
        .contains(ARN)
        .doesNotContain("ext-1");
  }

  @Test
  void shouldUseTheExecutionRoleByDefault() {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(Map.of("BUCKET_NAME", "my-bucket", "AWS_REGION", "ap-south-1"));

    CredentialsSource source =
        CredentialsSource.from(
            config, Map.of("AWS_ACCESS_KEY_ID", "AKEXEC", "AWS_SECRET_ACCESS_KEY", "SKEXEC")::get);

    assertThat(source).isInstanceOf(CredentialsSource.ExecutionRole.class);
    assertThat(source.provider().resolveCredentials().accessKeyId()).isEqualTo("AKEXEC");
    assertThat(source.refreshAfterRejection()).isFalse();
  }

  @Test
  void shouldFailTheColdStartOnAMalformedEndpointNamingTheVariable() {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME",
                "my-bucket",
                "AWS_REGION",
                "ap-south-1",
                "CREDENTIALS_SECRET_ARN",
                ARN));

    assertThatThrownBy(
            () ->
                CredentialsSource.from(
                    config, Map.of("AWS_ENDPOINT_URL_SECRETS_MANAGER", "localhost:4566")::get))
        .isInstanceOf(io.kafkas3archiver.config.ConfigException.class)
        .hasMessageContaining("AWS_ENDPOINT_URL_SECRETS_MANAGER='localhost:4566' is not valid");
  }

  /** Answers GetSecretValue from a queue and counts the calls. */
  private static final class FakeSecrets implements SecretsManagerClient {
    final Deque<String> values = new ArrayDeque<>();
    final AtomicInteger calls = new AtomicInteger();
    private String last;

    @Override
    public GetSecretValueResponse getSecretValue(GetSecretValueRequest request) {
      calls.incrementAndGet();
      if (!values.isEmpty()) {
        last = values.poll();
      }
      return GetSecretValueResponse.builder().arn(request.secretId()).secretString(last).build();
    }

    @Override
    public String serviceName() {
      return "secretsmanager";
    }

    @Override
    public void close() {}
  }
}
