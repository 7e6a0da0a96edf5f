package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.schema.TopicSchema;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which columns Parquet is told to write plain: those whose dictionary parquet-mr would drop at the
 * end of the first page; it decides the rest as before. The forecast must change no byte: random
 * batches are written with it and without it and compared (TabularGoldenTest checks the corpus).
 */
class PlainColumnsTest {
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

  private static ColumnPlan plan(TopicSchema.Column... columns) {
    return ColumnPlan.of(new TopicSchema("t", 1, List.of(columns)));
  }

  private static List<TabularBatch.Row> rows(String... values) {
    List<KafkaRecord> records = Records.ofValues(values);
    return TabularBatch.read(records, "parquet", false).rows();
  }

  @Test
  void shouldNameTheColumnsWhoseDictionaryWouldNotPay() {
    ColumnPlan plan =
        plan(
            new TopicSchema.Column("id", "id", ColumnType.STRING),
            new TopicSchema.Column("n", "n", ColumnType.BIGINT),
            new TopicSchema.Column("x", "x", ColumnType.DOUBLE),
            new TopicSchema.Column("nested", "nested", ColumnType.JSON),
            new TopicSchema.Column("ok", "ok", ColumnType.BOOLEAN),
            new TopicSchema.Column("escaped", "escaped", ColumnType.STRING));
    List<TabularBatch.Row> rows =
        rows(
            "{\"id\":\"a\",\"n\":1,\"x\":0.5,\"nested\":{\"k\":1},\"ok\":true,\"escaped\":\"\\u0041\"}",
            "{\"id\":\"b\",\"n\":1,\"x\":1.5,\"nested\":{\"k\":1},\"ok\":false,\"escaped\":\"A\"}",
            "{\"id\":\"c\",\"n\":2,\"x\":2.5,\"nested\":[1],\"ok\":true,\"escaped\":\"B\"}",
            "{\"id\":null,\"n\":3,\"x\":-0.0,\"nested\":[2]}",
            "{\"n\":4,\"x\":0.0}");

    // id: a, b, c (the null aside): a 15-byte dictionary, 4 bytes of ids, 15 plain bytes.
    // x: 0.5, 1.5, 2.5, -0.0 and 0.0 are five values to parquet. n repeats 1 (32 + 4 < 40),
    // nested repeats {"k":1} (25 + 4 < 36), "\u0041" is "A" (10 + 3 < 15); booleans never get one.
    assertThat(new PlainColumns().of(plan, rows)).containsExactly("id", "x");
  }

  @Test
  void shouldLeaveAWideBatchToParquet() {
    List<TopicSchema.Column> columns = new ArrayList<>();
    for (int c = 0; c < 1_000; c++) {
      columns.add(new TopicSchema.Column("c" + c, "c" + c, ColumnType.BIGINT));
    }
    ColumnPlan plan = ColumnPlan.of(new TopicSchema("t", 1, columns));
    String[] values = new String[1_001];
    for (int i = 0; i < values.length; i++) {
      values[i] = "{\"c0\":" + i + "}";
    }

    // 1,001 rows × 1,000 columns is past the million cells it looks at.
    assertThat(new PlainColumns().of(plan, rows(values))).isEmpty();
    assertThat(new PlainColumns().of(plan, rows(java.util.Arrays.copyOf(values, 1_000))))
        .containsExactly("c0");
  }

  @Test
  void shouldCountIdsAsParquetMrPacksThem() {
    // One byte of bit width, eight ids a group at the largest id's width, a header a 63 groups.
    assertThat(PlainColumns.idBytes(1, 1)).isEqualTo(1 + 0 + 1);
    assertThat(PlainColumns.idBytes(8, 2)).isEqualTo(1 + 1 + 1);
    assertThat(PlainColumns.idBytes(9, 5)).isEqualTo(1 + 2 * 3 + 1);
    assertThat(PlainColumns.idBytes(63 * 8, 256)).isEqualTo(1 + 63 * 8 + 1);
    assertThat(PlainColumns.idBytes(63 * 8 + 1, 257)).isEqualTo(1 + 64 * 9 + 2);
  }

