package io.kafkas3archiver.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.schema.ConfluentRegistry;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Credentials never cross a network in clear text, and no message prints a URL's user-info (DESIGN
 * §6): a registry with credentials needs https, and a password in a URL is refused at init.
 */
class CredentialTransportConfigTest {
  private static final String SECRET =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:registry-AbCdEf";

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "my-archive");
    env.put("AWS_REGION", "us-east-1");
    env.put("OUTPUT_FORMAT", "parquet");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://registry.example.com:8081",
        "http://10.0.4.17:8081",
        "http://127.example.com"
      })
  void shouldRefuseARegistryWithCredentialsOverPlainHttpSayingWhy(String uri) {
    // Given a Confluent registry over plain http, and its basic-auth secret
    var env = env("SCHEMA_REGISTRY_URI", uri, "SCHEMA_REGISTRY_SECRET_ARN", SECRET);

    // Then the init fails, naming the variable, the value, why, and what is legal
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SCHEMA_REGISTRY_URI='" + uri + "' is plain http")
        .hasMessageContaining("password would cross the network in clear text")
        .hasMessageContaining("https://");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://registry.example.com:8081",
        "http://127.0.0.1:8081",
        "http://localhost:8081",
        "http://[::1]:8081"
      })
  void shouldAcceptCredentialsOverHttpsOrToALoopbackAddress(String uri) {
    var config =
        ArchiverConfig.fromEnv(
            env("SCHEMA_REGISTRY_URI", uri, "SCHEMA_REGISTRY_SECRET_ARN", SECRET));
    assertThat(config.schemaRegistryUri()).contains(uri);
  }

  @Test
  void shouldAcceptPlainHttpForARegistryWithoutCredentials() {
    var config = ArchiverConfig.fromEnv(env("SCHEMA_REGISTRY_URI", "http://registry:8081"));
    assertThat(config.schemaRegistryUri()).contains("http://registry:8081");
  }

  @Test
  void shouldRefuseTheRuleInTheRegistryClientToo() {
    // The client holds the rule as well, whoever builds it.
    assertThatThrownBy(
            () ->
                new ConfluentRegistry(
                    URI.create("http://registry.example.com"), Optional.of("u:p4ssw0rd")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("https only")
        .hasMessageNotContaining("p4ssw0rd");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SCHEMA_REGISTRY_URI", "AWS_ENDPOINT_URL_S3"})
  void shouldRefuseAPasswordInAUrlWithoutPrintingIt(String variable) {
    var env = env(variable, "https://archiver:Sup3rS3cret@host.example.com:8081");

    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(variable + "='https://***@host.example.com:8081'")
        .hasMessageContaining("user-info")
        .hasMessageNotContaining("Sup3rS3cret")
        .hasMessageNotContaining("archiver:");
  }

  @Test
  void shouldNotEchoUserInfoOfAnInvalidUrl() {
    var env = env("SCHEMA_REGISTRY_URI", "ftp://archiver:Sup3rS3cret@host/x");
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'ftp://***@host/x' is not valid")
        .hasMessageNotContaining("Sup3rS3cret");
  }

  @Test
  void shouldMaskContentSegmentsOfKeysBelowDebugAndShowThemAtDebug() {
    String template = "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.region}/${JOB_ID}";
    String key = "condense/orders/region=eu-west-1/0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a.parquet";
    var base =
        env(
            "KEY_TEMPLATE",
            template,
            "REPORT_BATCH_ITEM_FAILURES",
            "true",
            "PARTITION_TIME",
            "record");

    for (String level : new String[] {"info", "warn", "error"}) {
      var info = new HashMap<>(base);
      info.put("LOG_LEVEL", level);
      assertThat(ArchiverConfig.fromEnv(info).shownKey(key))
          .as(level)
          .isEqualTo("condense/orders/region=…/0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a.parquet");
    }
    var debug = new HashMap<>(base);
    debug.put("LOG_LEVEL", "debug");
    assertThat(ArchiverConfig.fromEnv(debug).shownKey(key)).isEqualTo(key);
  }
}
