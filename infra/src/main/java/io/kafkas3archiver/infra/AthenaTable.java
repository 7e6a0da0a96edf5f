package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.services.glue.CfnDatabase;
import software.amazon.awscdk.services.glue.CfnTable;
import software.amazon.awscdk.services.glue.CfnTable.ColumnProperty;
import software.amazon.awscdk.services.glue.CfnTable.SerdeInfoProperty;
import software.amazon.awscdk.services.glue.CfnTable.StorageDescriptorProperty;
import software.amazon.awscdk.services.glue.CfnTable.TableInputProperty;
import software.constructs.Construct;

/**
 * A Glue database and table over the archive's key layout, with partition projection, so Athena
 * reads the archive with no crawler and no MSCK REPAIR. The partition columns follow {@code
 * keyTemplate} (default {@code <prefix>/<topic>/year=/month=/day=/hour=}): see {@link Layout}.
 *
 * <ul>
 *   <li>ndjson without {@code athenaColumns}: one {@code line} column holding each raw JSON row
 *       (query with {@code json_extract_scalar(line, '$.field')}); works for any payload.
 *   <li>ndjson with columns: the OpenX JSON SerDe maps top-level fields to columns.
 *   <li>parquet: the columns of the declared schema ({@code parquetSchema}) with their Hive types;
 *       the function reads its schema from this table ({@code PARQUET_SCHEMA=glue:<db>.<table>}),
 *       so the table and the files agree by construction.
 * </ul>
 */
final class AthenaTable {
  static final String PROJECTION_START_YEAR = "2020";

  private AthenaTable() {}

  static CfnTable create(Construct scope, ArchiverSettings s, String bucketName) {
    CfnDatabase db =
        CfnDatabase.Builder.create(scope, "GlueDatabase")
            .catalogId(Aws.ACCOUNT_ID)
            .databaseInput(
                CfnDatabase.DatabaseInputProperty.builder()
                    .name(s.glueDatabaseName())
                    .description("kafka-s3-archiver " + s.title())
                    .build())
            .build();

    String location = "s3://" + bucketName + "/" + s.keyPrefix() + "/" + s.inputTopic() + "/";
    boolean parquet = s.outputFormat().equals("parquet");
    List<ColumnProperty> columns =
        parquet
            ? columns(s.parquetSchema().orElseThrow())
            : s.athenaColumns().isEmpty()
                ? List.of(column("line", "string"))
                : s.athenaColumns().stream()
                    .map(
                        c ->
                            column(c.substring(0, c.indexOf(':')), c.substring(c.indexOf(':') + 1)))
                    .toList();

    StorageDescriptorProperty.Builder sd =
        StorageDescriptorProperty.builder().location(location).columns(columns);
    if (parquet) {
      sd.inputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat")
          .outputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat")
          .serdeInfo(
              SerdeInfoProperty.builder()
                  .serializationLibrary(
                      "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")
                  .build());
    } else if (s.athenaColumns().isEmpty()) {
      sd.inputFormat("org.apache.hadoop.mapred.TextInputFormat")
          .outputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat")
          .serdeInfo(
              SerdeInfoProperty.builder()
                  .serializationLibrary("org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
                  // A field delimiter that JSON text never contains: the whole line is one column.
                  .parameters(Map.of("field.delim", "\u0001", "serialization.format", "\u0001"))
                  .build());
    } else {
      sd.inputFormat("org.apache.hadoop.mapred.TextInputFormat")
          .outputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat")
          .serdeInfo(
              SerdeInfoProperty.builder()
                  .serializationLibrary("org.openx.data.jsonserde.JsonSerDe")
                  .parameters(Map.of("ignore.malformed.json", "true"))
                  .build());
    }

    Layout layout = Layout.of(s.keyTemplate().orElse(Layout.DEFAULT), s.athenaPartitionValues());
    CfnTable table =
        CfnTable.Builder.create(scope, "AthenaTable")
            .catalogId(Aws.ACCOUNT_ID)
            .databaseName(s.glueDatabaseName())
            .tableInput(
                TableInputProperty.builder()
                    .name(s.athenaTableName())
                    .description("Archive of Kafka topic " + s.inputTopic())
                    .tableType("EXTERNAL_TABLE")
                    .partitionKeys(
                        layout.columns().stream().map(c -> column(c.name(), "string")).toList())
                    .parameters(projection(layout, location, parquet))
                    .storageDescriptor(sd.build())
                    .build())
            .build();
    table.getNode().addDependency(db);
    return table;
  }

  private static Map<String, String> projection(Layout layout, String location, boolean parquet) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("classification", parquet ? "parquet" : "json");
    p.put("projection.enabled", "true");
    for (Layout.Column c : layout.columns()) {
      c.projection().forEach((k, v) -> p.put("projection." + c.name() + "." + k, v));
    }
    p.put("storage.location.template", location + layout.locationTemplate());
    return p;
  }

