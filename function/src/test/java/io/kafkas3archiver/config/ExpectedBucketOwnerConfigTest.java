package io.kafkas3archiver.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExpectedBucketOwnerConfigTest {
  private static Map<String, String> env(String owner) {
    return owner == null
        ? Map.of("BUCKET_NAME", "my-archive", "AWS_REGION", "eu-west-1")
        : Map.of(
            "BUCKET_NAME", "my-archive", "AWS_REGION", "eu-west-1", "EXPECTED_BUCKET_OWNER", owner);
  }

  @Test
  void shouldBeUnsetByDefault() {
    assertThat(ArchiverConfig.fromEnv(env(null)).expectedBucketOwner()).isEmpty();
  }

  @Test
  void shouldAcceptATwelveDigitAccountId() {
    assertThat(ArchiverConfig.fromEnv(env(" 123456789012 ")).expectedBucketOwner())
        .contains("123456789012");
  }

  @ParameterizedTest
  @ValueSource(strings = {"12345678901", "1234567890123", "arn:aws:iam::123456789012:root", "me"})
  void shouldRejectAnythingButAnAccountIdNamingTheVariableAndTheLegalValue(String owner) {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env(owner)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("EXPECTED_BUCKET_OWNER='" + owner + "' is not valid")
        .hasMessageContaining("12-digit AWS account id");
  }
}
