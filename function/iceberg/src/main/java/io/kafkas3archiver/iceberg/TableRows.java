package io.kafkas3archiver.iceberg;

import static io.kafkas3archiver.encode.KafkaColumns.HEADERS;
import static io.kafkas3archiver.encode.KafkaColumns.KEY;
import static io.kafkas3archiver.encode.KafkaColumns.OFFSET;
import static io.kafkas3archiver.encode.KafkaColumns.PARTITION;
import static io.kafkas3archiver.encode.KafkaColumns.TIMESTAMP;
import static io.kafkas3archiver.encode.KafkaColumns.TIMESTAMP_TYPE;
import static io.kafkas3archiver.encode.KafkaColumns.TOPIC;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.encode.JsonMembers;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.NumberText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Maps Kafka records to rows of an Iceberg table: a record's JSON object value gives one column per
 * top-level field (nested values as JSON text), beside the {@code kafka_*} columns. New fields add
 * columns; a column only ever changes by a legal Iceberg promotion (int→long, float→double); a
 * value that fits neither its column nor a promotion is rejected with the reason, never rounded.
 *
 * <p>A value is read with one scan of its bytes ({@link JsonMembers}, as the csv and parquet
 * formats read theirs) into the top-level nodes Jackson's tree would hold, a nested value kept as
 * its compact text; whatever that cannot give exactly as the tree would goes through the tree
 * (issue 29: the tree and its re-serialization were most of the rows' CPU).
 */
final class TableRows {

  /** Fields past the column cap, as one JSON object text: kept, not dropped (DESIGN §4). */
  static final String OVERFLOW = "kafka_overflow_json";

  /** Value columns per table. A 5,000-field record keeps the rest in {@link #OVERFLOW}. */
  static final int MAX_VALUE_COLUMNS = 500;

  private static final Set<String> RESERVED =
      Set.of(TOPIC, PARTITION, OFFSET, TIMESTAMP, TIMESTAMP_TYPE, KEY, HEADERS, OVERFLOW);

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  static {
    JSON.getFactory()
        .setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(10_000).build());
  }

  private final boolean metadata;

  /** The values' members found by one scan of their bytes, for the object read without Jackson. */
  private final JsonMembers members = new JsonMembers();

  private final boolean treeOnly;

  TableRows(boolean metadata) {
    this(metadata, false);
  }

  private TableRows(boolean metadata, boolean treeOnly) {
    this.metadata = metadata;
    this.treeOnly = treeOnly;
  }

  /** Every value through Jackson's tree: the reference the byte path is tested against. */
  static TableRows treeOnly(boolean metadata) {
    return new TableRows(metadata, true);
  }

  /** The columns of a new table: the {@code kafka_*} columns; value columns come with the data. */
  Schema initialSchema() {
    List<Types.NestedField> columns = new ArrayList<>();
    columns.add(Types.NestedField.optional(1, TOPIC, Types.StringType.get()));
    columns.add(Types.NestedField.optional(2, PARTITION, Types.IntegerType.get()));
    columns.add(Types.NestedField.optional(3, OFFSET, Types.LongType.get()));
    columns.add(Types.NestedField.optional(4, TIMESTAMP, Types.TimestampType.withZone()));
    if (metadata) {
      columns.add(Types.NestedField.optional(5, TIMESTAMP_TYPE, Types.StringType.get()));
      columns.add(Types.NestedField.optional(6, KEY, Types.BinaryType.get()));
      columns.add(
          Types.NestedField.optional(
              7,
              HEADERS,
              Types.ListType.ofOptional(
                  8,
                  Types.StructType.of(
                      Types.NestedField.optional(9, "name", Types.StringType.get()),
                      Types.NestedField.optional(10, "value", Types.BinaryType.get())))));
    }
    return new Schema(columns);
  }

  /** Partitioned by the hour of the record's Kafka timestamp (DESIGN §9). */
  static PartitionSpec spec(Schema schema) {
    return PartitionSpec.builderFor(schema).hour(TIMESTAMP).build();
  }

  /** A record's value, parsed: a JSON object, a tombstone, or why it can't be a row. */
  record Parsed(KafkaRecord record, ObjectNode value, String rejection) {
    boolean tombstone() {
      return record.value() == null;
    }
  }

  Parsed parse(KafkaRecord r) {
    byte[] value = r.value();
    if (value == null) {
      return new Parsed(r, null, null);
    }
    ObjectNode read = treeOnly ? null : fromBytes(value);
    if (read != null) {
      return new Parsed(r, read, null);
    }
    // Jackson reads the bytes as they came; only a value with non-ASCII bytes needs the strict
    // decoder's check (Jackson itself would let some malformed sequences through).
    if (!ascii(value) && !utf8(value)) {
      return new Parsed(r, null, "the value is not valid UTF-8; iceberg rows need a JSON object");
    }
    int start = startsWithBom(value) ? 3 : 0;
    JsonNode node;
    try {
      node = JSON.readTree(value, start, value.length - start);
    } catch (Exception e) {
      // The parser's message quotes the payload; name the failure only (DESIGN §6).
      return new Parsed(r, null, "the value is not JSON; iceberg rows need a JSON object");
    }
    if (node == null || !node.isObject()) {
      String kind = node == null || node.isMissingNode() ? "empty" : node.getNodeType().name();
      return new Parsed(
          r,
          null,
          "the value is a JSON " + kind.toLowerCase() + "; iceberg rows need a JSON object");
    }
    return new Parsed(r, (ObjectNode) node, null);
  }

  /**
   * The value as the tree {@link #JSON} would read it, from one scan of its bytes: the top-level
   * members become the nodes Jackson would make (an int, a long, a big integer, an exact decimal, a
   * string...), and a nested value its compact JSON text as a raw value, written as {@link
   * JsonNode#toString()} writes the tree. Null, and the tree decides, for anything else: a value
   * the scan is unsure of (a duplicate name, deep nesting, a byte order mark...), not an object, or
   * a nested value whose text Jackson would write differently (an escape; a number such as {@code
   * 1e5}, {@code -0} or {@code 0.0000001}, which it writes as {@code 1E+5}, {@code 0}, {@code
   * 1E-7}).
   */
  private ObjectNode fromBytes(byte[] value) {
    if (!members.read(value) || members.first() != '{') {
      return null;
    }
    ObjectNode object = JSON.createObjectNode();
    for (int m = 0, count = members.count(); m < count; m++) {
      int from = members.valueStart(m);
      int to = members.valueEnd(m);
      String name = members.name(m);
      switch (value[from]) {
        case 'n' -> object.putNull(name);
        case 't' -> object.put(name, true);
        case 'f' -> object.put(name, false);
        case '"' -> object.put(name, members.string(m));
        case '{', '[' -> {
          if (members.escaped(m)) {
            return null;
          }
          byte[] text = value;
          if (members.spaced(m)) {
            text = members.withoutSpaces(m);
            from = 0;
            to = text.length;
          }
          if (!NestedNumbers.printAsSent(text, from, to)) {
            return null;
          }
          object.putRawValue(
              name, new RawValue(new String(text, from, to - from, StandardCharsets.UTF_8)));
        }
        default -> object.set(name, number(value, from, to));
      }
    }
    return object;
  }

  /** The node Jackson's tree makes for the number at {@code value[from, to)}. */
  private static JsonNode number(byte[] value, int from, int to) {
    for (int i = from; i < to; i++) {
      byte b = value[i];
      if (b == '.' || b == 'e' || b == 'E') {
        return JSON.getNodeFactory()
            .numberNode(
                new BigDecimal(new String(value, from, to - from, StandardCharsets.US_ASCII)));
      }
    }
    if (ColumnType.fitsBigint(value, from, to - from)) {
      long l = NumberText.parseLong(value, from, to - from);
      return l == (int) l ? IntNode.valueOf((int) l) : LongNode.valueOf(l);
    }
    return BigIntegerNode.valueOf(
        new BigInteger(new String(value, from, to - from, StandardCharsets.US_ASCII)));
  }

  private static boolean ascii(byte[] value) {
    for (byte b : value) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean utf8(byte[] value) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(value));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /** U+FEFF in UTF-8: some producers start every value with it; it is not part of the JSON. */
  private static boolean startsWithBom(byte[] value) {
    return value.length >= 3
        && value[0] == (byte) 0xEF
        && value[1] == (byte) 0xBB
        && value[2] == (byte) 0xBF;
  }

  /** The column a value field is stored under: reserved and empty names are moved aside. */
  static String columnName(String field) {
    if (field.isEmpty()) {
      return "_";
    }
    return RESERVED.contains(field) ? "value_" + field : field;
  }

  private enum Kind {
    BOOLEAN,
    LONG,
    BIG_INTEGER,
    FRACTION,
    STRING,
    NESTED
  }

  private static Kind kind(JsonNode v) {
    if (v.isBoolean()) {
      return Kind.BOOLEAN;
    }
    if (v.isIntegralNumber()) {
      return v.canConvertToLong() ? Kind.LONG : Kind.BIG_INTEGER;
    }
    if (v.isNumber()) {
      BigDecimal d = v.decimalValue();
      // 1.0e5 and 2.0 are whole numbers written with a fraction: a long column holds them.
      if (d.signum() == 0 || d.stripTrailingZeros().scale() <= 0) {
        try {
          d.toBigIntegerExact().longValueExact();
          return Kind.LONG;
        } catch (ArithmeticException e) {
          return Kind.BIG_INTEGER;
        }
      }
      return Kind.FRACTION;
    }
    if (v.isTextual()) {
      return Kind.STRING;
    }
    return Kind.NESTED;
  }

  /** What the schema must gain before these rows can be written. */
  record Evolution(Map<String, Type> added, Map<String, Type> promoted) {
    boolean isEmpty() {
      return added.isEmpty() && promoted.isEmpty();
    }
  }

  Evolution evolution(Schema schema, List<Parsed> rows) {
    Map<String, EnumSet<Kind>> seen = new LinkedHashMap<>();
    for (Parsed p : rows) {
      if (p.value() == null) {
        continue;
      }
      Iterator<Map.Entry<String, JsonNode>> fields = p.value().fields();
      while (fields.hasNext()) {
        var f = fields.next();
        if (f.getValue().isNull()) {
          seen.computeIfAbsent(columnName(f.getKey()), k -> EnumSet.noneOf(Kind.class));
          continue;
        }
        seen.computeIfAbsent(columnName(f.getKey()), k -> EnumSet.noneOf(Kind.class))
            .add(kind(f.getValue()));
      }
    }
    long valueColumns = schema.columns().stream().filter(c -> !RESERVED.contains(c.name())).count();
    boolean hasOverflow = schema.findField(OVERFLOW) != null;
    Map<String, Type> added = new LinkedHashMap<>();
    Map<String, Type> promoted = new LinkedHashMap<>();
    boolean needsOverflow = false;
    for (var e : seen.entrySet()) {
      Types.NestedField existing = schema.findField(e.getKey());
      EnumSet<Kind> kinds = e.getValue();
      if (existing != null) {
        Type promotion = promotion(existing.type(), kinds);
        if (promotion != null) {
          promoted.put(e.getKey(), promotion);
        }
        continue;
      }
      if (kinds.isEmpty()) {
        continue; // only nulls so far: the type comes with the first value
      }
      if (valueColumns + added.size() >= MAX_VALUE_COLUMNS) {
        needsOverflow = true;
        continue;
      }
      added.put(e.getKey(), inferred(kinds));
    }
    if (needsOverflow && !hasOverflow) {
      added.put(OVERFLOW, Types.StringType.get());
    }
    return new Evolution(added, promoted);
  }

  private static Type inferred(EnumSet<Kind> kinds) {
    if (kinds.equals(EnumSet.of(Kind.BOOLEAN))) {
      return Types.BooleanType.get();
    }
    if (kinds.equals(EnumSet.of(Kind.LONG))) {
      return Types.LongType.get();
    }
    if (EnumSet.of(Kind.LONG, Kind.FRACTION).containsAll(kinds)) {
      return Types.DoubleType.get();
    }
    if (EnumSet.of(Kind.LONG, Kind.BIG_INTEGER).containsAll(kinds)) {
      return Types.DecimalType.of(38, 0);
    }
    // Mixed kinds, text, nested values: JSON text keeps every one of them exactly.
    return Types.StringType.get();
  }

  /** The legal promotion these values need, or null when none is needed (or none would help). */
  private static Type promotion(Type column, EnumSet<Kind> kinds) {
    if (column.typeId() == Type.TypeID.INTEGER && kinds.contains(Kind.LONG)) {
      return Types.LongType.get();
    }
    if (column.typeId() == Type.TypeID.FLOAT
        && (kinds.contains(Kind.FRACTION) || kinds.contains(Kind.LONG))) {
      return Types.DoubleType.get();
    }
    return null;
  }

  /**
   * A row; or why the record can't be one in this schema; or that the schema must evolve first
   * ({@link #evolution} would add a column or promote one for this record): then neither is set.
   */
  record Row(Record record, String rejection, boolean needsEvolution) {
    static final Row EVOLVE = new Row(null, null, true);

    static Row of(Record record) {
      return new Row(record, null, false);
    }

    static Row rejected(String why) {
      return new Row(null, why, false);
    }
  }

  /** Nested values and the overflow object as JSON text, one generator for all of them. */
  private final JsonText json = new JsonText();

  /** The schema the two fields below were made for: one batch converts all rows in one. */
  private Schema shaped;

  private long valueColumns;

  /** An empty row of that schema: each row is a copy (a new record looks up its field map). */
  private GenericRecord template;

  private void shape(Schema schema) {
    if (schema != shaped) {
      valueColumns = schema.columns().stream().filter(c -> !RESERVED.contains(c.name())).count();
      template = GenericRecord.create(schema);
      shaped = schema;
    }
  }

  /**
   * The record as a row of this schema. It checks, field by field, what {@link #evolution} would
   * change for this one record (a new column, the overflow column, a promotion), so that a batch
   * converts and writes each row in one pass and keeps no parsed values; only a batch that needs a
   * schema change reads its values a second time.
   */
  Row row(Schema schema, Parsed p) {
    shape(schema);
    GenericRecord row = template.copy();
    KafkaRecord r = p.record();
    row.setField(TOPIC, r.topic());
    row.setField(PARTITION, r.partition());
    row.setField(OFFSET, r.offset());
    row.setField(
        TIMESTAMP,
        r.timestamp() < 0 ? null : Instant.ofEpochMilli(r.timestamp()).atOffset(ZoneOffset.UTC));
    if (metadata) {
      row.setField(TIMESTAMP_TYPE, r.timestampType());
      row.setField(KEY, r.key() == null ? null : ByteBuffer.wrap(r.key()));
      Types.NestedField headers = schema.findField(HEADERS);
      Types.StructType header = headers.type().asListType().elementType().asStructType();
      List<Record> list = new ArrayList<>(r.headers().size());
      for (Header h : r.headers()) {
        GenericRecord hr = GenericRecord.create(header);
        hr.setField("name", h.name());
        hr.setField("value", h.value() == null ? null : ByteBuffer.wrap(h.value()));
        list.add(hr);
      }
      row.setField(HEADERS, list);
    }
    if (p.value() == null) {
      return Row.of(row);
    }
    ObjectNode overflow = null;
    String rejection = null;
    Iterator<Map.Entry<String, JsonNode>> fields = p.value().fields();
    while (fields.hasNext()) {
      var f = fields.next();
      String name = columnName(f.getKey());
      Types.NestedField column = schema.findField(name);
      if (column == null) {
        if (f.getValue().isNull()) {
          continue;
        }
        if (valueColumns < MAX_VALUE_COLUMNS || schema.findField(OVERFLOW) == null) {
          return Row.EVOLVE; // a new column, or the overflow column
        }
        if (overflow == null) {
          overflow = JSON.createObjectNode();
        }
        overflow.set(f.getKey(), f.getValue());
        continue;
      }
      Type.TypeID type = column.type().typeId();
      if ((type == Type.TypeID.INTEGER || type == Type.TypeID.FLOAT)
          && !f.getValue().isNull()
          && promotion(column.type(), EnumSet.of(kind(f.getValue()))) != null) {
        return Row.EVOLVE;
      }
      if (rejection != null) {
        continue; // already rejected; the rest is only checked for a schema change
      }
      try {
        row.setField(name, convert(column.type(), f.getValue()));
      } catch (NotRepresentable e) {
        rejection =
            "field '"
                + f.getKey()
                + "' holds "
                + e.getMessage()
                + ", which the table's "
                + column.type()
                + " column cannot hold exactly, and no legal Iceberg promotion (int→long,"
                + " float→double, decimal widening) leads there; the row is kept here instead of"
                + " rounded";
      }
    }
    if (rejection != null) {
      return Row.rejected(rejection);
    }
    if (overflow != null) {
      row.setField(OVERFLOW, json.of(overflow));
    }
    return Row.of(row);
  }

  private static final class NotRepresentable extends Exception {
    private static final long serialVersionUID = 1L;

    NotRepresentable(String what) {
      super(what, null, false, false);
    }
  }

  private Object convert(Type type, JsonNode v) throws NotRepresentable {
    if (v.isNull()) {
      return null;
    }
    Kind kind = kind(v);
    return switch (type.typeId()) {
      case STRING -> v.isTextual() ? v.textValue() : jsonText(v);
      case BOOLEAN -> {
        if (kind != Kind.BOOLEAN) {
          throw new NotRepresentable(describe(kind));
        }
        yield v.booleanValue();
      }
      case INTEGER -> {
        long l = exactLong(v, kind);
        if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
          throw new NotRepresentable("an integer beyond int");
        }
        yield (int) l;
      }
      case LONG -> exactLong(v, kind);
      case FLOAT -> {
        BigDecimal d = number(v, kind);
        float f = d.floatValue();
        if (!exactFloat(d, f)) {
          throw new NotRepresentable("a number that a float would round");
        }
        yield f;
      }
      case DOUBLE -> {
        BigDecimal d = number(v, kind);
        double x = d.doubleValue();
        if (!exactDouble(d, x)) {
          throw new NotRepresentable("a number that a double would round");
        }
        yield x;
      }
      case DECIMAL -> {
        Types.DecimalType t = (Types.DecimalType) type;
        BigDecimal d = number(v, kind);
        try {
          BigDecimal scaled = d.setScale(t.scale());
          if (scaled.precision() > t.precision()) {
            throw new NotRepresentable("a number wider than " + t);
          }
          yield scaled;
        } catch (ArithmeticException e) {
          throw new NotRepresentable("a number with more fraction digits than " + t);
        }
      }
      default -> throw new NotRepresentable(describe(kind));
    };
  }

  /**
   * Whether {@code x}, the double nearest {@code d}, is {@code d}: its shortest decimal ({@link
   * Double#toString}) equals it. Without building that decimal when {@code d} has at most 15
   * significant digits and lies in the normal range: two such decimals never share a nearest double
   * (a double carries 15.95 digits), so the shortest one is {@code d} itself.
   */
  static boolean exactDouble(BigDecimal d, double x) {
    if (!Double.isFinite(x)) {
      return false;
    }
    if (d.precision() <= 15 && (d.signum() == 0 || Math.abs(x) >= Double.MIN_NORMAL)) {
      return true;
    }
    return new BigDecimal(Double.toString(x)).compareTo(d) == 0;
  }

  /** {@link #exactDouble} for a float: at most 6 significant digits (a float carries 7.22). */
  static boolean exactFloat(BigDecimal d, float f) {
    if (!Float.isFinite(f)) {
      return false;
    }
    if (d.precision() <= 6 && (d.signum() == 0 || Math.abs(f) >= Float.MIN_NORMAL)) {
      return true;
    }
    return new BigDecimal(Float.toString(f)).compareTo(d) == 0;
  }

  private static long exactLong(JsonNode v, Kind kind) throws NotRepresentable {
    if (kind != Kind.LONG) {
      throw new NotRepresentable(describe(kind));
    }
    return v.isIntegralNumber() ? v.longValue() : v.decimalValue().longValueExact();
  }

  private static BigDecimal number(JsonNode v, Kind kind) throws NotRepresentable {
    return switch (kind) {
      case LONG, FRACTION -> v.decimalValue();
      case BIG_INTEGER ->
          new BigDecimal(v.bigIntegerValue() == null ? BigInteger.ZERO : v.bigIntegerValue());
      default -> throw new NotRepresentable(describe(kind));
    };
  }

  private static String describe(Kind kind) {
    return switch (kind) {
      case BOOLEAN -> "a boolean";
      case LONG -> "an integer";
      case BIG_INTEGER -> "an integer beyond long";
      case FRACTION -> "a fraction";
      case STRING -> "a string";
      case NESTED -> "a nested object or array";
    };
  }

  private String jsonText(JsonNode v) {
    if (v instanceof POJONode raw && raw.getPojo() instanceof RawValue text) {
      return (String) text.rawValue(); // a nested value read from its bytes, already its text
    }
    if (v.isNumber()) {
      // The number exactly as it was written (the parser kept it as an exact BigDecimal).
      return v.isIntegralNumber() ? v.bigIntegerValue().toString() : v.decimalValue().toString();
    }
    return json.of(v);
  }
}
