package io.kafkas3archiver.infra;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** The optional Glue database and table, for ndjson (raw lines) and parquet (columns). */
class AthenaTableTest {
  static Template ndjson;
  static Template parquet;

  @BeforeAll
  static void synthesize() {
    Map<String, Object> n = new LinkedHashMap<>(Fixtures.selfManaged());
    n.put("athena", "true");
    ndjson = Template.fromStack(Fixtures.stack(n));
    Map<String, Object> p = new LinkedHashMap<>(Fixtures.selfManaged());
    p.put("athena", "true");
    p.put("outputFormat", "parquet");
    p.put("parquetSchema", "{\"vehicleid\":\"string\",\"speedkmh\":\"double\"}");
    parquet = Template.fromStack(Fixtures.stack(p));
  }

  @Test
  void shouldCreateTheGlueDatabaseNamedAfterTheTitle() {
    ndjson.hasResourceProperties(
        "AWS::Glue::Database",
        Map.of("DatabaseInput", Match.objectLike(Map.of("Name", "S3_Event_Archive_Prod"))));
  }

  @Test
  void shouldPartitionByYearMonthDayHour() {
    ndjson.hasResourceProperties(
        "AWS::Glue::Table",
        Map.of(
            "TableInput",
            Match.objectLike(
                Map.of(
                    "PartitionKeys",
                    List.of(
                        Map.of("Name", "year", "Type", "string"),
                        Map.of("Name", "month", "Type", "string"),
                        Map.of("Name", "day", "Type", "string"),
                        Map.of("Name", "hour", "Type", "string"))))));
  }

  @Test
  void shouldProjectPartitionsOverTheKeyLayout() {
    ndjson.hasResourceProperties(
        "AWS::Glue::Table",
        Map.of(
            "TableInput",
            Match.objectLike(
                Map.of(
                    "Parameters",
                    Match.objectLike(
                        Map.of(
                            "projection.enabled", "true",
                            "projection.hour.range", "0,23",
                            "projection.month.digits", "2",
                            "storage.location.template",
                                "s3://acme-kafka-archive/condense/vehicle-telemetry/year=${year}/month=${month}/day=${day}/hour=${hour}/"))))));
  }

  @Test
  void shouldReadNdjsonAsRawLinesWithoutDeclaredColumns() {
    ndjson.hasResourceProperties(
        "AWS::Glue::Table",
        Map.of(
            "TableInput",
            Match.objectLike(
                Map.of(
                    "StorageDescriptor",
                    Match.objectLike(
                        Map.of(
                            "Columns",
                            List.of(Map.of("Name", "line", "Type", "string")),
                            "InputFormat",
                            "org.apache.hadoop.mapred.TextInputFormat"))))));
  }

  @Test
  void shouldReadParquetWithTheDeclaredColumns() {
    parquet.hasResourceProperties(
        "AWS::Glue::Table",
        Map.of(
            "TableInput",
            Match.objectLike(
                Map.of(
                    "StorageDescriptor",
                    Match.objectLike(
                        Map.of(
                            "Columns",
                                List.of(
                                    Map.of("Name", "vehicleid", "Type", "string"),
                                    Map.of("Name", "speedkmh", "Type", "double")),
                            "SerdeInfo",
                                Map.of(
                                    "SerializationLibrary",
                                    "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")))))));
  }
}
