package io.kafkas3archiver.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.group.PartitionTime;
import io.kafkas3archiver.group.RecordField;
import io.kafkas3archiver.group.TimeFormat;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DESIGN §8's settings: each refused at init, naming the variable, the value and the legal forms.
 */
class PartitioningConfigTest {
  private static final String FIELD_TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.customer.region}/year=${YEAR}/month=${MONTH}"
          + "/day=${DAY}/hour=${HOUR}/${PARTITION}-${START_OFFSET}";

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "my-archive");
    env.put("AWS_REGION", "eu-west-1");
    env.put("REPORT_BATCH_ITEM_FAILURES", "true");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void shouldParseRecordVariablesInTemplateOrder() {
    var config =
        ArchiverConfig.fromEnv(
            env(
                "KEY_TEMPLATE",
                "${KEY_PREFIX}/${OBJECT_NAME}/t=${header.tenant}/r=${value.customer.region}"
                    + "/k=${key}/${JOB_ID}"));

    assertThat(config.keyTemplate().recordFields())
        .containsExactly(
            new RecordField.HeaderField("tenant"),
            new RecordField.ValueField(java.util.List.of("customer", "region")),
            new RecordField.KeyField());
    assertThat(config.maxFoldersPerPartition()).isEqualTo(100);
    assertThat(config.partitionTime()).isEqualTo(PartitionTime.RECORD);
  }

  @Test
  void shouldRefuseBatchTimeWithRecordVariablesNamingTheLegalValues() {
    assertThatThrownBy(
            () ->
                ArchiverConfig.fromEnv(
                    env("KEY_TEMPLATE", FIELD_TEMPLATE, "PARTITION_TIME", "batch")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("PARTITION_TIME='batch' cannot be used with KEY_TEMPLATE='")
        .hasMessageEndingWith(
            "legal values with record variables: record (the default, each"
                + " record's Kafka timestamp) or field (with TIME_FIELD)");
    // Without record variables, batch stays the default.
    assertThat(ArchiverConfig.fromEnv(env()).partitionTime()).isEqualTo(PartitionTime.BATCH);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "${value}|the path is empty",
        "${value.}|the path is empty",
        "${value.a..b}|the path 'a..b' has an empty field name",
        "${value.items[0].sku}|the path 'items[0].sku' leads into an array",
        "${value.items.*}|the path 'items.*' leads into an array",
        "${header.}|${header.} names no header",
      })
  void shouldRefuseABadRecordVariableNamingItAndTheLegalForms(String variable, String why) {
    String template = "${KEY_PREFIX}/${OBJECT_NAME}/x=" + variable + "/${JOB_ID}";
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("KEY_TEMPLATE", template)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("KEY_TEMPLATE='" + template + "' is not valid: " + why)
        .hasMessageEndingWith("legal forms: " + RecordField.LEGAL_FORMS);
  }

  @Test
  void shouldRefuseAnUnknownVariableListingTheRecordVariablesToo() {
    String template = "${KEY_PREFIX}/${OBJECT_NAME}/${values.region}/${JOB_ID}";
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("KEY_TEMPLATE", template)))
        .hasMessageContaining("unknown variable ${values.region}")
        .hasMessageContaining("${value.<field>");
  }

  @Test
  void shouldRefuseRecordVariablesThatLeaveNoRoomInA1024ByteKey() {
    String template =
        "${KEY_PREFIX}/${OBJECT_NAME}/" + "${value.a}/".repeat(30) + "x".repeat(200) + "/${JOB_ID}";
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("KEY_TEMPLATE", template)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("for its 30 record variable(s), less than 32 bytes each");
  }

  @Test
  void shouldRequireItemFailuresForContentPartitioning() {
    Map<String, String> env = env("KEY_TEMPLATE", FIELD_TEMPLATE);
    env.remove("REPORT_BATCH_ITEM_FAILURES");
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("KEY_TEMPLATE='" + FIELD_TEMPLATE + "' partitions by record content")
        .hasMessageContaining("REPORT_BATCH_ITEM_FAILURES=true");
  }

  @Test
  void shouldReadTheTimeFieldAndDefaultToIso8601() {
    var config = ArchiverConfig.fromEnv(env("PARTITION_TIME", "field", "TIME_FIELD", "eventTime"));
    assertThat(config.partitionTime()).isEqualTo(PartitionTime.FIELD);
    assertThat(config.timeField())
        .get()
        .extracting(t -> t.path())
        .isEqualTo(java.util.List.of("eventTime"));
    assertThat(config.timeField().get().format()).isInstanceOf(TimeFormat.Iso8601.class);
  }

  @Test
  void shouldRequireTheTimeFieldUnderPartitionTimeField() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("PARTITION_TIME", "field")))
        .hasMessageStartingWith("TIME_FIELD is required but not set: PARTITION_TIME=field");
  }

  @Test
  void shouldRefuseATimeFieldWithoutPartitionTimeField() {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("TIME_FIELD", "eventTime")))
        .hasMessageStartingWith("TIME_FIELD='eventTime' is set but PARTITION_TIME is 'batch'");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "meta..at|TIME_FIELD='meta..at' is not valid: the path 'meta..at' has an empty field name",
        "items[0]|TIME_FIELD='items[0]' is not valid: the path 'items[0]' leads into an array",
      })
  void shouldRefuseABadTimeField(String field, String message) {
    assertThatThrownBy(
            () -> ArchiverConfig.fromEnv(env("PARTITION_TIME", "field", "TIME_FIELD", field)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "yyyy-MM-dd'T|it is not a java.time pattern",
        "yyyy-MM|it does not hold a date and an hour",
        "HH:mm|it does not hold a date and an hour",
        "bogus|it is not a java.time pattern",
      })
  void shouldRefuseATimeFormatThatDoesNotParse(String format, String why) {
    assertThatThrownBy(
            () ->
                ArchiverConfig.fromEnv(
                    env("PARTITION_TIME", "field", "TIME_FIELD", "t", "TIME_FORMAT", format)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("TIME_FORMAT='" + format + "' is not valid: " + why)
        .hasMessageEndingWith("legal values: " + TimeFormat.LEGAL);
  }

  @Test
  void shouldAcceptAPatternWithADateAndAnHour() {
    var config =
        ArchiverConfig.fromEnv(
            env(
                "PARTITION_TIME", "field",
                "TIME_FIELD", "t",
                "TIME_FORMAT", "dd/MM/yyyy HH:mm:ss"));
    assertThat(config.timeField().get().format()).isInstanceOf(TimeFormat.Pattern.class);
  }

  @ParameterizedTest
  @CsvSource({"0", "10001", "many"})
  void shouldRefuseAFanOutGuardOutOfRange(String value) {
    assertThatThrownBy(() -> ArchiverConfig.fromEnv(env("MAX_FOLDERS_PER_PARTITION", value)))
        .hasMessage(
            "MAX_FOLDERS_PER_PARTITION='"
                + value
                + "' is not valid; legal values: an integer from 1 to 10000");
  }
}
