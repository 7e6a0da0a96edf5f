package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CSV numbers as received, unique header names and the column cap, read back by DuckDB. */
class CsvColumnsTest {
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
  void shouldWriteEveryNumberExactlyAsReceived() throws IOException {
    Path file =
        write(
            false,
            "{\"a\":0.0000001,\"b\":1.0e5,\"c\":-0.0,\"d\":123456789012345678901234567890,"
                + "\"e\":1E-400,\"f\":10,\"nested\":{\"x\":1.50,\"y\":[2e3]}}");

    // d and e fit no column type (beyond int64, and no double holds them): they keep their text
    // in _overflow, as the parquet object of the same records does.
    assertThat(rows(file))
        .containsExactly(
            Map.of(
                "_overflow", "{\"d\":123456789012345678901234567890,\"e\":1E-400}",
                "a", "0.0000001",
                "b", "1.0e5",
                "c", "-0.0",
                "f", "10",
                "nested", "{\"x\":1.50,\"y\":[2e3]}"));
  }

  @Test
  void shouldKeepHeaderNamesUniqueWhenAValueFieldIsNamedLikeAMetadataColumn() throws IOException {
    Path file =
        write(true, "{\"kafka_offset\":\"mine\",\"KAFKA_TOPIC\":1,\"_overflow\":2,\"speed\":3}");

    String header = Files.readAllLines(file).get(0);
    assertThat(header)
        .isEqualTo(
            "kafka_topic,kafka_partition,kafka_offset,kafka_timestamp,kafka_timestamp_type,"
                + "kafka_key,kafka_headers,kafka_key_base64,kafka_exact,_overflow,kafka_offset_2,"
                + "KAFKA_TOPIC_2,_overflow_2,speed");
    // The renamed columns would restore the value under other names: the row keeps its bytes.
    assertThat(String.valueOf(rows(file).get(0).get("kafka_exact")))
        .startsWith("{\"value_base64\":\"");
    assertThat(rows(file).get(0))
        .containsEntry("kafka_offset", "0")
        .containsEntry("kafka_offset_2", "mine")
        .containsEntry("KAFKA_TOPIC_2", "1")
        .containsEntry("_overflow_2", "2");
  }

  @Test
  void shouldPutFieldsPastTheColumnBudgetIntoOneOverflowColumnAsJson() throws IOException {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      values.add("{\"id\":" + i + ",\"dev-" + i + "\":" + i + ".5}");
    }
    Path file = write(false, values.toArray(String[]::new));

    List<Map<String, Object>> rows = rows(file);
    assertThat(rows).hasSize(2_000);
    assertThat(rows.get(0).keySet()).contains("id", "_overflow").hasSizeLessThan(10);
    assertThat(Files.size(file)).isLessThan(2L * 2_000 * 30);
    for (int i = 0; i < rows.size(); i++) {
      Map<String, Object> row = rows.get(i);
      String own = "dev-" + i;
      Object cell = row.containsKey(own) ? row.get(own) : null;
      if (cell != null) {
        assertThat(cell).isEqualTo(i + ".5");
        assertThat(row.get("_overflow")).isNull();
      } else {
        assertThat(row.get("_overflow")).isEqualTo("{\"" + own + "\":" + i + ".5}");
      }
    }
  }

  private Path write(boolean metadata, String... values) throws IOException {
    List<KafkaRecord> records = Records.ofValues(values);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EncodeResult result = Encoder.forFormat(Format.CSV, metadata).encode(records, out);
    assertThat(result.rejected()).isEmpty();
    Path file = Files.createTempFile(dir, "batch", ".csv");
    Files.write(file, out.toByteArray());
    return file;
  }

  private static List<Map<String, Object>> rows(Path file) {
    return duck.query(
        "SELECT * FROM read_csv("
            + DuckDb.literal(file)
            + ", header = true, all_varchar = true, quote = '\"', escape = '\"')");
  }
}
