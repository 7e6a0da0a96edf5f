package io.kafkas3archiver.infra;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.services.glue.CfnDatabase;
import software.amazon.awscdk.services.glue.CfnTable;
import software.amazon.awscdk.services.glue.CfnTable.ColumnProperty;
import software.amazon.awscdk.services.glue.CfnTable.SerdeInfoProperty;
import software.amazon.awscdk.services.glue.CfnTable.StorageDescriptorProperty;
import software.amazon.awscdk.services.glue.CfnTable.TableInputProperty;
import software.constructs.Construct;

/**
 * A Glue database and table over {@code <prefix>/<topic>/year=/month=/day=/hour=}, with partition
 * projection, so Athena reads the archive with no crawler and no MSCK REPAIR.
 *
 * <ul>
 *   <li>ndjson without {@code athenaColumns}: one {@code line} column holding each raw JSON row
 *       (query with {@code json_extract_scalar(line, '$.field')}); works for any payload.
 *   <li>ndjson with columns: the OpenX JSON SerDe maps top-level fields to columns.
 *   <li>parquet: the declared columns, read by name.
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
        s.athenaColumns().isEmpty()
            ? List.of(column("line", "string"))
            : s.athenaColumns().stream()
                .map(c -> column(c.substring(0, c.indexOf(':')), c.substring(c.indexOf(':') + 1)))
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
                        List.of(
                            column("year", "string"),
                            column("month", "string"),
                            column("day", "string"),
                            column("hour", "string")))
                    .parameters(projection(s, location, parquet))
                    .storageDescriptor(sd.build())
                    .build())
            .build();
    table.getNode().addDependency(db);
    return table;
  }

  private static Map<String, String> projection(
      ArchiverSettings s, String location, boolean parquet) {
    return Map.ofEntries(
        Map.entry("classification", parquet ? "parquet" : "json"),
        Map.entry("projection.enabled", "true"),
        Map.entry("projection.year.type", "integer"),
        Map.entry("projection.year.range", PROJECTION_START_YEAR + ",2099"),
        Map.entry("projection.year.digits", "4"),
        Map.entry("projection.month.type", "integer"),
        Map.entry("projection.month.range", "1,12"),
        Map.entry("projection.month.digits", "2"),
        Map.entry("projection.day.type", "integer"),
        Map.entry("projection.day.range", "1,31"),
        Map.entry("projection.day.digits", "2"),
        Map.entry("projection.hour.type", "integer"),
        Map.entry("projection.hour.range", "0,23"),
        Map.entry("projection.hour.digits", "2"),
        Map.entry(
            "storage.location.template",
            location + "year=${year}/month=${month}/day=${day}/hour=${hour}/"));
  }

  private static ColumnProperty column(String name, String type) {
    return ColumnProperty.builder().name(name).type(type).build();
  }
}
