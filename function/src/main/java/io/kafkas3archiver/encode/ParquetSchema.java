package io.kafkas3archiver.encode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema of one batch, inferred from its values (README "Formats, compression and
 * schema"). Every value column is optional. A column's type is the narrowest that holds every
 * non-null value exactly:
 *
 * <ul>
 *   <li>all booleans: {@code BOOLEAN}; all integers within int64: {@code INT64};
 *   <li>integers and decimals mixed, or decimals only: {@code DOUBLE}, as long as every integer is
 *       within ±2^53 and every decimal is a finite, non-underflowing double;
 *   <li>all strings that are RFC 3339 instants with an offset and at most 6 fractional digits:
 *       {@code TIMESTAMP(MICROS, UTC)};
 *   <li>anything else (strings, nested objects and arrays, mixed kinds, numbers beyond the above):
 *       {@code STRING}, holding the string or the JSON text. A field that is null in every record
 *       is an all-null {@code STRING} column.
 * </ul>
 *
 * Names are kept as written, except that a name equal to an earlier one ignoring case gets {@code
 * _2}, {@code _3}, ... (readers such as DuckDB, Athena and Spark match names case-insensitively)
 * and an empty name becomes {@code _}.
 */
final class ParquetSchema {
  static final String TOPIC = "kafka_topic";
  static final String PARTITION = "kafka_partition";
  static final String OFFSET = "kafka_offset";
  static final String TIMESTAMP = "kafka_timestamp";
  static final String TIMESTAMP_TYPE = "kafka_timestamp_type";
  static final String KEY = "kafka_key";
  static final String HEADERS = "kafka_headers";
  static final String KEY_BASE64 = "kafka_key_base64";

  private static final long MAX_EXACT_DOUBLE = 1L << 53;
  private static final Pattern INSTANT =
      Pattern.compile(
          "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})");

  /** The Parquet type of a value column. */
  enum ColumnType {
    BOOLEAN,
    LONG,
    DOUBLE,
    TIMESTAMP,
    STRING
  }

  /** A value column: its name in the file, the JSON field it comes from, and its type. */
  record Column(String name, String field, ColumnType type) {}

  private final boolean metadata;
  private final boolean keyBase64;
  private final List<Column> columns;
  private final MessageType messageType;

  private ParquetSchema(boolean metadata, boolean keyBase64, List<Column> columns) {
    this.metadata = metadata;
    this.keyBase64 = keyBase64;
    this.columns = List.copyOf(columns);
    this.messageType = buildMessageType();
  }

  boolean metadata() {
    return metadata;
  }

  boolean keyBase64() {
    return keyBase64;
  }

  List<Column> columns() {
    return columns;
  }

  MessageType messageType() {
    return messageType;
  }

  /**
   * Infers the schema from the batch's values (null entries are tombstones kept as rows). With
   * {@code metadata}, the {@code kafka_*} columns come first, and {@code kafka_key_base64} when
   * {@code keyBase64}.
   */
  static ParquetSchema infer(List<ObjectNode> values, boolean metadata, boolean keyBase64) {
    Map<String, Kind> kinds = new LinkedHashMap<>();
    Set<String> unsafeForDouble = new HashSet<>();
    for (ObjectNode value : values) {
      if (value == null) {
        continue;
      }
      for (var field : value.properties()) {
        Kind kind = kindOf(field.getValue());
        kinds.merge(field.getKey(), kind, Kind::join);
        if (kind == Kind.LONG && Math.abs(field.getValue().longValue()) > MAX_EXACT_DOUBLE) {
          unsafeForDouble.add(field.getKey());
        }
      }
    }
    Set<String> taken = new HashSet<>();
    if (metadata) {
      for (String name :
          List.of(TOPIC, PARTITION, OFFSET, TIMESTAMP, TIMESTAMP_TYPE, KEY, HEADERS)) {
        taken.add(fold(name));
      }
      if (keyBase64) {
        taken.add(fold(KEY_BASE64));
      }
    }
    List<Column> columns = new ArrayList<>(kinds.size());
    kinds.forEach(
        (field, kind) -> {
          ColumnType type =
              switch (kind) {
                case NULL, STRING -> ColumnType.STRING;
                case BOOLEAN -> ColumnType.BOOLEAN;
                case LONG -> ColumnType.LONG;
                case DOUBLE ->
                    unsafeForDouble.contains(field) ? ColumnType.STRING : ColumnType.DOUBLE;
                case TIMESTAMP -> ColumnType.TIMESTAMP;
              };
          columns.add(new Column(uniqueName(field, taken), field, type));
        });
    return new ParquetSchema(metadata, keyBase64, columns);
  }

  /** RFC 3339 instant with an offset, to microseconds since the epoch; null when it is not one. */
  static Long instantMicros(String text) {
    if (text.length() < 20 || text.length() > 32 || !INSTANT.matcher(text).matches()) {
      return null;
    }
    try {
      var instant = OffsetDateTime.parse(text).toInstant();
      return Math.addExact(
          Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /** What one JSON value needs, before widening across records. */
  private enum Kind {
    NULL,
    BOOLEAN,
    LONG,
    DOUBLE,
    TIMESTAMP,
    STRING;

    /** The widening rule: long + double = double; any other mix is a string. */
    static Kind join(Kind a, Kind b) {
      if (a == b || b == NULL) {
        return a;
      }
      if (a == NULL) {
        return b;
      }
      if ((a == LONG && b == DOUBLE) || (a == DOUBLE && b == LONG)) {
        return DOUBLE;
      }
      return STRING;
    }
  }

  private static Kind kindOf(JsonNode v) {
    if (v == null || v.isNull()) {
      return Kind.NULL;
    }
    if (v.isBoolean()) {
      return Kind.BOOLEAN;
    }
    if (v.isIntegralNumber()) {
      return v.canConvertToLong() ? Kind.LONG : Kind.STRING;
    }
    if (v.isNumber()) {
      double d = v.doubleValue();
      boolean underflow = d == 0.0 && v.isBigDecimal() && v.decimalValue().signum() != 0;
      return Double.isFinite(d) && !underflow ? Kind.DOUBLE : Kind.STRING;
    }
    if (v.isTextual()) {
      return instantMicros(v.textValue()) != null ? Kind.TIMESTAMP : Kind.STRING;
    }
    return Kind.STRING;
  }

  private static String uniqueName(String field, Set<String> taken) {
    String base = field.isEmpty() ? "_" : field;
    String name = base;
    for (int n = 2; !taken.add(fold(name)); n++) {
      name = base + "_" + n;
    }
    return name;
  }

  private static String fold(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  private MessageType buildMessageType() {
    var b = Types.buildMessage();
    if (metadata) {
      b.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(TOPIC);
      b.required(PrimitiveTypeName.INT32).named(PARTITION);
      b.required(PrimitiveTypeName.INT64).named(OFFSET);
      b.optional(PrimitiveTypeName.INT64)
          .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MILLIS))
          .named(TIMESTAMP);
      b.optional(PrimitiveTypeName.BINARY)
          .as(LogicalTypeAnnotation.stringType())
          .named(TIMESTAMP_TYPE);
      b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(KEY);
      b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(HEADERS);
      if (keyBase64) {
        b.optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named(KEY_BASE64);
      }
    }
    for (Column c : columns) {
      switch (c.type()) {
        case BOOLEAN -> b.optional(PrimitiveTypeName.BOOLEAN).named(c.name());
        case LONG -> b.optional(PrimitiveTypeName.INT64).named(c.name());
        case DOUBLE -> b.optional(PrimitiveTypeName.DOUBLE).named(c.name());
        case TIMESTAMP ->
            b.optional(PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS))
                .named(c.name());
        case STRING ->
            b.optional(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named(c.name());
      }
    }
    return b.named("kafka_record");
  }
}
