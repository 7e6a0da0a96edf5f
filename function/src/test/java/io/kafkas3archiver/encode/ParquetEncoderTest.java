package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.DuckDb;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The schema rules of README "Formats, compression and schema", each checked by reading the file
 * back with DuckDB, an independent Parquet reader.
 */
class ParquetEncoderTest {
  private static DuckDb duck;

  @TempDir Path dir;

  @BeforeAll
  static void openDuckDb() {
    duck = new DuckDb();
  }

  @AfterAll
  static void closeDuckDb() {
    duck.close();
  }

  @Test
  void shouldMakeAFieldMissingFromSomeRecordsNullable() throws IOException {
    Path file = write(values("{\"a\": 1, \"b\": \"x\"}", "{\"a\": 2}"));

    assertThat(rows(file))
        .containsExactly(
            row("a", 1L, "b", "x", "_overflow", null), row("a", 2L, "b", null, "_overflow", null));
    assertThat(schema(file, "b", "repetition_type")).isEqualTo("OPTIONAL");
  }

  @Test
  void shouldTypeNumbersDoubleWhenTheBatchThatFirstHoldsThemHasFractions() throws IOException {
    Path file =
        write(
            values("{\"n\": 1}", "{\"n\": 1.5}", "{\"n\": -3}", "{\"n\": 1.0e5}", "{\"n\": 1e-9}"));

    assertThat(types(file)).containsEntry("n", "DOUBLE");
    assertThat(column(file, "n")).containsExactly(1.0, 1.5, -3.0, 100000.0, 1e-9);
  }

  @Test
  void shouldTypeIntegersBigint() throws IOException {
    Path file = write(values("{\"n\": 1}", "{\"n\": -3}", "{\"n\": 9223372036854775807}"));

    assertThat(types(file)).containsEntry("n", "BIGINT");
    assertThat(column(file, "n")).containsExactly(1L, -3L, Long.MAX_VALUE);
  }

  @Test
  void shouldKeepDoublesAsJavaAndJavaScriptPrintThem() throws IOException {
    Path file =
        write(values("{\"t\": 43.72154389814236}", "{\"t\": 0.1}", "{\"t\": 0.30000000000000004}"));

    assertThat(types(file)).containsEntry("t", "DOUBLE");
    assertThat(column(file, "t")).containsExactly(43.72154389814236, 0.1, 0.30000000000000004);
    assertThat(column(file, "_overflow")).containsOnlyNulls();
  }

  @Test
  void shouldSendAValueOfAnotherKindThanItsColumnToTheOverflowColumnAsJson() throws IOException {
    Path file = write(values("{\"n\": 1}", "{\"n\": 1.5}", "{\"n\": \"1\"}", "{\"n\": [2]}"));

    assertThat(types(file)).containsEntry("n", "DOUBLE");
    assertThat(column(file, "n")).containsExactly(1.0, 1.5, null, null);
    assertThat(column(file, "_overflow"))
        .containsExactly(null, null, "{\"n\":\"1\"}", "{\"n\":[2]}");
  }

  @Test
  void shouldKeepIntegersExactAsBigintOrStringBeyondTheirRange() throws IOException {
    Path file =
        write(
            values(
                "{\"i\": 9223372036854775807, \"big\": 1, \"unsafe\": 9007199254740993}",
                "{\"i\": -1, \"big\": 18446744073709551616, \"unsafe\": 0.5}"));

    assertThat(types(file))
        .containsEntry("i", "BIGINT")
        .containsEntry("big", "BIGINT")
        .containsEntry("unsafe", "BIGINT");
    assertThat(column(file, "i")).containsExactly(9223372036854775807L, -1L);
    assertThat(column(file, "big")).containsExactly(1L, null);
    assertThat(column(file, "unsafe")).containsExactly(9007199254740993L, null);
    assertThat(column(file, "_overflow"))
        .as("beyond int64, and a fraction in a bigint column, kept exactly as sent")
        .containsExactly(null, "{\"big\":18446744073709551616,\"unsafe\":0.5}");
  }

  @Test
  void shouldSendNumbersNoDoubleHoldsExactlyToTheOverflowColumnAsSent() throws IOException {
    Path file =
        write(
            values(
                "{\"x\": 1}",
                "{\"x\": 123456789012345678901234567890}",
                "{\"x\": 1e-12}",
                "{\"x\": -1E+400}",
                "{\"x\": 99999999999999999999999999999.999999999}"));

    assertThat(column(file, "x")).containsExactly(1.0, null, 1e-12, null, null);
    assertThat(column(file, "_overflow"))
        .containsExactly(
            null,
            "{\"x\":123456789012345678901234567890}",
            null,
            "{\"x\":-1E+400}",
            "{\"x\":99999999999999999999999999999.999999999}");
  }