  @Test
  void shouldLeaveAColumnWithARunOfEightToParquet() {
    ColumnPlan plan = plan(new TopicSchema.Column("x", "x", ColumnType.DOUBLE));
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      values.add("{\"x\":" + i + ".5}");
    }
    List<String> run = new ArrayList<>(values);
    for (int i = 0; i < 8; i++) {
      run.set(40 + i, "{\"x\":7.25}");
    }

    // 100 distinct: plain. The run of eight makes parquet-mr write the ids as a run, not counted.
    assertThat(new PlainColumns().of(plan, rows(values.toArray(String[]::new))))
        .containsExactly("x");
    assertThat(new PlainColumns().of(plan, rows(run.toArray(String[]::new)))).isEmpty();
  }

  /**
   * Why the forecast skips decimals: parquet-mr's v1 writer gives a fixed-length column no
   * dictionary, even when one would pay (DuckDB reads the footer).
   */
  @Test
  void shouldFindNoDictionaryOnADecimalColumn() throws IOException {
    String[] values = new String[1_000];
    for (int i = 0; i < values.length; i++) {
      values[i] = "{\"n\":" + (i % 3) + ".5,\"s\":\"v" + (i % 3) + "\"}";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new ParquetEncoder(
            Compression.NONE,
            false,
            SchemaCatalog.none(),
            SchemaSource.declaring(
                SchemaSource.inMemory(),
                () ->
                    io.kafkas3archiver.schema.DeclaredSchema.parse(
                        "{\"n\":\"number\"}", "PARQUET_SCHEMA")))
        .encode(Records.ofValues(values), out);
    Path file = dir.resolve("decimal.parquet");
    Files.write(file, out.toByteArray());
    Map<String, Map<String, Object>> chunks = new java.util.HashMap<>();
    for (Map<String, Object> chunk :
        duck.query(
            "SELECT path_in_schema, type, dictionary_page_offset FROM parquet_metadata("
                + DuckDb.literal(file)
                + ")")) {
      chunks.put((String) chunk.get("path_in_schema"), chunk);
    }
    assertThat(chunks.get("n")).containsEntry("type", "FIXED_LEN_BYTE_ARRAY");
    assertThat(chunks.get("n").get("dictionary_page_offset")).isNull();
    // The string column of three values beside it does get one.
    assertThat(chunks.get("s").get("dictionary_page_offset")).isNotNull();
  }

  /**
   * The property the forecast rests on: for random batches whose columns run from few values to all
   * distinct, with nulls, absent fields, repeats and runs, the file written with the forecast is
   * the file parquet-mr writes alone, byte for byte, in every codec.
   */
  @Test
  void shouldChangeNoByteOfWhatParquetMrWrites() throws IOException {
    long seed = Long.getLong("plainColumns.seed", System.nanoTime());
    System.out.println("PlainColumnsTest seed " + seed + " (-DplainColumns.seed to repeat)");
    Random random = new Random(seed);
    int nearlyDistinct = 0;
    for (int batch = 0; batch < 60; batch++) {
      int n = 1 + random.nextInt(batch < 20 ? 40 : 3_000);
      String[] values = randomValues(random, n, 0);
      List<KafkaRecord> records = Records.ofValues(values);
      TabularBatch read = TabularBatch.read(records, "parquet", false);
      ColumnPlan plan = ColumnPlan.of(inferred(read));
      List<String> plain = new PlainColumns().of(plan, read.rows());
      if (plain.stream().anyMatch(c -> !c.equals("id") && !allDistinct(read, c))) {
        nearlyDistinct++;
      }
      Compression codec = Compression.values()[batch % Compression.values().length];
      byte[] forecast = encode(codec, true, records);
      byte[] alone = encode(codec, false, records);
      assertThat(forecast)
          .as("batch %d (%d rows, %s, plain %s), seed %d", batch, n, codec, plain, seed)
          .isEqualTo(alone);
      // And the other way: every column parquet-mr wrote alone without a dictionary (DuckDB
      // reads the footer) is one the forecast named, so none is left to build one for nothing.
      Path file = dir.resolve("alone-" + batch + ".parquet");
      Files.write(file, alone);
      List<String> undictionaried = new ArrayList<>();
      for (Map<String, Object> chunk :
          duck.query(
              "SELECT path_in_schema, dictionary_page_offset FROM parquet_metadata("
                  + DuckDb.literal(file)
                  + ") WHERE type <> 'BOOLEAN'")) {
        String column = (String) chunk.get("path_in_schema");
        if (chunk.get("dictionary_page_offset") == null
            && plan.columns().stream().anyMatch(c -> c.name().equals(column))) {
          undictionaried.add(column);
        }
      }
      assertThat(plain)
          .as("batch %d (%d rows, %s), seed %d", batch, n, codec, seed)
          .containsExactlyInAnyOrderElementsOf(undictionaried);
    }
    // The forecast must have named columns that are not all distinct, or this proves little.
    System.out.println(
        "PlainColumnsTest: "
            + nearlyDistinct
            + " of 60 batches forecast a column plain that repeats values");
    assertThat(nearlyDistinct).as("batches with a nearly distinct plain column").isGreaterThan(5);
  }

  /**
   * {@code n} random values of six fields: an id, and five columns (bigint, double, string, json,
   * non-ASCII string) that each run from few values to all distinct, with nulls, absent fields,
   * repeats and runs; {@code padding} characters more in the string column make pages long.
   */
  static String[] randomValues(Random random, int n, int padding) {
    // Per column: the share of its values that are its own, the rest drawn from a few.
    double[] share = new double[5];
    for (int c = 0; c < share.length; c++) {
      share[c] = random.nextInt(4) == 0 ? 1.0 : random.nextDouble();
    }
    int few = 1 + n / (1 + random.nextInt(20));
    String pad = "p".repeat(padding);
    String[] values = new String[n];
    for (int r = 0; r < n; r++) {
      StringBuilder v = new StringBuilder("{\"id\":").append(r);
      for (int c = 0; c < share.length; c++) {
        if (random.nextInt(20) == 0) {
          continue; // absent
        }
        int pick = random.nextDouble() < share[c] ? few + r : random.nextInt(few);
        v.append(",\"c").append(c).append("\":");
        switch (c) {
          case 0 -> v.append(random.nextInt(30) == 0 ? "null" : Integer.toString(pick * 7));
          case 1 -> v.append(pick).append('.').append(pick % 10 + 1);
          case 2 -> v.append("\"s").append(Integer.toHexString(pick * 31)).append(pad).append('"');
          case 3 -> v.append("{\"k\":").append(pick).append('}');
          default -> v.append("\"caf\u00e9-").append(pick % 97).append('"');
        }
      }
      values[r] = v.append('}').toString();
    }
    return values;
  }

  private static TopicSchema inferred(TabularBatch batch) {
    TopicSchema none = TopicSchema.empty("t");
    return none.plus(ColumnPlan.additions(batch, none, 0), List.of());
  }

  private static boolean allDistinct(TabularBatch batch, String column) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (TabularBatch.Row row : batch.rows()) {
      for (TabularBatch.Field f : row.fields()) {
        if (f.name().equals(column)
            && f.kind() != TabularBatch.Kind.NULL
            && !seen.add(f.kind() + f.text())) {
          return false;
        }
      }
    }
    return true;
  }

  private static byte[] encode(Compression codec, boolean forecast, List<KafkaRecord> records)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new ParquetEncoder(codec, true, SchemaCatalog.none(), SchemaSource.inMemory(), forecast, null)
        .encode(records, out);
    return out.toByteArray();
  }
}
