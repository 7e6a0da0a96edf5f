package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/**
 * The Athena table follows a field template (issue 17): its partition columns and projection
 * describe the keys the function writes, and a layout projection cannot describe is refused at
 * synth with the reason.
 */
class AthenaFieldLayoutTest {
  static final String FIELD_TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.customer.region}/year=${YEAR}/month=${MONTH}"
          + "/day=${DAY}/hour=${HOUR}/${JOB_ID}";

  /**
   * Keys as FieldPartitionRoundTripIT saw the function write them for FIELD_TEMPLATE (topic
   * vehicle-telemetry here, as the fixtures archive it), where DuckDB's hive_partitioning found the
   * columns region, year, month, day and hour.
   */
  static final List<String> WRITTEN =
      List.of(
          "condense/vehicle-telemetry/region=eu-west-1/year=2026/month=07/day=12/hour=21/"
              + "1f3c65b4-01f3-33b3-8e65-736fc34bc5e4.ndjson",
          "condense/vehicle-telemetry/region=__HIVE_DEFAULT_PARTITION__/year=2026/month=07/day=13"
              + "/hour=15/3622b834-0e0c-3ac5-b90a-f493e43aeb0e.ndjson");

  static Map<String, Object> table;

  @BeforeAll
  static void synthesize() {
    Map<String, Object> c = fieldLayout();
    c.put("athena", "true");
    c.put("keyTemplate", FIELD_TEMPLATE);
    table = onlyTable(Template.fromStack(Fixtures.stack(c)));
  }

  /**
   * The self-managed fixture with provisioned pollers: record variables need batch item failures
   * (the fan-out guard defers through them), which only provisioned mappings report.
   */
  static Map<String, Object> fieldLayout() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.selfManaged());
    c.put("provisionedPollers", "true");
    return c;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> onlyTable(Template t) {
    Map<String, Map<String, Object>> tables = t.findResources("AWS::Glue::Table");
    assertThat(tables).hasSize(1);
    Map<String, Object> props =
        (Map<String, Object>) tables.values().iterator().next().get("Properties");
    return (Map<String, Object>) props.get("TableInput");
  }

  @SuppressWarnings("unchecked")
  static List<String> partitionColumns(Map<String, Object> tableInput) {
    List<String> names = new ArrayList<>();
    for (Object k : (List<Object>) tableInput.get("PartitionKeys")) {
      names.add((String) ((Map<String, Object>) k).get("Name"));
    }
    return names;
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> parameters(Map<String, Object> tableInput) {
    return (Map<String, String>) tableInput.get("Parameters");
  }

  @Test
  void shouldPartitionByTheTemplatesFoldersInOrder() {
    assertThat(partitionColumns(table)).containsExactly("region", "year", "month", "day", "hour");
  }

  @Test
  void shouldProjectAFieldFolderAsInjectedAndTimeFoldersAsBefore() {
    assertThat(parameters(table))
        .containsEntry("projection.region.type", "injected")
        .containsEntry("projection.year.type", "integer")
        .containsEntry("projection.month.digits", "2")
        .containsEntry("projection.hour.range", "0,23")
        .containsEntry(
            "storage.location.template",
            "s3://acme-kafka-archive/condense/vehicle-telemetry/region=${region}/year=${year}"
                + "/month=${month}/day=${day}/hour=${hour}/");
  }

  @Test
  void shouldDescribeTheKeysTheFunctionWrote() {
    // The location template as a pattern: each ${column} matches what its projection allows.
    Map<String, String> p = parameters(table);
    String location = p.get("storage.location.template").replace("s3://acme-kafka-archive/", "");
    StringBuilder regex = new StringBuilder();
    var m = Pattern.compile("\\$\\{([a-z_]+)}").matcher(location);
    int last = 0;
    while (m.find()) {
      regex.append(Pattern.quote(location.substring(last, m.start())));
      String column = m.group(1);
      regex.append(
          switch (p.get("projection." + column + ".type")) {
            case "integer" -> "(\\d{" + p.get("projection." + column + ".digits") + "})";
            case "injected" -> "([A-Za-z0-9._%-]+)";
            default -> throw new AssertionError(column);
          });
      last = m.end();
    }
    regex.append(Pattern.quote(location.substring(last))).append("[^/]+");
    for (String key : WRITTEN) {
      assertThat(key).matches(regex.toString());
    }
  }

  @Test
  void shouldProjectListedValuesAsAnEnumWithTheHiveDefault() {
    Map<String, Object> c = fieldLayout();
    c.put("athena", "true");
    c.put("keyTemplate", FIELD_TEMPLATE);
    c.put("athenaPartitionValues", "region=eu-west-1|us-east-1");
    assertThat(parameters(onlyTable(Template.fromStack(Fixtures.stack(c)))))
        .containsEntry("projection.region.type", "enum")
        .containsEntry(
            "projection.region.values", "eu-west-1,us-east-1,__HIVE_DEFAULT_PARTITION__");
  }

  @Test
  void shouldProjectADateFolderAsADate() {
    Map<String, Object> c = fieldLayout();
    c.put("athena", "true");
    c.put(
        "keyTemplate", "${KEY_PREFIX}/${OBJECT_NAME}/tenant=${header.tenant}/dt=${DATE}/${JOB_ID}");
    Map<String, Object> t = onlyTable(Template.fromStack(Fixtures.stack(c)));
    assertThat(partitionColumns(t)).containsExactly("tenant", "dt");
    assertThat(parameters(t))
        .containsEntry("projection.tenant.type", "injected")
        .containsEntry("projection.dt.type", "date")
        .containsEntry("projection.dt.format", "yyyy-MM-dd");
  }

  @Test
  void shouldRefuseAFolderProjectionCannotDescribeWithTheReason() {
    Map<String, Object> c = fieldLayout();
    c.put("athena", "true");
    c.put(
        "keyTemplate",
        "${KEY_PREFIX}/${OBJECT_NAME}/${value.customer.region}/year=${YEAR}/${JOB_ID}");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("athena=true cannot project keyTemplate=")
        .hasMessageContaining("the folder '${value.customer.region}' is not name=${VARIABLE}");

    c.put("keyTemplate", "${KEY_PREFIX}/${OBJECT_NAME}/p=${PARTITION}/${START_OFFSET}");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("the folder p=${PARTITION} has no projection");
  }

  @Test
  void shouldRefuseEnumValuesTheKeyWouldEscape() {
    Map<String, Object> c = fieldLayout();
    c.put("athena", "true");
    c.put("keyTemplate", FIELD_TEMPLATE);
    c.put("athenaPartitionValues", "region=eu west");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("the value 'eu west' of region holds characters the key escapes");
  }
}