  @Test
  void shouldWriteBooleansAsBoolean() throws IOException {
    Path file = write(values("{\"ok\": true}", "{\"ok\": false}", "{\"ok\": null}"));

    assertThat(types(file)).containsEntry("ok", "BOOLEAN");
    assertThat(column(file, "ok")).containsExactly(true, false, null);
  }

  @Test
  void shouldWriteNestedObjectsAndArraysAsJsonText() throws IOException {
    Path file =
        write(
            values(
                "{\"loc\": {\"lat\": 12.9716, \"lon\": 77.5946}, \"doors\": [\"closed\", \"open\"]}",
                "{\"loc\": {\"lat\": 1, \"deep\": {\"x\": [1, {\"y\": null}]}}, \"doors\": []}"));

    assertThat(types(file)).containsEntry("loc", "VARCHAR").containsEntry("doors", "VARCHAR");
    assertThat(column(file, "loc"))
        .containsExactly(
            "{\"lat\":12.9716,\"lon\":77.5946}", "{\"lat\":1,\"deep\":{\"x\":[1,{\"y\":null}]}}");
    assertThat(column(file, "doors")).containsExactly("[\"closed\",\"open\"]", "[]");
    assertThat(
            duck.query(
                "SELECT json_extract_string(loc, '$.lat') AS lat FROM read_parquet("
                    + DuckDb.literal(file)
                    + ")"))
        .extracting(r -> r.get("lat"))
        .containsExactly("12.9716", "1");
  }

  @Test
  void shouldGiveAFieldThatIsNullInEveryRecordNoColumnButKeepItInTheOverflow() throws IOException {
    Path file = write(values("{\"a\": 1, \"gone\": null}", "{\"a\": 2, \"gone\": null}"));

    assertThat(types(file)).containsOnlyKeys("a", "_overflow");
    assertThat(column(file, "_overflow")).containsExactly("{\"gone\":null}", "{\"gone\":null}");
  }

  @Test
  void shouldWriteFiveHundredFieldRecords() throws IOException {
    String wide =
        IntStream.range(0, 500)
            .mapToObj(i -> "\"f" + i + "\": " + i)
            .collect(Collectors.joining(", ", "{", "}"));
    Path file = write(values(wide, wide));

    assertThat(types(file))
        .hasSize(501)
        .containsEntry("f0", "BIGINT")
        .containsEntry("f499", "BIGINT");
    assertThat(rows(file).get(1)).containsEntry("f499", 499L).hasSize(501);
  }

  @Test
  void shouldKeepUnicodeAndOddFieldNamesAsWritten() throws IOException {
    Path file =
        write(
            values(
                "{\"speed km/h\": 1, \"a.b\": 2, \"1st\": 3, \"température\": 4, \"名前\": \"x\","
                    + " \"\": 5, \"emoji 🚗\": 6}"));

    assertThat(types(file).keySet())
        .containsExactly(
            "speed km/h", "a.b", "1st", "température", "名前", "_", "emoji 🚗", "_overflow");
    assertThat(
            duck.query(
                "SELECT \"a.b\" + \"1st\" AS s, \"名前\" AS n FROM read_parquet("
                    + DuckDb.literal(file)
                    + ")"))
        .containsExactly(row("s", 5L, "n", "x"));
  }

  @Test
  void shouldSuffixNamesThatDifferOnlyInCaseInFirstSeenOrder() throws IOException {
    Path file =
        write(
            values(
                "{\"Speed\": 1, \"speed\": 2}",
                "{\"SPEED\": 3, \"speed_2\": \"taken\", \"x\": 0}"));

    assertThat(types(file).keySet())
        .containsExactly("Speed", "speed_2", "SPEED_3", "speed_2_2", "x", "_overflow");
    assertThat(rows(file))
        .extracting(r -> r.get("Speed"), r -> r.get("speed_2"), r -> r.get("SPEED_3"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 2L, null),
            org.assertj.core.groups.Tuple.tuple(null, null, 3L));
    assertThat(column(file, "speed_2_2")).containsExactly(null, "taken");
  }

  @Test
  void shouldKeepInstantsAsStringsSoANonInstantInTheNextBatchCannotChangeTheType()
      throws IOException {
    Path file =
        write(
            values(
                "{\"ts\": \"2026-07-13T15:04:05Z\"}",
                "{\"ts\": \"2026-07-13T17:04:05.123456+02:00\"}"));

    assertThat(types(file)).containsEntry("ts", "VARCHAR");
    assertThat(column(file, "ts"))
        .containsExactly("2026-07-13T15:04:05Z", "2026-07-13T17:04:05.123456+02:00");
  }

