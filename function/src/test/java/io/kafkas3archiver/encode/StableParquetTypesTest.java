package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.DuckDb;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Types are stable per topic (DESIGN §4): 20 batches of one topic whose numbers drift between
 * integers, decimals, exponents and 20-digit ids, with fields that come and go, are read by ONE
 * DuckDB {@code read_parquet} over all the files, without {@code union_by_name} or any other hint,
 * and every value comes back exact.
 */
class StableParquetTypesTest {
  private static final String[] NUMBERS = {
    "10",
    "10.5",
    "-3",
    "1.0e5",
    "-0.0",
    "0.0000001",
    "12345678901234567890",
    "9007199254740993",
    "123456789.123456789",
    "1E+2",
    "0",
    "-99999999999999999999999999999.999999999"
  };

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
  void shouldReadTwentyBatchesWithDriftingNumbersInOneQueryWithExactValues() throws IOException {
    long seed = System.nanoTime();
    System.out.println("StableParquetTypesTest seed " + seed);
    Random rnd = new Random(seed);
    Map<Long, String> sentNumbers = new HashMap<>();
    Map<Long, String> sentOutliers = new HashMap<>();
    long offset = 0;
    for (int batch = 0; batch < 20; batch++) {
      List<KafkaRecord> records = new ArrayList<>();
      for (int i = 0; i < 25; i++, offset++) {
        // Each batch starts with a different kind of number, so no batch can pin a narrower type.
        String n = NUMBERS[(batch + i * (1 + rnd.nextInt(3))) % NUMBERS.length];
        StringBuilder v = new StringBuilder("{\"id\":").append(offset).append(",\"n\":").append(n);
        sentNumbers.put(offset, n);
        if (batch % 3 == 0) {
          v.append(",\"flag\":").append(rnd.nextBoolean());
        }
        if (batch % 4 == 1) {
          v.append(",\"name\":\"b").append(batch).append('"');
        }
        if (i == 7) {
          // beyond DECIMAL(38,9): kept exact in _overflow, never rounded
          String outlier = batch % 2 == 0 ? "1e-12" : "123456789012345678901234567890";
          v.append(",\"m\":").append(outlier);
          sentOutliers.put(offset, outlier);
        } else {
          v.append(",\"m\":").append(i);
        }
        records.add(record(offset, v.append('}').toString()));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      EncodeResult result = new ParquetEncoder(Compression.ZSTD, false).encode(records, out);
      assertThat(result.rejected()).isEmpty();
      Files.write(dir.resolve(String.format("batch-%02d.parquet", batch)), out.toByteArray());
    }

    List<Map<String, Object>> rows =
        duck.query(
            "SELECT id, n, m, _overflow FROM read_parquet("
                + DuckDb.literal(dir.resolve("*.parquet"))
                + ") ORDER BY id");

    assertThat(rows).hasSize(500);
    for (Map<String, Object> row : rows) {
      long id = ((BigDecimal) row.get("id")).longValueExact();
      assertThat((BigDecimal) row.get("n"))
          .as("n of record %d, sent as %s", id, sentNumbers.get(id))
          .isEqualByComparingTo(new BigDecimal(sentNumbers.get(id)));
      String outlier = sentOutliers.get(id);
      if (outlier == null) {
        assertThat(row.get("m")).isNotNull();
        assertThat(row.get("_overflow")).isNull();
      } else {
        assertThat(row.get("m")).isNull();
        assertThat(row.get("_overflow")).isEqualTo("{\"m\":" + outlier + "}");
      }
    }
    assertThat(
            duck.query(
                "SELECT DISTINCT logical_type::VARCHAR AS t FROM parquet_schema("
                    + DuckDb.literal(dir.resolve("*.parquet"))
                    + ") WHERE name = 'n'"))
        .as("one type for n in all 20 files")
        .hasSize(1);
  }

  private static KafkaRecord record(long offset, String value) {
    return new KafkaRecord(
        "drift",
        0,
        offset,
        1783955045000L + offset,
        "CREATE_TIME",
        null,
        value.getBytes(StandardCharsets.UTF_8),
        List.of());
  }
}
