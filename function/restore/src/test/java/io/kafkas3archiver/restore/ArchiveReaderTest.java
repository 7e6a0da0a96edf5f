package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.Format;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The archive reader against the archiver's own encoders, with no server: every format with every
 * codec reads back to the records that went in (RestoreEndToEndIT runs one codec per format through
 * Kafka and S3), and a csv or parquet row that the columns reproduce needs no {@code kafka_exact}
 * cell, so the exactness costs nothing for canonical JSON.
 */
class ArchiveReaderTest {
  static Stream<Arguments> formatsAndCodecs() {
    List<Arguments> all = new ArrayList<>();
    for (Format f : List.of(Format.JSON, Format.NDJSON, Format.CSV, Format.PARQUET)) {
      for (Compression c : Compression.values()) {
        all.add(Arguments.of(f, c));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} + {1}")
  @MethodSource("formatsAndCodecs")
  void shouldReadBackEveryRecordInEveryFormatAndCodec(Format format, Compression codec)
      throws IOException {
    List<KafkaRecord> records =
        List.of(
            record(0, new byte[0], "{\"city\":\"Z\\u00fcrich\",\"n\":1.50}"),
            record(1, null, "{\"a\":1,\"b\":null}"),
            record(2, new byte[] {(byte) 0xff, 0}, "{\"s\":\"42\",\"t\":\"\"}"),
            record(3, "k".getBytes(StandardCharsets.UTF_8), null),
            record(4, "k".getBytes(StandardCharsets.UTF_8), " {\"x\" : [1, 2e3]}\n"));

    ObjectRows rows = roundTrip(format, codec, records);

    assertThat(rows.records().stream().map(ArchiveReaderTest::describe))
        .containsExactlyElementsOf(records.stream().map(ArchiveReaderTest::describe).toList());
  }

  @Test
  void shouldNeedNoExactCellForCompactJsonAndMergeTheOverflowColumnBack() throws IOException {
    // nf_b is null in every record of the batch: parquet gives it no column, so it sits in
    // _overflow, which the restore merges back instead of emitting it as a field.
    List<KafkaRecord> records =
        List.of(
            record(0, "k".getBytes(StandardCharsets.UTF_8), "{\"nf_a\":1,\"nf_b\":null}"),
            record(1, "k".getBytes(StandardCharsets.UTF_8), "{\"nf_a\":2,\"nf_b\":null}"));

    for (Format format : List.of(Format.PARQUET)) {
      byte[] file = encode(format, Compression.NONE, records);
      // Every object carries the topic schema's kafka_exact column (issue 24); no cell holds the
      // value's bytes again.
      String text = new String(file, StandardCharsets.ISO_8859_1);
      for (KafkaRecord r : records) {
        assertThat(text).doesNotContain(java.util.Base64.getEncoder().encodeToString(r.value()));
      }
      ObjectRows rows = decode(format, Compression.NONE, file);
      assertThat(rows.records().stream().map(ArchiveReaderTest::describe))
          .containsExactlyElementsOf(records.stream().map(ArchiveReaderTest::describe).toList());
    }
    List<KafkaRecord> compact =
        List.of(record(0, "k".getBytes(StandardCharsets.UTF_8), "{\"a\":1,\"b\":\"x\"}"));
    byte[] csv = encode(Format.CSV, Compression.NONE, compact);
    // Parsed as RFC 4180: the headers cell is JSON text with commas of its own.
    List<CSVRecord> lines =
        CSVFormat.RFC4180
            .parse(new StringReader(new String(csv, StandardCharsets.UTF_8)))
            .getRecords();
    int exact = lines.get(0).toList().indexOf("kafka_exact");
    assertThat(exact).as("the schema's kafka_exact column: %s", lines.get(0)).isNotNegative();
    assertThat(lines.get(1).get(exact)).as("its cell in %s", lines.get(1)).isEmpty();
    assertThat(describe(decode(Format.CSV, Compression.NONE, csv).records().get(0)))
        .isEqualTo(describe(compact.get(0)));
  }

  /**
   * Declared struct, array and map columns are Parquet groups, LIST and MAP: the reader turns them
   * back into the value's JSON (exactly, with the metadata's kafka_exact; as equal JSON without).
   */
  @ParameterizedTest(name = "metadata={0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
  void shouldReadDeclaredNestedColumnsBack(boolean metadata) throws IOException {
    List<KafkaRecord> records =
        List.of(
            record(
                0,
                null,
                "{\"p\":{\"lat\":1.5,\"tag\":\"a\\\"b\"},\"tags\":[\"x\",null],\"n\":{\"k\":7}}"),
            // (A null field reads back as a missing one without the metadata: the test above.)
            record(1, null, "{\"tags\":[],\"n\":{}}"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Encoder.forFormat(
            Format.PARQUET,
            Compression.NONE,
            metadata,
            java.util.Optional.of(
                io.kafkas3archiver.schema.DeclaredSchema.parse(
                    "{\"p\":\"struct<lat:double,tag:string>\",\"tags\":\"array<string>\","
                        + "\"n\":\"map<string,bigint>\"}",
                    "PARQUET_SCHEMA")))
        .encode(records, out);
    ObjectRows rows = decode(Format.PARQUET, Compression.NONE, out.toByteArray());
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    assertThat(rows.records()).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertThat(json.readTree(rows.records().get(i).value()))
          .as("record %d", i)
          .isEqualTo(json.readTree(records.get(i).value()));
    }
  }

  /**
   * A null field (an empty cell, as a missing one is) and a string that reads as JSON are common:
   * the row then carries a small patch naming those columns, not its value again.
   */
  @Test
  void shouldPatchNullFieldsAndJsonLookingStringsInsteadOfCopyingTheValue() throws IOException {
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      records.add(
          record(
              i,
              "k".getBytes(StandardCharsets.UTF_8),
              "{\"id\":" + i + ",\"fault\":null,\"code\":\"42\",\"note\":\"\"}"));
    }
    records.add(record(3, "k".getBytes(StandardCharsets.UTF_8), "{\"id\":3,\"fault\":\"e7\"}"));

    for (Format format : List.of(Format.CSV, Format.PARQUET)) {
      byte[] file = encode(format, Compression.NONE, records);
      String text = new String(file, StandardCharsets.ISO_8859_1);
      // (The headers column holds value_base64 too, after a "name".)
      assertThat(text)
          .as(format.name())
          .doesNotContain("{\"value_base64")
          .doesNotContain("{\"\"value_base64");
      assertThat(
              decode(format, Compression.NONE, file).records().stream()
                  .map(ArchiveReaderTest::describe))
          .as(format.name())
          .containsExactlyElementsOf(records.stream().map(ArchiveReaderTest::describe).toList());
    }
    assertThat(new String(encode(Format.CSV, Compression.NONE, records), StandardCharsets.UTF_8))
        .contains("\"{\"\"null\"\":[\"\"fault\"\"],\"\"text\"\":[\"\"code\"\",\"\"note\"\"]}\"");
  }

  /**
   * docs/restore.md's loss table, "schema registry": with the mapping's registry integration the
   * function receives, and archives, the JSON the mapping converted the Avro or Protobuf record to;
   * that JSON is what comes back, not the record's original bytes.
   */
  @Test
  void shouldRestoreARegistryConvertedValueAsTheJsonTheMappingDelivered() throws IOException {
    byte[] json = "{\"id\":7,\"name\":\"a\"}".getBytes(StandardCharsets.UTF_8);
    KafkaRecord converted =
        new KafkaRecord(
            "t",
            0,
            0,
            1_700_000_000_000L,
            "CREATE_TIME",
            null,
            json,
            List.of(),
            null,
            new io.kafkas3archiver.decode.SchemaMetadata("AVRO", "42"));

    for (Format format : List.of(Format.NDJSON, Format.CSV, Format.PARQUET)) {
      ObjectRows rows = roundTrip(format, Compression.NONE, List.of(converted));
      assertThat(rows.records().get(0).value()).as(format.name()).isEqualTo(json);
    }
  }

  private static ObjectRows roundTrip(Format format, Compression codec, List<KafkaRecord> in)
      throws IOException {
    return decode(format, codec, encode(format, codec, in));
  }

  private static byte[] encode(Format format, Compression codec, List<KafkaRecord> records)
      throws IOException {
    ByteArrayOutputStream stored = new ByteArrayOutputStream();
    boolean text = format != Format.PARQUET;
    try (OutputStream out = text ? codec.wrap(stored) : stored) {
      Encoder.forFormat(format, codec, true).encode(records, out);
    }
    return stored.toByteArray();
  }

  private static ObjectRows decode(Format format, Compression codec, byte[] stored)
      throws IOException {
    String name = "o." + format.extension() + (format == Format.PARQUET ? "" : codec.suffix());
    ArchiveObject object =
        ArchiveObject.of(name, stored.length, ArchiveObject.Kind.DATA).orElseThrow();
    return ArchiveReader.decode(object, stored, "t", 0);
  }

  private static KafkaRecord record(long offset, byte[] key, String value) {
    return new KafkaRecord(
        "t",
        0,
        offset,
        1_700_000_000_000L + offset,
        "CREATE_TIME",
        key,
        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
        List.of(
            new Header("bin", new byte[] {(byte) 0x80, 0}),
            new Header("none", null),
            new Header("empty", new byte[0])));
  }

  private static String describe(KafkaRecord r) {
    return describe(r.offset(), r.timestamp(), r.key(), r.value(), r.headers());
  }

  private static String describe(ArchivedRecord r) {
    return describe(r.offset(), r.timestamp(), r.key(), r.value(), r.headers());
  }

  private static String describe(
      long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
    HexFormat hex = HexFormat.of();
    StringBuilder b = new StringBuilder();
    b.append(offset).append('@').append(timestamp).append(" key=");
    b.append(key == null ? "null" : hex.formatHex(key)).append(" value=");
    b.append(value == null ? "null" : new String(value, StandardCharsets.UTF_8));
    for (Header h : headers) {
      b.append(' ').append(h.name()).append('=');
      b.append(h.value() == null ? "null" : hex.formatHex(h.value()));
    }
    return b.toString();
  }
}
