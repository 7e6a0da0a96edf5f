package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.SchemaMetadata;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.Format;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The archiver's metadata envelope read back by the restore's reader: every value byte for byte,
 * including those the embedded JSON alone would not give back, and rows that carry the mapping's
 * schema-registry ids (an unknown envelope field would make the reader take the row for a value).
 */
class JsonRowsTest {
  private static final SchemaMetadata AVRO = new SchemaMetadata("AVRO", "42");

  private static KafkaRecord record(long offset, String value, SchemaMetadata schema) {
    return new KafkaRecord(
        "orders",
        3,
        offset,
        1_783_955_045_000L + offset,
        "CREATE_TIME",
        ("k" + offset).getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
        List.of(new Header("h", new byte[] {(byte) 0x80, 1})),
        schema,
        schema);
  }

  @Test
  void shouldReadEveryEnvelopeBackByteForByte() throws IOException {
    List<KafkaRecord> records =
        List.of(
            record(10, "{\"id\":1,\"price\":12.50}", null),
            record(11, "{\n  \"id\": 2\n}\n", null),
            record(12, "\"a JSON string literal\"", null),
            record(13, "null", null),
            record(14, " 42 ", null),
            record(15, "plain text", null),
            record(16, null, null),
            record(17, "{\"id\":3,\"nested\":{\"a\":[1,2]}}", AVRO),
            record(18, "\"registry string\"", AVRO));
    for (Format format : List.of(Format.NDJSON, Format.JSON)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Encoder.forFormat(format, true).encode(records, out);

      ObjectRows rows = JsonRows.read(out.toByteArray(), "orders", false, 0);

      assertThat(rows.metadata()).as(format.configName()).isTrue();
      assertThat(rows.records()).hasSameSizeAs(records);
      for (int i = 0; i < records.size(); i++) {
        ArchivedRecord got = rows.records().get(i);
        KafkaRecord want = records.get(i);
        assertThat(got.offset()).isEqualTo(want.offset());
        assertThat(got.partition()).isEqualTo(3);
        assertThat(got.key()).isEqualTo(want.key());
        assertThat(got.value())
            .as(format.configName() + " offset " + want.offset())
            .isEqualTo(want.value());
        assertThat(got.headers()).hasSize(1);
        assertThat(got.headers().get(0).value()).isEqualTo(new byte[] {(byte) 0x80, 1});
      }
    }
  }
}