  /**
   * The partition columns a key template gives, in order, or the reason projection cannot describe
   * it. Every folder after {@code ${KEY_PREFIX}/${OBJECT_NAME}/} must be {@code name=${VARIABLE}}
   * with a lower-case column name; the last segment is the file name.
   *
   * <ul>
   *   <li>{@code ${YEAR}}, {@code ${MONTH}}, {@code ${DAY}}, {@code ${HOUR}}: {@code integer}
   *       projection with the zero padding the function writes (the layout stays as before).
   *   <li>{@code ${DATE}}: {@code date} projection, {@code yyyy-MM-dd}, one day apart, from 2020.
   *   <li>{@code ${value.<path>}}, {@code ${key}}, {@code ${header.<name>}}: {@code injected}
   *       projection (queries must name the value in WHERE), or {@code enum} when {@code
   *       athenaPartitionValues} lists the column's values; the enum always includes {@code
   *       __HIVE_DEFAULT_PARTITION__}, where records without the value are.
   * </ul>
   */
  record Layout(List<Column> columns) {
    static final String DEFAULT =
        "${KEY_PREFIX}/${OBJECT_NAME}/year=${YEAR}/month=${MONTH}/day=${DAY}/hour=${HOUR}/${JOB_ID}";
    private static final String HEAD = "${KEY_PREFIX}/${OBJECT_NAME}/";
    private static final Pattern FOLDER = Pattern.compile("([a-z_][a-z0-9_]*)=\\$\\{([^}]+)}");
    private static final Pattern RECORD_VARIABLE =
        Pattern.compile("value(\\.[^.\\[\\]*]+)+|key|header\\.[^}]+");

    record Column(String name, Map<String, String> projection) {}

    String locationTemplate() {
      StringBuilder t = new StringBuilder();
      columns.forEach(c -> t.append(c.name()).append("=${").append(c.name()).append("}/"));
      return t.toString();
    }

    static Layout of(String template, Map<String, List<String>> enumValues) {
      if (!template.startsWith(HEAD)) {
        throw refuse(template, "it does not begin with " + HEAD);
      }
      String[] segments = template.substring(HEAD.length()).split("/", -1);
      List<Column> columns = new ArrayList<>();
      for (int i = 0; i < segments.length - 1; i++) {
        Matcher m = FOLDER.matcher(segments[i]);
        if (!m.matches()) {
          throw refuse(
              template,
              "the folder '"
                  + segments[i]
                  + "' is not name=${VARIABLE} with one variable and a lower-case column name,"
                  + " so Athena cannot name it as a partition column");
        }
        String name = m.group(1);
        String variable = m.group(2);
        if (columns.stream().anyMatch(c -> c.name().equals(name))) {
          throw refuse(template, "the column '" + name + "' appears twice");
        }
        columns.add(new Column(name, projection(template, name, variable, enumValues)));
      }
      if (columns.isEmpty()) {
        throw refuse(template, "it has no folders to partition by");
      }
      for (String listed : enumValues.keySet()) {
        if (columns.stream().noneMatch(c -> c.name().equals(listed))) {
          throw new IllegalArgumentException(
              "athenaPartitionValues lists values for '"
                  + listed
                  + "', which is not a record-variable column of keyTemplate='"
                  + template
                  + "'");
        }
      }
      return new Layout(List.copyOf(columns));
    }

    private static Map<String, String> projection(
        String template, String name, String variable, Map<String, List<String>> enumValues) {
      Map<String, String> p = new LinkedHashMap<>();
      switch (variable) {
        case "YEAR" -> integer(p, PROJECTION_START_YEAR + ",2099", "4");
        case "MONTH" -> integer(p, "1,12", "2");
        case "DAY" -> integer(p, "1,31", "2");
        case "HOUR" -> integer(p, "0,23", "2");
        case "DATE" -> {
          p.put("type", "date");
          p.put("format", "yyyy-MM-dd");
          p.put("range", PROJECTION_START_YEAR + "-01-01,NOW");
          p.put("interval", "1");
          p.put("interval.unit", "DAYS");
        }
        default -> {
          if (!RECORD_VARIABLE.matcher(variable).matches()) {
            throw refuse(
                template,
                "the folder "
                    + name
                    + "=${"
                    + variable
                    + "} has no projection: only ${YEAR}, ${MONTH}, ${DAY}, ${HOUR}, ${DATE} and"
                    + " the record variables ${value.<path>}, ${key}, ${header.<name>} can be"
                    + " partition folders");
          }
          List<String> values = enumValues.get(name);
          if (values == null) {
            p.put("type", "injected");
          } else {
            List<String> all = new ArrayList<>(values);
            if (!all.contains("__HIVE_DEFAULT_PARTITION__")) {
              all.add("__HIVE_DEFAULT_PARTITION__");
            }
            p.put("type", "enum");
            p.put("values", String.join(",", all));
          }
        }
      }
      return p;
    }

    private static void integer(Map<String, String> p, String range, String digits) {
      p.put("type", "integer");
      p.put("range", range);
      p.put("digits", digits);
    }

    private static IllegalArgumentException refuse(String template, String why) {
      return new IllegalArgumentException(
          "athena=true cannot project keyTemplate='"
              + template
              + "': "
              + why
              + "; use name=${VARIABLE} folders, or set athena=false");
    }
  }

  /**
   * A parquet table's columns: the declared schema's fields, in order, with their Hive types. The
   * function reads its schema back from this table (PARQUET_SCHEMA=glue:<database>.<table>).
   */
  static List<ColumnProperty> columns(String declaredSchema) {
    return DeclaredSchema.parse(declaredSchema).tableColumns().stream()
        .map(c -> column(c.name(), c.type().hive()))
        .toList();
  }

  private static ColumnProperty column(String name, String type) {
    return ColumnProperty.builder().name(name).type(type).build();
  }
}
