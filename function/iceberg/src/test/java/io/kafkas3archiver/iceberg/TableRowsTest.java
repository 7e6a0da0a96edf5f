package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.kafkas3archiver.decode.KafkaRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The one-pass row conversion (issue 29): a row says when the schema must evolve exactly when
 * {@link TableRows#evolution} would change the schema for it, values are read from the bytes with
 * the same checks as before, and nested values are written as {@link JsonNode#toString()} writes
 * them.
 */
class TableRowsTest {
  private final TableRows rows = new TableRows(false);

  private static final ObjectMapper EXACT =
      JsonMapper.builder()
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private static KafkaRecord record(byte[] value) {
    return new KafkaRecord("t", 0, 1, 1_764_590_400_000L, "CREATE_TIME", null, value, List.of());
  }

  private static KafkaRecord record(String value) {
    return record(value.getBytes(StandardCharsets.UTF_8));
  }

  private Schema withColumns(Types.NestedField... value) {
    List<Types.NestedField> columns = new ArrayList<>(rows.initialSchema().columns());
    columns.addAll(List.of(value));
    return new Schema(columns);
  }

  @Test
  void shouldWriteNestedValuesAsJacksonsToStringDoes() throws Exception {
    JsonText text = new JsonText();
    for (String json :
        List.of(
            "{\"lat\":12.345600,\"lon\":-0.0,\"e\":1.0E+3,\"big\":123456789012345678901234567890}",
            "[\"a\\\"b\",\"\\u0001\\n\\t\",\"é ✓ 😀\",null,true,false,[],{}]",
            "{\"doors\":[\"closed\",\"open\"],\"tyres\":[220,221],\"alerts\":[],\"x\":{\"y\":{}}}",
            "{\"\":1,\"k\\u0000\":[1e5,2.50,-7]}")) {
      JsonNode node = EXACT.readTree(json);
      assertThat(text.of(node)).isEqualTo(node.toString());
    }
  }

  @Test
  void shouldWriteValuesNestedDeeperThanJacksonsDefaultWriteLimit() {
    // JsonNode.toString() stops at 1,000 levels; the parser here accepts 10,000.
    String deep = "[".repeat(5_000) + "1" + "]".repeat(5_000);
    Schema schema = withColumns(Types.NestedField.optional(20, "d", Types.StringType.get()));
    TableRows.Row row = rows.row(schema, rows.parse(record("{\"d\":" + deep + "}")));
    assertThat(row.record().getField("d")).isEqualTo(deep);
  }

  @Test
  void shouldReadValuesFromTheirBytesWithTheSameChecks() {
    assertThat(rows.parse(record("\uFEFF{\"a\":1}")).value()).isNotNull();
    assertThat(rows.parse(record("{\"name\":\"é\"}")).value().get("name").textValue())
        .isEqualTo("é");
    // Malformed, and an overlong encoding of '/' that a lenient decoder would accept.
    for (byte[] bad :
        List.of(
            new byte[] {'{', '"', (byte) 0xC3, 0x28, '"', '}'},
            new byte[] {(byte) 0xC0, (byte) 0xAF})) {
      assertThat(rows.parse(record(bad)).rejection()).contains("not valid UTF-8");
    }
    assertThat(rows.parse(record("[1]")).rejection()).contains("JSON array");
    assertThat(rows.parse(record("")).rejection()).contains("JSON empty");
    assertThat(rows.parse(record("{\"a\":")).rejection()).contains("not JSON");
  }

  @Test
  void shouldAskForASchemaChangeExactlyWhenEvolutionWouldMakeOne() {
    Schema schema =
        withColumns(
            Types.NestedField.optional(20, "n", Types.LongType.get()),
            Types.NestedField.optional(21, "i", Types.IntegerType.get()),
            Types.NestedField.optional(22, "f", Types.FloatType.get()),
            Types.NestedField.optional(23, "s", Types.StringType.get()));
    Map<String, Boolean> cases =
        Map.of(
            "{\"n\":1,\"s\":\"x\"}", false,
            "{\"n\":1,\"gone\":null}", false,
            "{\"n\":1,\"new\":2}", true,
            "{\"i\":1}", true, // int -> long
            "{\"f\":1.5}", true, // float -> double
            "{\"n\":2.5}", false, // no legal promotion: rejected instead
            "{\"n\":2.5,\"new\":1}", true, // rejected, but its new column still comes first
            "{\"s\":{\"nested\":[1,2]}}", false);
    cases.forEach(
        (json, evolves) -> {
          TableRows.Parsed p = rows.parse(record(json));
          TableRows.Row row = rows.row(schema, p);
          assertThat(row.needsEvolution()).as(json).isEqualTo(evolves);
          assertThat(rows.evolution(schema, List.of(p)).isEmpty()).as(json).isEqualTo(!evolves);
        });
    TableRows.Row rejected = rows.row(schema, rows.parse(record("{\"n\":2.5}")));
    assertThat(rejected.rejection()).contains("field 'n' holds a fraction");
    TableRows.Row nested = rows.row(schema, rows.parse(record("{\"s\":{\"nested\":[1,2]}}")));
    assertThat(nested.record().getField("s")).isEqualTo("{\"nested\":[1,2]}");
  }

  @Test
  void shouldPutFieldsPastTheColumnCapIntoTheOverflowColumnWithoutASchemaChange() {
    List<Types.NestedField> value = new ArrayList<>();
    for (int c = 0; c < TableRows.MAX_VALUE_COLUMNS; c++) {
      value.add(Types.NestedField.optional(100 + c, "c" + c, Types.LongType.get()));
    }
    Schema full = withColumns(value.toArray(Types.NestedField[]::new));
    TableRows.Parsed p = rows.parse(record("{\"c0\":1,\"extra\":{\"a\":true}}"));
    assertThat(rows.row(full, p).needsEvolution()).isTrue(); // the overflow column first

    List<Types.NestedField> withOverflow = new ArrayList<>(value);
    withOverflow.add(Types.NestedField.optional(99, TableRows.OVERFLOW, Types.StringType.get()));
    Schema overflowing = withColumns(withOverflow.toArray(Types.NestedField[]::new));
    TableRows.Row row = rows.row(overflowing, p);
    assertThat(row.needsEvolution()).isFalse();
    assertThat(row.record().getField(TableRows.OVERFLOW)).isEqualTo("{\"extra\":{\"a\":true}}");
  }
}
