package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.config.Setting;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IcebergSettingsTest {

  static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "archive");
    env.put("AWS_REGION", "us-east-1");
    env.put("OUTPUT_FORMAT", "iceberg");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  static IcebergSettings settings(Map<String, String> env) {
    return IcebergSettings.fromEnv(ArchiverConfig.fromEnv(env), env::get);
  }

  @Test
  void shouldDefaultToGlueAndATableNamedAfterTheTopic() {
    IcebergSettings s = settings(env("ICEBERG_DATABASE", "kafka"));

    assertThat(s.catalog()).isEqualTo(IcebergSettings.Catalog.GLUE);
    assertThat(s.tableFor("Orders.v1-eu")).isEqualTo("orders_v1_eu");
    assertThat(s.tableFor("_internal")).isEqualTo("t_internal");
  }

  @Test
  void shouldNameTheVariableTheValueAndTheLegalValues() {
    assertThatThrownBy(() -> settings(env("ICEBERG_DATABASE", "kafka", "ICEBERG_CATALOG", "hive")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("ICEBERG_CATALOG='hive' is not valid; legal values: glue, rest");
    assertThatThrownBy(() -> settings(env("ICEBERG_DATABASE", "Kafka-DB")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("ICEBERG_DATABASE='Kafka-DB' is not valid; legal values: 1-255");
    assertThatThrownBy(() -> settings(env()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("ICEBERG_DATABASE is required but not set");
  }

  @Test
  void shouldRequireTheRestUriForRestAndRefuseItForGlue() {
    assertThatThrownBy(() -> settings(env("ICEBERG_DATABASE", "kafka", "ICEBERG_CATALOG", "rest")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("ICEBERG_REST_URI is required when ICEBERG_CATALOG=rest");
    assertThatThrownBy(
            () ->
                settings(
                    env("ICEBERG_DATABASE", "kafka", "ICEBERG_REST_URI", "http://127.0.0.1:1/")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("set ICEBERG_CATALOG=rest");
    IcebergSettings s3Tables =
        settings(
            env(
                "ICEBERG_DATABASE", "kafka",
                "ICEBERG_CATALOG", "rest",
                "ICEBERG_REST_URI", "https://s3tables.us-east-1.amazonaws.com/iceberg",
                "ICEBERG_WAREHOUSE", "arn:aws:s3tables:us-east-1:111122223333:bucket/archive",
                "ICEBERG_SIGNING_NAME", "s3tables"));
    assertThat(s3Tables.signingName()).contains("s3tables");
  }

  @Test
  void shouldApplyTheDefaultsSettingDeclaresForTheDocsAndTheInfrastructure() {
    IcebergSettings s = settings(env("ICEBERG_DATABASE", "kafka"));
    assertThat(s.catalog().configName()).isEqualTo(Setting.ICEBERG_CATALOG.defaultValue());
    assertThat(Setting.ICEBERG_CATALOG.legalValues()).isEqualTo("glue, rest");
    assertThat(s.maintenance())
        .isEqualTo(
            new IcebergSettings.Maintenance(
                Long.parseLong(Setting.ICEBERG_TARGET_FILE_MB.defaultValue()) * 1024 * 1024,
                Integer.parseInt(Setting.ICEBERG_SNAPSHOT_RETENTION_HOURS.defaultValue()),
                Integer.parseInt(Setting.ICEBERG_SNAPSHOTS_RETAINED.defaultValue())));
  }

  @Test
  void shouldDefaultTheMaintenanceTargetsAndRefuseValuesOutsideTheirRange() {
    assertThat(settings(env("ICEBERG_DATABASE", "kafka")).maintenance())
        .isEqualTo(new IcebergSettings.Maintenance(128L * 1024 * 1024, 24, 10));
    assertThat(
            settings(
                    env(
                        "ICEBERG_DATABASE", "kafka",
                        "ICEBERG_TARGET_FILE_MB", "64",
                        "ICEBERG_SNAPSHOT_RETENTION_HOURS", "0",
                        "ICEBERG_SNAPSHOTS_RETAINED", "1"))
                .maintenance())
        .isEqualTo(new IcebergSettings.Maintenance(64L * 1024 * 1024, 0, 1));
    assertThatThrownBy(
            () -> settings(env("ICEBERG_DATABASE", "kafka", "ICEBERG_SNAPSHOTS_RETAINED", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "ICEBERG_SNAPSHOTS_RETAINED='0' is not valid; legal values: a whole number from 1 to"
                + " 10000");
    assertThatThrownBy(
            () -> settings(env("ICEBERG_DATABASE", "kafka", "ICEBERG_TARGET_FILE_MB", "1e3")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("ICEBERG_TARGET_FILE_MB='1e3' is not valid");
  }
}