  @Test
  void shouldWriteAValidZeroRowFileWhenTheBatchIsEmptyAfterTombstonesAreSkipped()
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    EncodeResult result =
        encoder(false).encode(List.of(record(0, null, null), record(1, null, null)), out);

    // The object still claims its offsets (exactly-once): it must be a Parquet file that a glob
    // over the folder can open, not zero bytes.
    assertThat(result.rowsWritten()).isZero();
    assertThat(result.tombstonesSkipped()).isEqualTo(2);
    Path file = dir.resolve("zero-rows.parquet");
    Files.write(file, out.toByteArray());
    assertThat(rows(file)).isEmpty();
  }

  @Test
  void shouldWriteEmptyObjectsAsRowsThroughTheAlwaysPresentOverflowColumn() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    EncodeResult result =
        encoder(false).encode(List.of(record(0, null, "{}"), record(1, null, null)), out);

    assertThat(result.rowsWritten()).isEqualTo(1);
    assertThat(result.tombstonesSkipped()).isEqualTo(1);
    assertThat(result.rejected()).isEmpty();
    Path file = dir.resolve("empty.parquet");
    Files.write(file, out.toByteArray());
    assertThat(rows(file)).containsExactly(row("_overflow", null));
  }

  @Test
  void shouldKeepTombstonesAndEmptyObjectsAsRowsWhenMetadataIsOn() throws IOException {
    Path file = write(encoder(true), List.of(record(0, "k", null), record(1, "k", "{}")));

    assertThat(types(file).keySet())
        .containsExactly(
            "kafka_topic",
            "kafka_partition",
            "kafka_offset",
            "kafka_timestamp",
            "kafka_timestamp_type",
            "kafka_key",
            "kafka_headers",
            "kafka_key_base64",
            "kafka_exact",
            "_overflow");
    assertThat(column(file, "kafka_offset")).containsExactly(0L, 1L);
    // {} has no cell, so it would read back as a tombstone: that row keeps its bytes ("{}").
    assertThat(column(file, "kafka_exact")).containsExactly(null, "{\"value_base64\":\"e30=\"}");
  }

  @Test
  void shouldRejectValuesThatAreNotJsonObjects() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<KafkaRecord> records =
        List.of(
            record(0, null, "{\"a\": 1}"),
            record(1, null, "engine fault"),
            record(2, null, "[1, 2]"),
            new KafkaRecord(
                "t", 0, 3, 1, "CREATE_TIME", null, new byte[] {(byte) 0xff, 0}, List.of()));

    EncodeResult result = encoder(false).encode(records, out);

    assertThat(result.rowsWritten()).isEqualTo(1);
    assertThat(result.rejected())
        .extracting(r -> r.offset() + ": " + r.reason())
        .containsExactly(
            // The parser's own message would quote the value ('engine'): payload in a reason.
            "1: parquet needs a JSON object value; this value is not JSON: Unrecognized token",
            "2: parquet needs a JSON object value; this value is a JSON array",
            "3: parquet needs a JSON object value; this value is not UTF-8 text");
  }

  @Test
  void shouldWriteKafkaMetadataColumnsWithProperTypes() throws IOException {
    List<KafkaRecord> records =
        List.of(
            new KafkaRecord(
                "vehicle-telemetry",
                3,
                42,
                1783955045123L,
                "CREATE_TIME",
                "KA-01".getBytes(StandardCharsets.UTF_8),
                "{\"speed\": 1, \"kafka_offset\": \"mine\"}".getBytes(StandardCharsets.UTF_8),
                List.of(new Header("source", "gw-7".getBytes(StandardCharsets.UTF_8)))),
            new KafkaRecord(
                "vehicle-telemetry",
                3,
                43,
                -1,
                "NO_TIMESTAMP_TYPE",
                new byte[] {(byte) 0xc3, 0x28},
                null,
                List.of()));
    Path file = write(encoder(true), records);

    assertThat(types(file))
        .containsExactly(
            Map.entry("kafka_topic", "VARCHAR"),
            Map.entry("kafka_partition", "INTEGER"),
            Map.entry("kafka_offset", "BIGINT"),
            Map.entry("kafka_timestamp", "TIMESTAMP WITH TIME ZONE"),
            Map.entry("kafka_timestamp_type", "VARCHAR"),
            Map.entry("kafka_key", "VARCHAR"),
            Map.entry("kafka_headers", "VARCHAR"),
            Map.entry("kafka_key_base64", "VARCHAR"),
            Map.entry("kafka_exact", "VARCHAR"),
            Map.entry("speed", "BIGINT"),
            Map.entry("kafka_offset_2", "VARCHAR"),
            Map.entry("_overflow", "VARCHAR"));
    List<Map<String, Object>> rows = rows(file);
    assertThat(rows.get(0))
        .containsEntry("kafka_topic", "vehicle-telemetry")
        .containsEntry("kafka_partition", 3)
        .containsEntry("kafka_offset", 42L)
        .containsEntry("kafka_key", "KA-01")
        .containsEntry("kafka_headers", "[{\"name\":\"source\",\"value\":\"gw-7\"}]")
        .containsEntry("kafka_key_base64", null)
        .containsEntry("speed", 1L)
        .containsEntry("kafka_offset_2", "mine");
    assertThat(((OffsetDateTime) rows.get(0).get("kafka_timestamp")).toInstant())
        .isEqualTo(Instant.ofEpochMilli(1783955045123L));
    assertThat(rows.get(1))
        .as("a tombstone is a row with a null value, and -1 is no timestamp")
        .containsEntry("kafka_offset", 43L)
        .containsEntry("kafka_timestamp", null)
        .containsEntry("kafka_key", null)
        .containsEntry("kafka_key_base64", "wyg=")
        .containsEntry("speed", null);
    assertThat(schema(file, "kafka_timestamp", "logical_type"))
        .contains("isAdjustedToUTC=1")
        .contains("MILLIS");
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void shouldCompressEveryColumnChunkWithTheConfiguredCodec(Compression compression)
      throws IOException {
    Path file =
        write(
            new ParquetEncoder(compression, true),
            List.of(record(0, "k", "{\"a\": 1, \"s\": \"x\"}"), record(1, "k", "{\"a\": 2}")));

    String expected = compression == Compression.NONE ? "UNCOMPRESSED" : compression.name();
    assertThat(
            duck.query(
                "SELECT DISTINCT compression FROM parquet_metadata(" + DuckDb.literal(file) + ")"))
        .extracting(r -> r.get("compression"))
        .containsExactly(expected);
    assertThat(rows(file)).hasSize(2);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void shouldGiveIdenticalBytesForTheSameBatch(Compression compression) throws IOException {
    List<KafkaRecord> records =
        List.of(
            record(0, "k", "{\"a\": 1, \"ts\": \"2026-07-13T15:04:05Z\"}"),
            record(1, "k", "{\"a\": 2.5, \"n\": {\"x\": 1}}"));

    byte[] first = bytes(new ParquetEncoder(compression, true), records);
    byte[] second = bytes(new ParquetEncoder(compression, true), records);

    assertThat(first).isEqualTo(second);
    Path file = dir.resolve("same.parquet");
    Files.write(file, first);
    assertThat(
            duck.query(
                "SELECT created_by FROM parquet_file_metadata(" + DuckDb.literal(file) + ")"))
        .extracting(r -> (String) r.get("created_by"))
        .singleElement()
        .asString()
        .startsWith("parquet-mr version 1.18.1");
  }

  // --- helpers

  private static ParquetEncoder encoder(boolean metadata) {
    return new ParquetEncoder(Compression.SNAPPY, metadata);
  }

  private static List<KafkaRecord> values(String... json) {
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < json.length; i++) {
      records.add(record(i, null, json[i]));
    }
    return records;
  }

  private static KafkaRecord record(long offset, String key, String value) {
    return new KafkaRecord(
        "t",
        0,
        offset,
        1783955045000L + offset,
        "CREATE_TIME",
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
        List.of());
  }

  private Path write(List<KafkaRecord> records) throws IOException {
    return write(encoder(false), records);
  }

  private Path write(ParquetEncoder encoder, List<KafkaRecord> records) throws IOException {
    Path file = Files.createTempFile(dir, "batch", ".parquet");
    Files.write(file, bytes(encoder, records));
    return file;
  }

  private static byte[] bytes(ParquetEncoder encoder, List<KafkaRecord> records)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EncodeResult result = encoder.encode(records, out);
    assertThat(result.rejected()).isEmpty();
    return out.toByteArray();
  }

  private static List<Map<String, Object>> rows(Path file) {
    return duck.query("SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")");
  }

  private static List<Object> column(Path file, String name) {
    return rows(file).stream().map(r -> r.get(name)).toList();
  }

  private static Map<String, String> types(Path file) {
    Map<String, String> types = new LinkedHashMap<>();
    for (var r : duck.query("DESCRIBE SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")")) {
      types.put((String) r.get("column_name"), (String) r.get("column_type"));
    }
    return types;
  }

  private static String schema(Path file, String column, String attribute) {
    return duck
        .query(
            "SELECT CAST("
                + attribute
                + " AS VARCHAR) AS v FROM parquet_schema("
                + DuckDb.literal(file)
                + ") WHERE name = '"
                + column.replace("'", "''")
                + "'")
        .stream()
        .map(r -> (String) r.get("v"))
        .findFirst()
        .orElseThrow();
  }

  private static Map<String, Object> row(Object... keysAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      row.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return row;
  }
}
