package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.schema.DeclaredSchema;
import io.kafkas3archiver.schema.DeclaredSchemaRef;
import io.kafkas3archiver.schema.DeclaredTypes;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A declared schema (PARQUET_SCHEMA) wins over inference; a record that does not match goes to the
 * error object with a reason naming the field and the type, never the value. Every type of the
 * vocabulary is read back by DuckDB with its type and its exact value.
 */
class DeclaredSchemaTest {
  private static final String SCHEMA =
      "{\"id\":\"number\",\"name\":\"string\",\"flag\":\"boolean\",\"loc\":\"json\"}";

  @TempDir Path dir;

  @Test
  void shouldWriteTheDeclaredColumnsWithTheDeclaredTypesEvenWhenABatchLacksThem()
      throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    // the batch has no flag and no loc at all, and id holds only integers: inference would differ
    Path file =
        write(result, "{\"id\":1,\"name\":\"a\",\"extra\":2.5}", "{\"name\":\"b\",\"id\":2}");

    assertThat(result[0].rejected()).isEmpty();
    assertThat(types(file))
        .containsExactly(
            Map.entry("id", "DECIMAL(38,9)"),
            Map.entry("name", "VARCHAR"),
            Map.entry("flag", "BOOLEAN"),
            Map.entry("loc", "VARCHAR"),
            Map.entry("extra", "DOUBLE"),
            Map.entry("_overflow", "VARCHAR"));
  }

  @Test
  void shouldSendARecordThatDoesNotMatchToTheErrorObjectWithTheReason() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    Path file =
        write(
            result,
            "{\"id\":1,\"name\":\"ok\",\"flag\":true,\"loc\":{\"lat\":1}}",
            "{\"id\":\"A-17\",\"name\":\"x\"}",
            "{\"id\":2,\"name\":5}",
            "{\"id\":1e-12}",
            "{\"id\":3,\"loc\":\"not an object\"}",
            "{\"id\":null,\"name\":null}");

    assertThat(result[0].rowsWritten()).isEqualTo(2);
    assertThat(result[0].rejected())
        .extracting(r -> r.offset() + ": " + r.reason())
        .containsExactly(
            "1: field 'id' is a string, but PARQUET_SCHEMA declares it decimal(38,9)",
            "2: field 'name' is an integer, but PARQUET_SCHEMA declares it string",
            "3: field 'id' is a number with a fraction or exponent, but PARQUET_SCHEMA declares it"
                + " decimal(38,9)",
            "4: field 'loc' is a string, but PARQUET_SCHEMA declares it json (object or array)");
    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT CAST(id AS INTEGER) AS id, name, flag, loc FROM read_parquet("
                      + DuckDb.literal(file)
                      + ")"))
          .extracting(
              r -> r.get("id") + " " + r.get("name") + " " + r.get("flag") + " " + r.get("loc"))
          .containsExactly("1 ok true {\"lat\":1}", "null null null null");
    }
  }

  @Test
  void shouldWriteDeclaredBigintAndDoubleAsNaturalTypesAndRejectWhatTheyCannotHold()
      throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    Path file =
        write(
            "{\"n\":\"bigint\",\"temp\":\"double\"}",
            result,
            "{\"n\":9223372036854775807,\"temp\":43.72154389814236}",
            "{\"n\":-3,\"temp\":10}",
            "{\"n\":10.5,\"temp\":1.0}",
            "{\"n\":9223372036854775808}",
            "{\"temp\":0.1000000000000000000001}",
            "{\"temp\":\"hot\"}");

    assertThat(types(file))
        .containsExactly(
            Map.entry("n", "BIGINT"),
            Map.entry("temp", "DOUBLE"),
            Map.entry("_overflow", "VARCHAR"));
    assertThat(result[0].rowsWritten()).isEqualTo(2);
    // the reasons name the field and the types, never the value
    assertThat(result[0].rejected())
        .extracting(r -> r.offset() + ": " + r.reason())
        .containsExactly(
            "2: field 'n' is a number with a fraction or exponent, but PARQUET_SCHEMA declares it"
                + " bigint",
            "3: field 'n' is an integer, but PARQUET_SCHEMA declares it bigint",
            "4: field 'temp' is a number with a fraction or exponent, but PARQUET_SCHEMA declares"
                + " it double",
            "5: field 'temp' is a string, but PARQUET_SCHEMA declares it double");
    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT n, temp, _overflow FROM read_parquet(" + DuckDb.literal(file) + ")"))
          .extracting(r -> r.get("n") + " " + r.get("temp") + " " + r.get("_overflow"))
          .containsExactly("9223372036854775807 43.72154389814236 null", "-3 10.0 null");
    }
  }

  @Test
  void shouldRejectABadSchemaAtColdStartNamingTheVariableAndTheLegalValues() {
    assertThatThrownBy(() -> config("parquet", "{\"id\":\"text\"}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PARQUET_SCHEMA='{\"id\":\"text\"}'")
        .hasMessageContaining("field 'id': unknown type 'text'")
        .hasMessageContaining(
            "boolean, int, bigint, float, double, decimal(p,s), string, binary, date, timestamp")
        .hasMessageContaining("glue:<database>.<table>")
        .hasMessageContaining("s3://<bucket>/<key>");
    assertThatThrownBy(() -> config("parquet", "{\"p\":\"decimal(40,2)\"}"))
        .hasMessageContaining("decimal(40,2) is out of range: precision 1 to 38");
    assertThatThrownBy(() -> config("parquet", "{\"m\":\"map<int,string>\"}"))
        .hasMessageContaining("keys are not string");
    assertThatThrownBy(() -> config("parquet", "{\"s\":\"struct<a:int\"}"))
        .hasMessageContaining("lacks '>'");
    assertThatThrownBy(() -> config("parquet", "glue:justadatabase"))
        .hasMessageContaining("PARQUET_SCHEMA='glue:justadatabase'")
        .hasMessageContaining("glue:<database>.<table>");
    assertThatThrownBy(() -> config("parquet", "glue:db.t able"))
        .hasMessageContaining("letters, digits");
    assertThatThrownBy(() -> config("parquet", "s3://bucket-only"))
        .hasMessageContaining("s3://<bucket>/<key>");
    assertThatThrownBy(() -> config("parquet", "{\"a\":\"int\",\"A\":\"string\"}"))
        .hasMessageContaining("declared twice");
    assertThat(config("parquet", "glue:analytics.orders").parquetSchema())
        .contains(new DeclaredSchemaRef.GlueTable("analytics", "orders"));
    assertThat(config("parquet", "s3://conf/schemas/orders.json").parquetSchema())
        .contains(new DeclaredSchemaRef.S3Document("conf", "schemas/orders.json"));
    assertThatThrownBy(() -> config("parquet", "[1]"))
        .hasMessageContaining("PARQUET_SCHEMA")
        .hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> config("csv", SCHEMA))
        .hasMessageContaining("PARQUET_SCHEMA is set but OUTPUT_FORMAT is 'csv'");
    assertThat(config("parquet", SCHEMA).parquetSchema()).isPresent();
  }

  /**
   * One row per type of the vocabulary: the declared type, a JSON value that it holds, DuckDB's
   * type for the column, a DuckDB expression of {@code v} that prints the stored value, what it
   * prints, and a JSON value that the type cannot hold exactly.
   */
  static Stream<Arguments> vocabulary() {
    return Stream.of(
        Arguments.of("boolean", "true", "BOOLEAN", "CAST(v AS VARCHAR)", "true", "\"yes\""),
        Arguments.of(
            "int", "2147483647", "INTEGER", "CAST(v AS VARCHAR)", "2147483647", "2147483648"),
        Arguments.of(
            "bigint",
            "-9223372036854775808",
            "BIGINT",
            "CAST(v AS VARCHAR)",
            "-9223372036854775808",
            "1.5"),
        Arguments.of("float", "1.5", "FLOAT", "CAST(v AS VARCHAR)", "1.5", "0.1000000001"),
        Arguments.of(
            "double",
            "43.72154389814236",
            "DOUBLE",
            "CAST(v AS VARCHAR)",
            "43.72154389814236",
            "0.1000000000000000000001"),
        Arguments.of(
            "decimal(10,2)",
            "12345678.91",
            "DECIMAL(10,2)",
            "CAST(v AS VARCHAR)",
            "12345678.91",
            "1.234"),
        Arguments.of(
            "decimal(38,9)",
            "-12345678901234567890123456789.123456789",
            "DECIMAL(38,9)",
            "CAST(v AS VARCHAR)",
            "-12345678901234567890123456789.123456789",
            "123456789012345678901234567890"),
        Arguments.of("string", "\"h\u00e9llo\"", "VARCHAR", "v", "h\u00e9llo", "5"),
        Arguments.of("binary", "\"AAEC/w==\"", "BLOB", "base64(v)", "AAEC/w==", "\"!!\""),
        Arguments.of(
            "date", "\"2026-12-06\"", "DATE", "CAST(v AS VARCHAR)", "2026-12-06", "\"06/12/2026\""),
        Arguments.of("date", "20428", "DATE", "CAST(v AS VARCHAR)", "2025-12-06", "1.5"),
        Arguments.of(
            "timestamp",
            "\"2026-12-06T01:02:03.456Z\"",
            "TIMESTAMP WITH TIME ZONE",
            "CAST(epoch_ms(v) AS VARCHAR)",
            "1796518923456",
            "\"2026-12-06T01:02:03.4567Z\""),
        Arguments.of(
            "timestamp",
            "1796518923456",
            "TIMESTAMP WITH TIME ZONE",
            "CAST(epoch_ms(v) AS VARCHAR)",
            "1796518923456",
            "\"yesterday\""),
        Arguments.of(
            "timestamp",
            "\"2026-12-06 01:02:03\"",
            "TIMESTAMP WITH TIME ZONE",
            "CAST(epoch_ms(v) AS VARCHAR)",
            "1796518923000",
            "true"),
        Arguments.of(
            "timestamp(6)",
            "\"2026-12-06T02:02:03.456789+01:00\"",
            "TIMESTAMP WITH TIME ZONE",
            "CAST(epoch_us(v) AS VARCHAR)",
            "1796518923456789",
            "\"2026-12-06T01:02:03.4567891Z\""),
        Arguments.of("json", "{\"a\":[1,2]}", "VARCHAR", "v", "{\"a\":[1,2]}", "\"text\""),
        Arguments.of(
            "struct<a:int,b:string>",
            "{\"a\":1,\"b\":\"x\"}",
            "STRUCT(a INTEGER, b VARCHAR)",
            "CAST(v.a AS VARCHAR) || v.b",
            "1x",
            "5"),
        Arguments.of(
            "array<int>", "[1,null,2]", "INTEGER[]", "CAST(v AS VARCHAR)", "[1, NULL, 2]", "7"),
        Arguments.of("array<string>", "[]", "VARCHAR[]", "CAST(v AS VARCHAR)", "[]", "\"zz\""),
        Arguments.of(
            "array<struct<a:int>>",
            "[{\"a\":1},{\"a\":2}]",
            "STRUCT(a INTEGER)[]",
            "CAST(v[2].a AS VARCHAR)",
            "2",
            "{}"),
        Arguments.of(
            "map<string,int>",
            "{\"k\":1,\"l\":null}",
            "MAP(VARCHAR, INTEGER)",
            "CAST(v AS VARCHAR)",
            "{k=1, l=NULL}",
            "[1]"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("vocabulary")
  void shouldWriteEachDeclaredTypeSoThatDuckDbReadsItBackExactly(
      String type, String value, String duckType, String expression, String printed, String misfit)
      throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    Path file =
        write(
            "{\"v\":\"" + type + "\"}",
            result,
            "{\"v\":" + value + "}",
            "{\"v\":" + misfit + "}",
            "{\"v\":null}");

    assertThat(types(file))
        .containsExactly(Map.entry("v", duckType), Map.entry("_overflow", "VARCHAR"));
    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT " + expression + " AS p FROM read_parquet(" + DuckDb.literal(file) + ")"))
          .extracting(r -> r.get("p"))
          .containsExactly(printed, null);
    }
    // the misfit goes to the error object; the reason names the field and the type, not the value
    assertThat(result[0].rejected()).hasSize(1);
    String reason = result[0].rejected().get(0).reason();
    assertThat(reason)
        .startsWith("field 'v' is ")
        .endsWith("but PARQUET_SCHEMA declares it " + DeclaredTypes.name(DeclaredTypes.parse(type)))
        .doesNotContain(misfit.replace("\"", ""));
  }

  @Test
  void shouldMatchAFieldIgnoringCaseOnlyWhenNoFieldHasTheExactName() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    // Glue stores names in lower case; producers write camelCase
    Path file =
        write(
            "{\"vehicleid\":\"string\"}",
            result,
            "{\"vehicleId\":\"V-1\"}",
            "{\"vehicleid\":\"V-2\",\"vehicleId\":\"other\"}");

    assertThat(result[0].rejected()).isEmpty();
    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT vehicleid, vehicleId_2 AS other FROM read_parquet("
                      + DuckDb.literal(file)
                      + ")"))
          .extracting(r -> r.get("vehicleid") + " " + r.get("other"))
          .containsExactly("V-1 null", "V-2 other");
    }
  }

  @Test
  void shouldKeepTheExactValueWhereAReaderPrintsADeclaredCellDifferently() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    String dated = "{\"n\":1,\"s\":\"x\",\"d\":\"2026-12-06\"}";
    Path file =
        write(
            "{\"n\":\"bigint\",\"s\":\"string\",\"d\":\"date\"}",
            true,
            result,
            "{\"n\":1,\"s\":\"x\"}",
            dated,
            "{\"s\":\"42\"}");

    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT kafka_exact FROM read_parquet("
                      + DuckDb.literal(file)
                      + ") ORDER BY kafka_offset"))
          .extracting(r -> r.get("kafka_exact"))
          .containsExactly(
              // the cells give the value back as it was
              null,
              // a reader prints the date as a date: the value's bytes are kept
              "{\"value_base64\":\""
                  + java.util.Base64.getEncoder()
                      .encodeToString(dated.getBytes(StandardCharsets.UTF_8))
                  + "\"}",
              // a string that looks like a number stays a string
              "{\"text\":[\"s\"]}");
    }
  }

  private static ArchiverConfig config(String format, String schema) {
    return ArchiverConfig.fromEnv(
        Map.of(
            "BUCKET_NAME",
            "schema-bucket",
            "AWS_REGION",
            "us-east-1",
            "OUTPUT_FORMAT",
            format,
            "PARQUET_SCHEMA",
            schema));
  }

  private Path write(EncodeResult[] result, String... values) throws IOException {
    return write(SCHEMA, result, values);
  }

  private Path write(String schema, EncodeResult[] result, String... values) throws IOException {
    return write(schema, false, result, values);
  }

  private Path write(String schema, boolean metadata, EncodeResult[] result, String... values)
      throws IOException {
    List<KafkaRecord> records = Records.ofValues(values);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    result[0] =
        Encoder.forFormat(
                Format.PARQUET,
                Compression.SNAPPY,
                metadata,
                Optional.of(DeclaredSchema.parse(schema, "PARQUET_SCHEMA")))
            .encode(records, out);
    Path file = Files.createTempFile(dir, "batch", ".parquet");
    Files.write(file, out.toByteArray());
    return file;
  }

  private static Map<String, String> types(Path file) {
    Map<String, String> types = new LinkedHashMap<>();
    try (DuckDb duck = new DuckDb()) {
      for (var r :
          duck.query("DESCRIBE SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")")) {
        types.put((String) r.get("column_name"), (String) r.get("column_type"));
      }
    }
    return types;
  }
}
