package io.kafkas3archiver.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.group.PartitionTime;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArchiverConfigTest {

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "my-archive");
    env.put("AWS_REGION", "ap-south-1");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void shouldApplyTheDocumentedDefaults() {
    ArchiverConfig config = ArchiverConfig.fromEnv(env("AWS_LAMBDA_FUNCTION_NAME", "fn"));

    assertThat(config.bucketRegion()).isEqualTo("ap-south-1");
    assertThat(config.title()).isEqualTo("fn");
    assertThat(config.format()).isEqualTo(Format.NDJSON);
    assertThat(config.compression()).isEqualTo(Compression.NONE);
    assertThat(config.keyPrefix()).isEqualTo("condense");
    assertThat(config.partitionTime()).isEqualTo(PartitionTime.BATCH);
    assertThat(config.timeZone()).isEqualTo(ZoneId.of("UTC"));
    assertThat(config.includeKafkaMetadata()).isFalse();
    assertThat(config.inputTopic()).isEmpty();
    assertThat(config.endpoint()).isEmpty();
    assertThat(config.reportBatchItemFailures()).isFalse();
  }

  @Test
  void shouldRejectAnUnknownFormatNamingTheVariableAndTheLegalValues() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("OUTPUT_FORMAT", "xml")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "OUTPUT_FORMAT='xml' is not valid; legal values: json, ndjson, csv, parquet, iceberg");
  }

  @Test
  void shouldAcceptFormatNamesInAnyCase() {
    assertThat(ArchiverConfig.fromEnv(env("OUTPUT_FORMAT", "CSV")).format()).isEqualTo(Format.CSV);
  }

  @Test
  void shouldRequireTheBucketName() {
    Map<String, String> env = env();
    env.remove("BUCKET_NAME");
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("BUCKET_NAME is required");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ab",
        "My-Bucket",
        "bucket_name",
        "-bucket",
        "bucket-",
        "my..bucket",
        "my.-bucket",
        "192.168.5.4",
        "xn--bucket",
        "bucket-s3alias",
        "a-bucket-name-that-is-far-too-long-for-s3-because-it-has-64-chars"
      })
  void shouldRejectBucketNamesThatBreakS3sRules(String bucket) {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("BUCKET_NAME", bucket)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("BUCKET_NAME='" + bucket + "' is not a valid S3 bucket name");
  }

  @Test
  void shouldPreferBucketRegionOverAwsRegion() {
    assertThat(ArchiverConfig.fromEnv(env("BUCKET_REGION", "eu-west-1")).bucketRegion())
        .isEqualTo("eu-west-1");
  }

  @Test
  void shouldRejectAMalformedRegion() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("BUCKET_REGION", "Mumbai")))
        .hasMessageContaining("BUCKET_REGION='Mumbai' is not valid");
  }

  @Test
  void shouldRejectAnUnknownTimeZone() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("TIME_ZONE", "Mars/Olympus")))
        .hasMessageContaining("TIME_ZONE='Mars/Olympus' is not valid; legal values: an IANA zone");
  }

  @Test
  void shouldRejectAnUnknownPartitionTime() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("PARTITION_TIME", "daily")))
        .hasMessage(
            "PARTITION_TIME='daily' is not valid; legal values: batch, record, ingest, field");
  }

  @Test
  void shouldRejectAnUnknownLogLevel() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("LOG_LEVEL", "verbose")))
        .hasMessage("LOG_LEVEL='verbose' is not valid; legal values: debug, info, warn, error");
  }

  @Test
  void shouldRejectANonBooleanMetadataFlag() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("INCLUDE_KAFKA_METADATA", "maybe")))
        .hasMessage("INCLUDE_KAFKA_METADATA='maybe' is not valid; legal values: true, false");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/abs", "a/../b", "a//b", "a/./b", "sp%ce"})
  void shouldRejectKeyPrefixesThatCouldEscapeOrBreakKeys(String prefix) {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("KEY_PREFIX", prefix)))
        .hasMessageContaining("KEY_PREFIX='" + prefix + "' is not valid");
  }

  @Test
  void shouldStripATrailingSlashFromTheKeyPrefix() {
    assertThat(ArchiverConfig.fromEnv(env("KEY_PREFIX", "archive/kafka/")).keyPrefix())
        .isEqualTo("archive/kafka");
  }

  @Test
  void shouldRejectAnEndpointThatIsNotAUrl() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("AWS_ENDPOINT_URL_S3", "localhost:9000")))
        .hasMessageContaining("AWS_ENDPOINT_URL_S3='localhost:9000' is not valid");
  }

  @Test
  void shouldRejectAKmsKeyWithoutKmsEncryption() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("KMS_KEY_ID", "alias/archive")))
        .hasMessageContaining("set SSE=aws:kms");
  }

  @Test
  void shouldRejectAnExternalIdWithoutARole() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("EXTERNAL_ID", "x-123")))
        .hasMessageContaining("EXTERNAL_ID is set but ROLE_ARN is not");
  }

  @Test
  void shouldRejectAnInputTopicThatKafkaWouldNotAllow() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("INPUT_TOPIC", "bad/topic")))
        .hasMessageContaining("INPUT_TOPIC='bad/topic' is not valid");
  }

  @Test
  void shouldRejectATemplateWithoutAUniquePart() {
    assertThatThrownBy(
            () ->
                ArchiverConfig.fromEnv(env("KEY_TEMPLATE", "${KEY_PREFIX}/${OBJECT_NAME}/${DATE}")))
        .hasMessageContaining("cannot give each object its own key")
        .hasMessageContaining("${JOB_ID}");
  }
}
