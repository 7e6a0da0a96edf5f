package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.decode.ParseProblem;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.DeclaredTypes;
import io.kafkas3archiver.schema.FieldType;
import io.kafkas3archiver.schema.FieldType.Column;
import io.kafkas3archiver.schema.FieldType.Scalar;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * The value columns of a Parquet object whose records a schema registry validated: one column per
 * top-level field of the registry schema, typed by it (docs/schema-registry.md, "Types"), in the
 * schema's order, whatever the batch holds. Fields the schema does not declare go to {@code
 * _overflow}; a value that does not fit its declared type sends its record to the error object,
 * with the reason, never rounded or truncated.
 *
 * <p>The schemas of one object's records are merged by field name in order of appearance; where two
 * schema versions give one field different types, the later version's type is the column's.
 */
final class RegistryColumns {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /** A nested record's converted cells. */
  private record Group(Object[] cells) {}

  /** An array's converted elements (null for a JSON null element). */
  private record ListCell(Object[] elements) {}

  /** An object's keys and converted values, for a MAP. */
  private record MapCell(String[] keys, Object[] values) {}

  /** A value that does not fit its column. */
  static final class Mismatch extends Exception {
    private static final long serialVersionUID = 1L;

    Mismatch(String message) {
      super(message, null, false, false);
    }
  }

  /** A converted row: its cells by column, and the undeclared fields as JSON text (or null). */
  record Cells(Object[] cells, String overflow) {}

  private final List<Column> columns;
  private final List<String> names;

  /**
   * Who declares the types, for reasons: {@code the registry schema}, {@code PARQUET_SCHEMA},
   * {@code the Glue table db.t}.
   */
  private final String declarer;

  /**
   * A declared schema's columns are strict, where a registry's are lenient: the registry already
   * validated the records, and its JSON mapping writes 64-bit integers and bytes as strings and
   * unions as {"branch": value}. A declared type takes only the JSON that holds it exactly (a
   * string for string, a number a double prints back for double, no union wrapper), and a field is
   * matched ignoring case when no field has the exact name.
   */
  private final boolean strict;

  RegistryColumns(List<List<Column>> schemas, List<String> reserved) {
    this(schemas, reserved, "the registry schema", false);
  }

  /** The columns of a declared schema ({@link io.kafkas3archiver.schema.DeclaredSchema}). */
  RegistryColumns(List<Column> declared, List<String> reserved, String declarer) {
    this(List.of(declared), reserved, declarer, true);
  }

  private RegistryColumns(
      List<List<Column>> schemas, List<String> reserved, String declarer, boolean strict) {
    this.declarer = declarer;
    this.strict = strict;
    Map<String, Column> merged = new LinkedHashMap<>();
    for (List<Column> schema : schemas) {
      for (Column c : schema) {
        merged.put(c.name(), c);
      }
    }
    this.columns = List.copyOf(merged.values());
    Set<String> taken = new HashSet<>();
    reserved.forEach(r -> taken.add(r.toLowerCase(Locale.ROOT)));
    taken.add(ColumnPlan.OVERFLOW);
    List<String> unique = new ArrayList<>();
    for (Column c : columns) {
      String name = c.name();
      for (int n = 2; !taken.add(name.toLowerCase(Locale.ROOT)); n++) {
        name = c.name() + "_" + n;
      }
      unique.add(name);
    }
    this.names = List.copyOf(unique);
  }

  List<Column> columns() {
    return columns;
  }

  /** The columns' names in the file (the declared names, suffixed around reserved ones). */
  List<String> names() {
    return names;
  }

  // ---- schema ----

  void addTo(Types.MessageTypeBuilder b) {
    for (int i = 0; i < columns.size(); i++) {
      b.addField(type(names.get(i), columns.get(i).type()));
    }
  }

  /** Bytes of the smallest two's-complement array that holds every unscaled value. */
  static int decimalBytes(int precision) {
    BigInteger max = BigInteger.TEN.pow(precision);
    return (max.bitLength() + 1 + 7) / 8;
  }

