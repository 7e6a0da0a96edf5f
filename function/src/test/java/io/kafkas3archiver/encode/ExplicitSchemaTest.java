package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.DuckDb;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PARQUET_SCHEMA wins over inference; a record that does not match goes to the error object. */
class ExplicitSchemaTest {
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
            "1: field 'id' is a string, but PARQUET_SCHEMA declares it number",
            "2: field 'name' is a number, but PARQUET_SCHEMA declares it string",
            "3: field 'id' is a number beyond DECIMAL(38,9), but PARQUET_SCHEMA declares it number",
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
            "2: field 'n' is a number that is not an integer of 64 bits, but PARQUET_SCHEMA"
                + " declares it bigint",
            "3: field 'n' is a number that is not an integer of 64 bits, but PARQUET_SCHEMA"
                + " declares it bigint",
            "4: field 'temp' is a number that no double holds exactly, but PARQUET_SCHEMA declares"
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
    assertThatThrownBy(() -> config("parquet", "{\"id\":\"integer\"}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PARQUET_SCHEMA='{\"id\":\"integer\"}'")
        .hasMessageContaining("unknown type 'integer'")
        .hasMessageContaining(
            "\"bigint\", \"double\", \"number\", \"boolean\", \"string\" or \"json\"");
    assertThatThrownBy(() -> config("parquet", "[1]"))
        .hasMessageContaining("PARQUET_SCHEMA")
        .hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> config("csv", SCHEMA))
        .hasMessageContaining("PARQUET_SCHEMA is set but OUTPUT_FORMAT is 'csv'");
    assertThat(config("parquet", SCHEMA).parquetSchema()).isPresent();
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
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      records.add(
          new KafkaRecord(
              "t",
              0,
              i,
              1783955045000L + i,
              "CREATE_TIME",
              null,
              values[i].getBytes(StandardCharsets.UTF_8),
              List.of()));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    result[0] =
        Encoder.forFormat(
                Format.PARQUET,
                Compression.SNAPPY,
                false,
                Optional.of(ExplicitSchema.parse(schema)))
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
