package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/**
 * athena=true with parquet: the Glue table's columns are the declared schema (parquetSchema) with
 * their Hive type names, the function gets PARQUET_SCHEMA=glue:&lt;database&gt;.&lt;table&gt;
 * naming that very table, and the role may GetTable on it and nothing else of Glue. The table and
 * the files then agree by construction.
 */
class AthenaDeclaredSchemaTest {
  /** Every type of the declared vocabulary a table can carry, as written, and its Hive name. */
  static final List<String[]> TYPES =
      List.of(
          new String[] {"vehicle_id", "bigint", "bigint"},
          new String[] {"price", "decimal(10,2)", "decimal(10,2)"},
          new String[] {"amount", "DECIMAL(38, 9)", "decimal(38,9)"},
          new String[] {"legacy_number", "number", "decimal(38,9)"},
          new String[] {"whole", "decimal", "decimal(10,0)"},
          new String[] {"temp", "double", "double"},
          new String[] {"ratio", "float", "float"},
          new String[] {"seats", "int", "int"},
          new String[] {"small", "smallint", "int"},
          new String[] {"at", "timestamp", "timestamp"},
          new String[] {"at_ms", "timestamp(3)", "timestamp"},
          new String[] {"day", "date", "date"},
          new String[] {"ok", "boolean", "boolean"},
          new String[] {"name", "string", "string"},
          new String[] {"code", "varchar(8)", "string"},
          new String[] {"raw", "binary", "binary"},
          new String[] {"tags", "array<string>", "array<string>"},
          new String[] {"counts", "map<string, bigint>", "map<string,bigint>"},
          new String[] {
            "stops",
            "array<struct<at:timestamp,km:double>>",
            "array<struct<at:timestamp,km:double>>"
          },
          new String[] {
            "location",
            "struct<lat:double, lon:double, fix:struct<at:timestamp,sats:int>>",
            "struct<lat:double,lon:double,fix:struct<at:timestamp,sats:int>>"
          });

  static Template template;
  static Map<String, Object> table;

  static Map<String, Object> context(String schema) {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "parquet");
    c.put("athena", "true");
    c.put("parquetSchema", schema);
    return c;
  }

  static String schema() {
    StringBuilder json = new StringBuilder("{");
    for (String[] t : TYPES) {
      json.append(json.length() > 1 ? "," : "")
          .append('"')
          .append(t[0])
          .append("\":\"")
          .append(t[1])
          .append('"');
    }
    return json.append('}').toString();
  }

  @BeforeAll
  static void synthesize() {
    template = Template.fromStack(Fixtures.stack(context(schema())));
    table =
        Templates.cast(
            Templates.cast(template.findResources("AWS::Glue::Table").values().iterator().next())
                .get("Properties"));
  }

  @Test
  void shouldGiveTheTableTheDeclaredColumnsWithTheirHiveTypes() {
    Map<String, Object> input = Templates.cast(table.get("TableInput"));
    List<String> columns = new ArrayList<>();
    for (Object c : (List<?>) Templates.cast(input.get("StorageDescriptor")).get("Columns")) {
      Map<String, Object> column = Templates.cast(c);
      columns.add(column.get("Name") + " " + column.get("Type"));
    }
    assertThat(columns)
        .containsExactlyElementsOf(TYPES.stream().map(t -> t[0] + " " + t[2]).toList());
  }

  @Test
  void shouldPointTheFunctionAtThatTable() {
    Map<String, Object> input = Templates.cast(table.get("TableInput"));
    // Glue stores the names in lower case, and the function asks for them as stored.
    String stored =
        ("glue:" + table.get("DatabaseName") + "." + input.get("Name"))
            .toLowerCase(java.util.Locale.ROOT);
    assertThat(Templates.environment(template)).containsEntry("PARQUET_SCHEMA", stored);
    assertThat(Templates.environment(template).get("PARQUET_SCHEMA"))
        .isEqualTo("glue:s3_event_archive_prod.vehicle_telemetry");
  }

  @Test
  void shouldGrantGetTableOnThatTableOnlyAndNoOtherGlueAction() {
    InfraModel m = InfraMatrix.model(template.toJSON());
    String glue = "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:";
    assertThat(m.allowed().stream().filter(g -> g.startsWith("glue:")))
        .containsExactlyInAnyOrder(
            "glue:GetTable on " + glue + "catalog",
            "glue:GetTable on " + glue + "database/s3_event_archive_prod",
            "glue:GetTable on " + glue + "table/s3_event_archive_prod/vehicle_telemetry");
  }

  @Test
  void shouldRefuseWhatTheTableCannotCarryNamingTheFieldAndTheFix() {
    assertThatThrownBy(() -> Fixtures.stack(context("{\"payload\":\"json\"}")))
        .hasMessageContaining("parquetSchema field 'payload' has type 'json'")
        .hasMessageContaining("set athena=false");
    assertThatThrownBy(() -> Fixtures.stack(context("{\"tags\":\"array<json>\"}")))
        .hasMessageContaining("field 'tags'")
        .hasMessageContaining("its elements")
        .hasMessageContaining("JSON text");
    assertThatThrownBy(() -> Fixtures.stack(context("{\"at\":\"timestamp(6)\"}")))
        .hasMessageContaining("timestamp(6)");
    assertThatThrownBy(() -> Fixtures.stack(context("{\"p\":\"struct<m:map<string,json>>\"}")))
        .hasMessageContaining("its field 'm'");
    assertThatThrownBy(() -> Fixtures.stack(context("{\"vehicleId\":\"bigint\"}")))
        .hasMessageContaining("field 'vehicleId' cannot be a column")
        .hasMessageContaining("lower case");
  }

  @Test
  void shouldPassAnInlineSchemaWithoutAthenaAsIs() {
    Map<String, Object> c = context("{\"payload\":\"json\",\"at\":\"timestamp(6)\"}");
    c.remove("athena");
    Template t = Template.fromStack(Fixtures.stack(c));
    assertThat(Templates.environment(t))
        .containsEntry("PARQUET_SCHEMA", "{\"payload\":\"json\",\"at\":\"timestamp(6)\"}");
    assertThat(InfraMatrix.model(t.toJSON()).allowed()).noneMatch(g -> g.startsWith("glue:"));
  }
}