  private static Type type(String name, FieldType t) {
    return switch (t) {
      case Scalar s ->
          switch (s) {
            case BOOLEAN -> Types.optional(PrimitiveTypeName.BOOLEAN).named(name);
            case INT32 -> Types.optional(PrimitiveTypeName.INT32).named(name);
            case INT64 -> Types.optional(PrimitiveTypeName.INT64).named(name);
            case FLOAT -> Types.optional(PrimitiveTypeName.FLOAT).named(name);
            case DOUBLE -> Types.optional(PrimitiveTypeName.DOUBLE).named(name);
            case STRING -> text(name);
            case BINARY -> Types.optional(PrimitiveTypeName.BINARY).named(name);
            case DATE ->
                Types.optional(PrimitiveTypeName.INT32)
                    .as(LogicalTypeAnnotation.dateType())
                    .named(name);
            case TIME_MILLIS ->
                Types.optional(PrimitiveTypeName.INT32)
                    .as(LogicalTypeAnnotation.timeType(true, TimeUnit.MILLIS))
                    .named(name);
            case TIME_MICROS ->
                Types.optional(PrimitiveTypeName.INT64)
                    .as(LogicalTypeAnnotation.timeType(true, TimeUnit.MICROS))
                    .named(name);
            case TIMESTAMP_MILLIS ->
                Types.optional(PrimitiveTypeName.INT64)
                    .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MILLIS))
                    .named(name);
            case TIMESTAMP_MICROS ->
                Types.optional(PrimitiveTypeName.INT64)
                    .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS))
                    .named(name);
          };
      case FieldType.Decimal d ->
          Types.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
              .length(decimalBytes(d.precision()))
              .as(LogicalTypeAnnotation.decimalType(d.scale(), d.precision()))
              .named(name);
      case FieldType.Struct s -> {
        List<Type> fields = new ArrayList<>();
        for (Column c : s.fields()) {
          fields.add(type(c.name(), c.type()));
        }
        // Parquet has no empty group: a record without fields is JSON text.
        yield fields.isEmpty() ? text(name) : new GroupType(Type.Repetition.OPTIONAL, name, fields);
      }
      case FieldType.Array a ->
          // The three-level LIST of the Parquet spec, which Athena, Spark and DuckDB read.
          Types.optionalGroup()
              .as(LogicalTypeAnnotation.listType())
              .addField(
                  new GroupType(Type.Repetition.REPEATED, "list", type("element", a.element())))
              .named(name);
      case FieldType.MapOf m ->
          Types.optionalGroup()
              .as(LogicalTypeAnnotation.mapType())
              .addField(
                  new GroupType(
                      Type.Repetition.REPEATED,
                      "key_value",
                      Types.required(PrimitiveTypeName.BINARY)
                          .as(LogicalTypeAnnotation.stringType())
                          .named("key"),
                      type("value", m.value())))
              .named(name);
      case FieldType.Json j -> text(name);
    };
  }

  private static Type text(String name) {
    return Types.optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .named(name);
  }

  // ---- values ----

  /** The value's cells; throws {@link Mismatch} naming the field and the reason. */
  Cells convert(byte[] value) throws Mismatch {
    return convert(value, new HashSet<>(), true);
  }

  /**
   * The value's cells, without the overflow: {@code used} receives the JSON fields that the columns
   * took, so that the others can be typed by inference.
   */
  Cells convertDeclared(byte[] value, Set<String> used) throws Mismatch {
    return convert(value, used, false);
  }

  private Cells convert(byte[] value, Set<String> used, boolean overflow) throws Mismatch {
    JsonNode root;
    try {
      root = MAPPER.readTree(value);
    } catch (IOException e) {
      throw new Mismatch(
          "the value is not JSON: "
              + (e instanceof JacksonException j ? ParseProblem.describe(j) : "unreadable"));
    }
    if (!(root instanceof ObjectNode object)) {
      throw new Mismatch("the value is not a JSON object");
    }
    Object[] cells = cells(columns, object, used, "");
    if (!overflow) {
      return new Cells(cells, null);
    }
    ObjectNode rest = MAPPER.createObjectNode();
    Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (!used.contains(f.getKey())) {
        rest.set(f.getKey(), f.getValue());
      }
    }
    return new Cells(cells, rest.isEmpty() ? null : rest.toString());
  }

  private Object[] cells(List<Column> columns, ObjectNode object, Set<String> used, String path)
      throws Mismatch {
    Object[] cells = new Object[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      String key = object.has(c.name()) ? c.name() : c.jsonName();
      if (strict && !object.has(key)) {
        key = ignoringCase(object, c.name(), columns);
      }
      JsonNode v = key == null ? null : object.get(key);
      if (v != null) {
        if (used != null) {
          used.add(key);
        }
        cells[i] = cell(c.type(), v, path + c.name());
      }
    }
    return cells;
  }

  /**
   * The object's field named {@code name} ignoring case, unless another column has that exact name;
   * null when none.
   */
  private static String ignoringCase(ObjectNode object, String name, List<Column> columns) {
    Iterator<String> names = object.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (n.equalsIgnoreCase(name)) {
        for (Column other : columns) {
          if (other.name().equals(n)) {
            return null;
          }
        }
        return n;
      }
    }
    return null;
  }

  private Object cell(FieldType type, JsonNode v, String path) throws Mismatch {
    if (v.isNull() || v.isMissingNode()) {
      return null;
    }
    if (type instanceof FieldType.Json) {
      if (strict && !v.isContainerNode()) {
        throw mismatch(path, v, "JSON text", type);
      }
      return Binary.fromString(v.toString());
    }
    // Avro's JSON encoding wraps a union's value as {"<branch type>": value}.
    if (!strict
        && v.isObject()
        && v.size() == 1
        && !(type instanceof FieldType.Struct s && declares(s, v))) {
      v = v.elements().next();
      if (v.isNull()) {
        return null;
      }
    }
    return switch (type) {
      case Scalar s -> scalar(s, v, path);
      case FieldType.Decimal d -> decimal(d, v, path);
      case FieldType.Struct s -> {
        if (!(v instanceof ObjectNode o)) {
          throw mismatch(path, v, "a record (JSON object)", type);
        }
        yield s.fields().isEmpty()
            ? Binary.fromString(o.toString())
            : new Group(cells(s.fields(), o, null, path + "."));
      }
      case FieldType.Array a -> {
        if (!v.isArray()) {
          throw mismatch(path, v, "an array", type);
        }
        Object[] elements = new Object[v.size()];
        for (int i = 0; i < elements.length; i++) {
          elements[i] = cell(a.element(), v.get(i), path + "[]");
        }
        yield new ListCell(elements);
      }
      case FieldType.MapOf m -> {
        if (!(v instanceof ObjectNode o)) {
          throw mismatch(path, v, "an object", type);
        }
        String[] keys = new String[o.size()];
        Object[] values = new Object[o.size()];
        Iterator<Map.Entry<String, JsonNode>> entries = o.fields();
        for (int i = 0; entries.hasNext(); i++) {
          Map.Entry<String, JsonNode> e = entries.next();
          keys[i] = e.getKey();
          values[i] = cell(m.value(), e.getValue(), path + "." + e.getKey());
        }
        yield new MapCell(keys, values);
      }
      case FieldType.Json j -> Binary.fromString(v.toString());
    };
  }

  private static boolean declares(FieldType.Struct s, JsonNode v) {
    String only = v.fieldNames().next();
    for (Column c : s.fields()) {
      if (c.name().equals(only) || c.jsonName().equals(only)) {
        return true;
      }
    }
    return false;
  }

  private Object scalar(Scalar s, JsonNode v, String path) throws Mismatch {
    return switch (s) {
      case BOOLEAN -> {
        if (!v.isBoolean()) {
          throw mismatch(path, v, "a boolean", s);
        }
        yield v.booleanValue();
      }
      case INT32, TIME_MILLIS -> {
        BigInteger i = integer(v, path, s);
        if (i.bitLength() > 31) {
          throw mismatch(path, v, "a 32-bit integer", s);
        }
        yield i.intValue();
      }
      case INT64, TIME_MICROS -> {
        BigInteger i = integer(v, path, s);
        if (i.bitLength() > 63) {
          throw mismatch(path, v, "a 64-bit integer", s);
        }
        yield i.longValue();
      }
      case FLOAT -> {
        float f = (float) floating(v, path, s);
        if (strict && !exactly(Float.toString(f), v)) {
          throw mismatch(path, v, "a float", s);
        }
        yield f;
      }
      case DOUBLE -> {
        double d = floating(v, path, s);
        if (strict && ColumnType.exactDouble(v.decimalValue().toString()) == null) {
          throw mismatch(path, v, "a double", s);
        }
        yield d;
      }
      case STRING -> {
        if (strict && !v.isTextual()) {
          throw mismatch(path, v, "a string", s);
        }
        yield Binary.fromString(v.isTextual() ? v.textValue() : v.toString());
      }
      case BINARY -> {
        if (!v.isTextual()) {
          throw mismatch(path, v, "base64 text", s);
        }
        try {
          yield Binary.fromConstantByteArray(Base64.getDecoder().decode(v.textValue()));
        } catch (IllegalArgumentException e) {
          throw mismatch(path, v, "base64 text", s);
        }
      }
      case DATE -> {
        if (v.isTextual()) {
          try {
            yield (int) LocalDate.parse(v.textValue()).toEpochDay();
          } catch (DateTimeParseException e) {
            throw mismatch(path, v, "a date (days since 1970-01-01 or yyyy-mm-dd)", s);
          }
        }
        BigInteger days = integer(v, path, s);
        if (days.bitLength() > 31) {
          throw mismatch(path, v, "a date (days since 1970-01-01 or yyyy-mm-dd)", s);
        }
        yield days.intValue();
      }
      case TIMESTAMP_MILLIS, TIMESTAMP_MICROS -> {
        boolean millis = s == Scalar.TIMESTAMP_MILLIS;
        if (v.isTextual()) {
          Instant at = instant(v.textValue(), path, v, s);
          // Never truncated: an instant finer than the column goes to the error object.
          if (strict && at.getNano() % (millis ? 1_000_000 : 1_000) != 0) {
            throw mismatch(path, v, "a timestamp", s);
          }
          yield millis ? at.toEpochMilli() : ChronoUnit.MICROS.between(Instant.EPOCH, at);
        }
        BigInteger n = integer(v, path, s);
        if (strict && !millis) {
          // A declared timestamp's numbers are epoch milliseconds, whatever its precision.
          n = n.multiply(BigInteger.valueOf(1_000));
        }
        if (n.bitLength() > 63) {
          throw mismatch(path, v, "a timestamp", s);
        }
        yield n.longValue();
      }
    };
  }

  /** Whether a number's shortest text for its stored value is the JSON number itself. */
  private static boolean exactly(String stored, JsonNode v) {
    try {
      return new BigDecimal(stored).compareTo(v.decimalValue()) == 0;
    } catch (NumberFormatException e) {
      return false; // NaN, Infinity
    }
  }

  private Instant instant(String text, String path, JsonNode v, FieldType type) throws Mismatch {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      if (strict) {
        // A declared timestamp may also be a local date-time (Hive's text form), taken as UTC.
        try {
          return LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException notLocal) {
          // reported below
        }
      }
      throw mismatch(path, v, "a timestamp (epoch number or ISO-8601 instant with offset)", type);
    }
  }

  /** An integer; Protobuf's JSON writes 64-bit integers as strings (a declared type does not). */
  private BigInteger integer(JsonNode v, String path, FieldType type) throws Mismatch {
    try {
      BigDecimal d =
          v.isNumber()
              ? v.decimalValue()
              : v.isTextual() && !strict ? new BigDecimal(v.textValue()) : null;
      if (d != null) {
        return d.toBigIntegerExact();
      }
    } catch (NumberFormatException | ArithmeticException e) {
      // reported below
    }
    throw mismatch(path, v, "an integer", type);
  }

  private double floating(JsonNode v, String path, FieldType type) throws Mismatch {
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual() && !strict) {
      switch (v.textValue()) {
        case "NaN":
          return Double.NaN;
        case "Infinity":
          return Double.POSITIVE_INFINITY;
        case "-Infinity":
          return Double.NEGATIVE_INFINITY;
        default:
          break;
      }
    }
    throw mismatch(path, v, "a number", type);
  }

  private Binary decimal(FieldType.Decimal d, JsonNode v, String path) throws Mismatch {
    BigDecimal n;
    try {
      n =
          v.isNumber()
              ? v.decimalValue()
              : v.isTextual() && !strict ? new BigDecimal(v.textValue()) : null;
    } catch (NumberFormatException e) {
      n = null;
    }
    String want = "a decimal(" + d.precision() + "," + d.scale() + ")";
    if (n == null) {
      throw mismatch(path, v, want, d);
    }
    BigInteger unscaled;
    try {
      unscaled = n.setScale(d.scale()).unscaledValue(); // exact, or ArithmeticException
    } catch (ArithmeticException e) {
      throw mismatch(path, v, want + " without rounding", d);
    }
    if (unscaled.abs().compareTo(BigInteger.TEN.pow(d.precision())) >= 0) {
      throw mismatch(path, v, want, d);
    }
    int length = decimalBytes(d.precision());
    byte[] twos = unscaled.toByteArray();
    byte[] bytes = new byte[length];
    byte pad = (byte) (unscaled.signum() < 0 ? 0xff : 0);
    for (int i = 0; i < length - twos.length; i++) {
      bytes[i] = pad;
    }
    System.arraycopy(twos, 0, bytes, length - twos.length, twos.length);
    return Binary.fromConstantByteArray(bytes);
  }

  /** Names the field and both types, never the value (DESIGN §6: reasons reach log lines). */
  private Mismatch mismatch(String path, JsonNode v, String want, FieldType type) {
    return new Mismatch(
        "field '"
            + path
            + "' is "
            + kind(v)
            + ", but "
            + declarer
            + " declares "
            + (strict ? "it " + DeclaredTypes.name(type) : want));
  }

  private static String kind(JsonNode v) {
    return switch (v.getNodeType()) {
      case STRING -> "a string";
      case NUMBER -> v.isIntegralNumber() ? "an integer" : "a number with a fraction or exponent";
      case BOOLEAN -> "a boolean";
      case OBJECT, POJO -> "an object";
      case ARRAY -> "an array";
      case BINARY -> "binary";
      case NULL, MISSING -> "null";
    };
  }

  // ---- writing ----

  /** Writes the cells from field index {@code first} on. */
  void write(RecordConsumer consumer, Object[] cells, int first) {
    write(consumer, columns, names, cells, first);
  }

  private static void write(
      RecordConsumer consumer,
      List<Column> columns,
      List<String> names,
      Object[] cells,
      int first) {
    for (int i = 0; i < cells.length; i++) {
      Object cell = cells[i];
      if (cell == null) {
        continue;
      }
      String name = names == null ? columns.get(i).name() : names.get(i);
      consumer.startField(name, first + i);
      value(consumer, cell, columns.get(i).type());
      consumer.endField(name, first + i);
    }
  }

  /** One value inside its field: a scalar, or a group's fields. */
  private static void value(RecordConsumer consumer, Object cell, FieldType type) {
    switch (cell) {
      case Boolean b -> consumer.addBoolean(b);
      case Integer n -> consumer.addInteger(n);
      case Long n -> consumer.addLong(n);
      case Float f -> consumer.addFloat(f);
      case Double d -> consumer.addDouble(d);
      case Binary b -> consumer.addBinary(b);
      case Group g -> {
        consumer.startGroup();
        write(consumer, ((FieldType.Struct) type).fields(), null, g.cells(), 0);
        consumer.endGroup();
      }
      case ListCell l -> {
        consumer.startGroup();
        if (l.elements().length > 0) {
          FieldType element = ((FieldType.Array) type).element();
          consumer.startField("list", 0);
          for (Object e : l.elements()) {
            consumer.startGroup();
            if (e != null) {
              consumer.startField("element", 0);
              value(consumer, e, element);
              consumer.endField("element", 0);
            }
            consumer.endGroup();
          }
          consumer.endField("list", 0);
        }
        consumer.endGroup();
      }
      case MapCell m -> {
        consumer.startGroup();
        if (m.keys().length > 0) {
          FieldType valueType = ((FieldType.MapOf) type).value();
          consumer.startField("key_value", 0);
          for (int k = 0; k < m.keys().length; k++) {
            consumer.startGroup();
            consumer.startField("key", 0);
            consumer.addBinary(Binary.fromString(m.keys()[k]));
            consumer.endField("key", 0);
            if (m.values()[k] != null) {
              consumer.startField("value", 1);
              value(consumer, m.values()[k], valueType);
              consumer.endField("value", 1);
            }
            consumer.endGroup();
          }
          consumer.endField("key_value", 0);
        }
        consumer.endGroup();
      }
      default -> throw new IllegalStateException("no Parquet value for " + cell.getClass());
    }
  }
}
