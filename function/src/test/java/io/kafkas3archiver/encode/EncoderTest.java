package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

/** Round trips of each text encoder, read back with Jackson and commons-csv parsers. */
class EncoderTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final byte[] NOT_UTF8 = {(byte) 0xc3, (byte) 0x28, 0x01};

  private static KafkaRecord record(long offset, String value) {
    return record(offset, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  private static KafkaRecord record(long offset, byte[] value) {
    return new KafkaRecord(
        "t",
        0,
        offset,
        1783955045000L + offset,
        "CREATE_TIME",
        ("k" + offset).getBytes(StandardCharsets.UTF_8),
        value,
        List.of(new Header("h", "v".getBytes(StandardCharsets.UTF_8))));
  }

  private static final List<KafkaRecord> MIXED =
      List.of(
          record(0, "{\"id\":1,\"price\":12.50,\"tags\":[\"a\",\"b\"],\"nested\":{\"x\":true}}"),
          record(1, "{\n  \"id\": 2,\n  \"extra\": \"line\\nbreak\"\n}\n"),
          record(2, (String) null),
          record(3, "plain text, not JSON"),
          record(4, NOT_UTF8),
          record(5, "[1,2,3]"),
          record(6, "\uFEFF{\"bom\":true}"));

  private static String encode(Encoder encoder, List<KafkaRecord> records, EncodeResult[] result)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    result[0] = encoder.encode(records, out);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void ndjsonShouldEmbedJsonAsIsAndEncodeTextAndBinaryAsDocumented() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    String text = encode(Encoder.forFormat(Format.NDJSON, false), MIXED, result);
    List<String> lines = text.lines().toList();

    assertThat(result[0].rowsWritten()).isEqualTo(6);
    assertThat(result[0].tombstonesSkipped()).isEqualTo(1);
    assertThat(result[0].rejected()).isEmpty();
    assertThat(lines).hasSize(6);
    assertThat(lines.get(0))
        .isEqualTo("{\"id\":1,\"price\":12.50,\"tags\":[\"a\",\"b\"],\"nested\":{\"x\":true}}");
    assertThat(MAPPER.readTree(lines.get(1)))
        .isEqualTo(MAPPER.readTree("{\"id\":2,\"extra\":\"line\\nbreak\"}"));
    assertThat(MAPPER.readTree(lines.get(2)).textValue()).isEqualTo("plain text, not JSON");
    assertThat(
            Base64.getDecoder()
                .decode(MAPPER.readTree(lines.get(3)).get("value_base64").textValue()))
        .isEqualTo(NOT_UTF8);
    assertThat(lines.get(4)).isEqualTo("[1,2,3]");
    assertThat(MAPPER.readTree(lines.get(5)).textValue()).isEqualTo("\uFEFF{\"bom\":true}");
  }

  @Test
  void jsonShouldWriteOneArrayWithTheSameRowsAsNdjson() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    JsonNode array = MAPPER.readTree(encode(Encoder.forFormat(Format.JSON, false), MIXED, result));
    String ndjson = encode(Encoder.forFormat(Format.NDJSON, false), MIXED, new EncodeResult[1]);

    assertThat(array.isArray()).isTrue();
    assertThat(array.size()).isEqualTo(6);
    List<String> lines = ndjson.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      assertThat(array.get(i)).isEqualTo(MAPPER.readTree(lines.get(i)));
    }
  }

  @Test
  void jsonShouldWriteAValidEmptyArrayWhenOnlyTombstonesCame() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    String text =
        encode(Encoder.forFormat(Format.JSON, false), List.of(record(0, (String) null)), result);

    assertThat(MAPPER.readTree(text).size()).isZero();
    assertThat(result[0].rowsWritten()).isZero();
  }

  @Test
  void metadataEnvelopeShouldCarryEverythingARestoreNeeds() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    List<String> lines =
        encode(Encoder.forFormat(Format.NDJSON, true), MIXED, result).lines().toList();

    assertThat(result[0].rowsWritten()).isEqualTo(7);
    assertThat(result[0].tombstonesSkipped()).isZero();
    JsonNode first = MAPPER.readTree(lines.get(0));
    assertThat(first.get("topic").textValue()).isEqualTo("t");
    assertThat(first.get("partition").intValue()).isZero();
    assertThat(first.get("offset").longValue()).isZero();
    assertThat(first.get("timestamp").longValue()).isEqualTo(1783955045000L);
    assertThat(first.get("timestamp_type").textValue()).isEqualTo("CREATE_TIME");
    assertThat(first.get("key").textValue()).isEqualTo("k0");
    assertThat(first.get("headers").get(0).get("name").textValue()).isEqualTo("h");
    assertThat(first.get("headers").get(0).get("value").textValue()).isEqualTo("v");
    assertThat(first.get("value").get("price").decimalValue()).isEqualByComparingTo("12.50");
    JsonNode tombstone = MAPPER.readTree(lines.get(2));
    assertThat(tombstone.has("value")).isTrue();
    assertThat(tombstone.get("value").isNull()).isTrue();
    JsonNode binary = MAPPER.readTree(lines.get(4));
    assertThat(Base64.getDecoder().decode(binary.get("value_base64").textValue()))
        .isEqualTo(NOT_UTF8);
  }

  @Test
  void metadataEnvelopeShouldAddExactBytesOnlyWhereTheEmbeddedValueWouldNotGiveThemBack()
      throws IOException {
    String multiLine = "{\n  \"id\": 2\n}\n";
    List<KafkaRecord> records =
        List.of(
            record(0, "{\"id\":1}"),
            record(1, multiLine),
            record(2, " 42 "),
            record(3, "\"a JSON string literal\""),
            record(4, "null"),
            record(5, "plain text"),
            record(6, (String) null));
    List<String> lines =
        encode(Encoder.forFormat(Format.NDJSON, true), records, new EncodeResult[1])
            .lines()
            .toList();

    List<String> exact =
        lines.stream()
            .map(this::readTree)
            .map(n -> n.get(JsonEncoder.VALUE_EXACT_FIELD))
            .map(v -> v == null ? null : new String(Base64.getDecoder().decode(v.textValue())))
            .toList();
    assertThat(exact)
        .containsExactly(null, multiLine, " 42 ", "\"a JSON string literal\"", "null", null, null);
    // It comes before "value", which a reader may take as the envelope's last field.
    assertThat(lines.get(3).indexOf(JsonEncoder.VALUE_EXACT_FIELD))
        .isLessThan(lines.get(3).lastIndexOf("\"value\":"));
  }

  private JsonNode readTree(String line) {
    try {
      return MAPPER.readTree(line);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void csvShouldWriteTheUnionOfFieldsAndRejectNonObjects() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    String text = encode(Encoder.forFormat(Format.CSV, false), MIXED, result);
    List<CSVRecord> rows = parseCsv(text);

    // A byte-order mark is an encoding marker, not content: csv reads the JSON behind it.
    // _overflow comes first, so the columns a later batch appends never move it.
    assertThat(rows.get(0).toList())
        .containsExactly("_overflow", "id", "price", "tags", "nested", "extra", "bom");
    assertThat(rows.get(1).toList())
        .containsExactly("", "1", "12.50", "[\"a\",\"b\"]", "{\"x\":true}", "", "");
    assertThat(rows.get(2).toList()).containsExactly("", "2", "", "", "", "line\nbreak", "");
    assertThat(rows.get(3).toList()).containsExactly("", "", "", "", "", "", "true");
    assertThat(rows).hasSize(4);
    assertThat(result[0].rowsWritten()).isEqualTo(3);
    assertThat(result[0].tombstonesSkipped()).isEqualTo(1);
    assertThat(result[0].rejected()).extracting(r -> r.offset()).containsExactly(3L, 4L, 5L);
    assertThat(result[0].rejected().get(2).reason()).contains("a JSON array");
  }

  @Test
  void csvShouldRejectDuplicateKeysRatherThanDropOne() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    encode(Encoder.forFormat(Format.CSV, false), List.of(record(0, "{\"a\":1,\"a\":2}")), result);

    assertThat(result[0].rejected())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.reason())
                    .endsWith("this value is not JSON: Duplicate field")
                    .doesNotContain("'a'"));
  }

  @Test
  void csvWithMetadataShouldPutKafkaColumnsFirstAndKeepTombstones() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    List<CSVRecord> rows =
        parseCsv(encode(Encoder.forFormat(Format.CSV, true), MIXED.subList(0, 3), result));

    assertThat(rows.get(0).toList().subList(0, 9)).isEqualTo(CsvEncoder.METADATA_COLUMNS);
    assertThat(rows.get(1).get(0)).isEqualTo("t");
    assertThat(rows.get(1).get(5)).isEqualTo("k0");
    assertThat(rows.get(1).get(6)).isEqualTo("[{\"name\":\"h\",\"value\":\"v\"}]");
    assertThat(rows.get(3).get(2)).isEqualTo("2");
    assertThat(rows.get(3).get(10)).as("a tombstone's value cells are empty").isEmpty();
    assertThat(result[0].rowsWritten()).isEqualTo(3);
  }

  @Test
  void errorObjectShouldCarryTheRawValueInBase64() throws IOException {
    EncodeResult[] result = new EncodeResult[1];
    encode(Encoder.forFormat(Format.CSV, false), List.of(record(4, NOT_UTF8)), result);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new ErrorObjectEncoder().encode(result[0].rejected(), out);

    JsonNode line =
        MAPPER.readTree(out.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow());
    assertThat(line.get("topic").textValue()).isEqualTo("t");
    assertThat(line.get("offset").longValue()).isEqualTo(4);
    assertThat(line.get("reason").textValue()).contains("not UTF-8");
    assertThat(Base64.getDecoder().decode(line.get("value_base64").textValue()))
        .isEqualTo(NOT_UTF8);
  }

  @Test
  void gzipShouldRoundTripAndBeDeterministic() throws IOException {
    byte[] first = compress("hello hello hello".getBytes(StandardCharsets.UTF_8));
    byte[] second = compress("hello hello hello".getBytes(StandardCharsets.UTF_8));

    assertThat(first).isEqualTo(second);
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(first))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
          .isEqualTo("hello hello hello");
    }
  }

  private static byte[] compress(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (var z = Compression.GZIP.wrap(out)) {
      z.write(bytes);
    }
    return out.toByteArray();
  }

  private static List<CSVRecord> parseCsv(String text) throws IOException {
    try (CSVParser parser = CSVParser.parse(new StringReader(text), CSVFormat.RFC4180)) {
      return parser.getRecords();
    }
  }
}
