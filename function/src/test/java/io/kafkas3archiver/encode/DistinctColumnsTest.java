package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.TopicSchema;
import io.kafkas3archiver.testing.Records;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which columns Parquet is told to write plain: only those whose every value differs from every
 * other (nulls aside), by type; parquet-mr decides the rest as before. TabularGoldenTest checks
 * that the bytes stay the same.
 */
class DistinctColumnsTest {

  private static ColumnPlan plan(TopicSchema.Column... columns) {
    return ColumnPlan.of(new TopicSchema("t", 1, List.of(columns)));
  }

  private static List<TabularBatch.Row> rows(String... values) {
    List<KafkaRecord> records = Records.ofValues(values);
    return TabularBatch.read(records, "parquet", false).rows();
  }

  @Test
  void shouldNameOnlyTheColumnsWhoseValuesAreAllDistinct() {
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

    // id: a, b, c (the null aside); x: 0.5, 1.5, 2.5, -0.0 and 0.0 are five values to parquet.
    // n repeats 1, nested repeats {"k":1}, "\u0041" is "A"; booleans never get a dictionary.
    assertThat(new DistinctColumns().of(plan, rows)).containsExactly("id", "x");
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
    assertThat(new DistinctColumns().of(plan, rows(values))).isEmpty();
    assertThat(new DistinctColumns().of(plan, rows(java.util.Arrays.copyOf(values, 1_000))))
        .containsExactly("c0");
  }
}
