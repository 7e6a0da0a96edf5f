package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.POJONode;
import io.kafkas3archiver.decode.KafkaRecord;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

  private static final String[] NUMBERS = {
    "0",
    "-0",
    "1",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "1.5",
    "2.50",
    "-0.0",
    "0.0",
    "0.000000",
    "0.0000000",
    "-0.000000",
    "0.000001",
    "0.0000001",
    "-0.000001",
    "0.0000010",
    "1e5",
    "1E5",
    "1.0E+3",
    "-1.5e-7",
    "12.968838",
    "100.0",
    "1e0",
    "0e0",
    "-0.5",
    "10.000001",
    "1.7976931348623157e308",
    "4.9e-324",
    "3.4028235e38",
    "16777217",
    "0.1",
    "1.00000000000000000001"
  };

  private static String number(Random random) {
    if (random.nextInt(3) > 0) {
      return NUMBERS[random.nextInt(NUMBERS.length)];
    }
    StringBuilder n = new StringBuilder(random.nextBoolean() ? "-" : "");
    n.append(random.nextInt(4) == 0 ? "0" : String.valueOf(1 + random.nextInt(99_999)));
    if (random.nextBoolean()) {
      n.append('.').append("0".repeat(random.nextInt(9)));
      for (int d = random.nextInt(4); d >= 0; d--) {
        n.append(random.nextInt(10));
      }
    }
    if (random.nextInt(8) == 0) {
      n.append(random.nextBoolean() ? "e" : "E").append(random.nextBoolean() ? "-" : "");
      n.append(random.nextInt(40));
    }
    return n.toString();
  }

  private static final String[] STRINGS = {
    "\"a\"",
    "\"\"",
    "\"é ✓ 😀\"",
    "\"a\\\"b\"",
    "\"\\u0041\\n\\t\"",
    "\"a\\/b\"",
    "\"k\\u0000\"",
    "\"closed\"",
    "\"KA-56-EC-0392\""
  };

  private static String value(Random random, int depth) {
    int kind = random.nextInt(depth > 2 ? 5 : 7);
    return switch (kind) {
      case 0 -> "null";
      case 1 -> random.nextBoolean() ? "true" : "false";
      case 2, 3 -> number(random);
      case 4 -> STRINGS[random.nextInt(STRINGS.length)];
      case 5 -> {
        StringBuilder a = new StringBuilder("[");
        for (int i = random.nextInt(4); i > 0; i--) {
          a.append(a.length() > 1 ? "," : "")
              .append(space(random))
              .append(value(random, depth + 1));
        }
        yield a.append(space(random)).append(']').toString();
      }
      default -> object(random, depth + 1, 4);
    };
  }

  private static String space(Random random) {
    return random.nextInt(6) == 0 ? (random.nextBoolean() ? " " : "\n\t") : "";
  }

  private static final String[] NAMES = {"a", "b", "lat", "status", "n", "s", "é", "", "x\\ty"};

  private static String object(Random random, int depth, int most) {
    StringBuilder o = new StringBuilder("{");
    for (int i = random.nextInt(most + 1); i > 0; i--) {
      o.append(o.length() > 1 ? "," : "").append(space(random));
      o.append('"').append(NAMES[random.nextInt(NAMES.length)]).append("\":").append(space(random));
      o.append(value(random, depth));
    }
    return o.append(space(random)).append('}').toString();
  }

  /** The parsed value as the row conversion sees it: each member's node kind and its text. */
  private static String describe(TableRows.Parsed p) {
    if (p.value() == null) {
      return "rejected: " + p.rejection();
    }
    StringBuilder out = new StringBuilder();
    JsonText text = new JsonText();
    p.value()
        .properties()
        .forEach(
            e -> {
              JsonNode v = e.getValue();
              boolean nested = v.isContainerNode() || v instanceof POJONode;
              out.append(e.getKey())
                  .append('=')
                  .append(nested ? "nested" : v.getClass().getSimpleName())
                  .append(':')
                  .append(nested ? text.of(v) : v.toString())
                  .append('\n');
            });
    return out.append("whole: ").append(text.of(p.value())).toString();
  }

  @Test
  void shouldReadEveryValueFromItsBytesExactlyAsTheTreeDoes() {
    long seed = Long.getLong("tableRows.seed", System.nanoTime());
    System.out.println("TableRowsTest seed " + seed + " (-DtableRows.seed=" + seed + ")");
    Random random = new Random(seed);
    TableRows tree = TableRows.treeOnly(false);
    Types.NestedField[] columns = {
      Types.NestedField.optional(20, "a", Types.StringType.get()),
      Types.NestedField.optional(21, "b", Types.LongType.get()),
      Types.NestedField.optional(22, "lat", Types.DoubleType.get()),
      Types.NestedField.optional(23, "status", Types.StringType.get()),
      Types.NestedField.optional(24, "n", Types.DecimalType.of(38, 0)),
      Types.NestedField.optional(25, "s", Types.BooleanType.get()),
      Types.NestedField.optional(26, "é", Types.IntegerType.get()),
      Types.NestedField.optional(27, "_", Types.FloatType.get()),
      Types.NestedField.optional(28, "x\ty", Types.StringType.get())
    };
    Schema schema = withColumns(columns);
    int byBytes = 0;
    for (int i = 0; i < 20_000; i++) {
      String json = object(random, 0, 8);
      if (random.nextInt(50) == 0) {
        json = random.nextBoolean() ? value(random, 0) : json.substring(0, json.length() / 2);
      }
      KafkaRecord record = record(json);
      TableRows.Parsed fast = rows.parse(record);
      TableRows.Parsed reference = tree.parse(record);
      assertThat(describe(fast)).as(json).isEqualTo(describe(reference));
      if (reference.value() == null) {
        continue;
      }
      byBytes +=
          fast.value().properties().stream().anyMatch(e -> e.getValue() instanceof POJONode)
                  || !fast.value().equals(reference.value())
              ? 1
              : 0;
      TableRows.Row a = rows.row(schema, fast);
      TableRows.Row b = tree.row(schema, reference);
      assertThat(a.needsEvolution()).as(json).isEqualTo(b.needsEvolution());
      assertThat(a.rejection()).as(json).isEqualTo(b.rejection());
      if (a.record() != null) {
        // Each string field lands in its own column (not only the same one both ways).
        for (var e : fast.value().properties()) {
          Types.NestedField c = schema.findField(TableRows.columnName(e.getKey()));
          if (c != null && c.type().equals(Types.StringType.get()) && e.getValue().isTextual()) {
            assertThat(a.record().getField(c.name())).as(json).isEqualTo(e.getValue().textValue());
          }
        }
        for (Types.NestedField c : schema.columns()) {
          assertThat(String.valueOf(a.record().getField(c.name())))
              .as("%s in %s", c.name(), json)
              .isEqualTo(String.valueOf(b.record().getField(c.name())));
        }
      }
      assertThat(rows.evolution(schema, List.of(fast)))
          .as(json)
          .isEqualTo(tree.evolution(schema, List.of(reference)));
    }
    System.out.println(
        "TableRowsTest: " + byBytes + " of 20,000 values had a nested member read from bytes");
    assertThat(byBytes)
        .isGreaterThan(
            500); // about 6%: most nested values here hold an escape or a number Jackson rewrites
  }

  @Test
  void shouldJudgeADecimalExactAsADoubleOrFloatAsItsShortestTextDoes() {
    long seed = Long.getLong("tableRows.seed", System.nanoTime());
    System.out.println("TableRowsTest exactness seed " + seed);
    Random random = new Random(seed);
    List<BigDecimal> values = new ArrayList<>();
    for (String edge :
        List.of(
            "0",
            "0.000",
            "-0.0",
            "1",
            "0.1",
            "88.1",
            "47194.5",
            "1.7976931348623157E308",
            "1.79769313486232E308",
            "2.2250738585072014E-308",
            "2.225073858507201E-308",
            "4.9E-324",
            "1E-400",
            "1E+400",
            "123456789012345",
            "1234567890123456",
            "9007199254740993",
            "3.4028235E38",
            "3.40282E38",
            "1.17549435E-38",
            "1.4E-45",
            "16777217",
            "0.3",
            "123456.7",
            "1234567")) {
      values.add(new BigDecimal(edge));
    }
    for (int i = 0; i < 200_000; i++) {
      StringBuilder digits = new StringBuilder(random.nextBoolean() ? "-" : "");
      int n = 1 + random.nextInt(random.nextBoolean() ? 8 : 20);
      for (int d = 0; d < n; d++) {
        digits.append(d == 0 ? 1 + random.nextInt(9) : random.nextInt(10));
      }
      int exponent = random.nextInt(4) == 0 ? random.nextInt(700) - 350 : random.nextInt(20) - 10;
      values.add(new BigDecimal(digits + "E" + exponent));
    }
    for (BigDecimal d : values) {
      double x = d.doubleValue();
      float f = d.floatValue();
      assertThat(TableRows.exactDouble(d, x))
          .as("%s as a double", d)
          .isEqualTo(Double.isFinite(x) && new BigDecimal(Double.toString(x)).compareTo(d) == 0);
      assertThat(TableRows.exactFloat(d, f))
          .as("%s as a float", d)
          .isEqualTo(Float.isFinite(f) && new BigDecimal(Float.toString(f)).compareTo(d) == 0);
    }
  }
}
