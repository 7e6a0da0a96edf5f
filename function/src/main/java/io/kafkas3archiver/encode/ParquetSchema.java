package io.kafkas3archiver.encode;

import static io.kafkas3archiver.encode.KafkaColumns.HEADERS;
import static io.kafkas3archiver.encode.KafkaColumns.KEY;
import static io.kafkas3archiver.encode.KafkaColumns.OFFSET;
import static io.kafkas3archiver.encode.KafkaColumns.PARTITION;
import static io.kafkas3archiver.encode.KafkaColumns.TIMESTAMP;
import static io.kafkas3archiver.encode.KafkaColumns.TIMESTAMP_TYPE;
import static io.kafkas3archiver.encode.KafkaColumns.TOPIC;

import io.kafkas3archiver.schema.NumberText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema of one object: the metadata columns, then the value columns of the topic's
 * schema version ({@link ColumnPlan}), each with its {@link io.kafkas3archiver.schema.ColumnType}
 * (docs: object layout, "Parquet types"):
 *
 * <ul>
 *   <li>{@code bigint}: INT64; {@code double}: DOUBLE; {@code boolean}: BOOLEAN;
 *   <li>{@code string} and {@code json}: STRING (UTF-8), nested values as compact JSON text;
 *   <li>a declared {@code number}: {@code DECIMAL(38,9)}.
 * </ul>
 *
 * A value that its column cannot hold exactly goes, exact, into the {@code _overflow} JSON column,
 * which every object has.
 */
final class ParquetSchema {
  static final String KEY_BASE64 = "kafka_key_base64";
  static final String KEY_SCHEMA_ID = "kafka_key_schema_id";
  static final String KEY_DATA_FORMAT = "kafka_key_data_format";
  static final String VALUE_SCHEMA_ID = "kafka_value_schema_id";
  static final String VALUE_DATA_FORMAT = "kafka_value_data_format";
  static final List<String> METADATA =
      List.of(
          TOPIC,
          PARTITION,
          OFFSET,
          TIMESTAMP,
          TIMESTAMP_TYPE,
          KEY,
          HEADERS,
          KEY_BASE64,
          KafkaColumns.EXACT,
          KEY_SCHEMA_ID,
          KEY_DATA_FORMAT,
          VALUE_SCHEMA_ID,
          VALUE_DATA_FORMAT);

  static final int DECIMAL_PRECISION = 38;
  static final int DECIMAL_SCALE = 9;
  private static final int DECIMAL_BYTES = 16;
  private static final long SCALE_FACTOR = 1_000_000_000L;
  private static final BigInteger MAX_UNSCALED = BigInteger.TEN.pow(DECIMAL_PRECISION);

  private final boolean metadata;
  private final boolean keyBase64;
  private final boolean exact;
  private final boolean schemaIds;
  private final ColumnPlan plan;
  private final RegistryColumns typed;
  private final MessageType messageType;

  ParquetSchema(boolean metadata, boolean keyBase64, ColumnPlan plan) {
    this(metadata, keyBase64, false, plan, null);
  }

  /**
   * With {@code typed} (may be null), the value columns are the registry schema's instead of {@code
   * plan}'s; {@code schemaIds} adds the schema id and data format metadata columns.
   */
  ParquetSchema(
      boolean metadata,
      boolean keyBase64,
      boolean schemaIds,
      ColumnPlan plan,
      RegistryColumns typed) {
    this(metadata, keyBase64, schemaIds, plan, typed, false);
  }

  /** With {@code exact}, the {@value KafkaColumns#EXACT} metadata column too. */
  ParquetSchema(
      boolean metadata,
      boolean keyBase64,
      boolean schemaIds,
      ColumnPlan plan,
      RegistryColumns typed,
      boolean exact) {
    this.metadata = metadata;
    this.keyBase64 = keyBase64;
    this.exact = metadata && exact;
    this.schemaIds = metadata && schemaIds;
    this.plan = plan;
    this.typed = typed;
    this.messageType = buildMessageType();
  }

  boolean schemaIds() {
    return schemaIds;
  }

  /** The registry schema's columns, or null when the columns are inferred. */
  RegistryColumns typed() {
    return typed;
  }

  boolean metadata() {
    return metadata;
  }

  boolean keyBase64() {
    return keyBase64;
  }

  boolean exact() {
    return exact;
  }

  ColumnPlan plan() {
    return plan;
  }

  MessageType messageType() {
    return messageType;
  }

  /**
   * A JSON number as the 16-byte big-endian unscaled value of a {@code DECIMAL(38,9)}, or null when
   * it cannot be held exactly.
   */
  static Binary decimal(String text) {
    byte[] bytes = new byte[DECIMAL_BYTES];
    if (text.length() <= 18 && isPlainInteger(text)) {
      long v = Long.parseLong(text);
      long lo = v * SCALE_FACTOR;
      long hi = Math.multiplyHigh(v, SCALE_FACTOR);
      putLong(bytes, 0, hi);
      putLong(bytes, 8, lo);
      return Binary.fromConstantByteArray(bytes);
    }
    // Up to 18 digits at scale 9 fit a long: no BigDecimal (the number's own digits decide).
    long d = NumberText.decompose(text);
    if (d != NumberText.NOT_SIMPLE) {
      if (!decimalFits(d)) {
        return null;
      }
      long m = NumberText.mantissa(d);
      int shift = NumberText.power(d) + DECIMAL_SCALE;
      if (m == 0 || NumberText.digits(m) + shift <= 18) {
        long unscaled = m == 0 ? 0 : m * NumberText.powerOfTen(shift);
        long v = NumberText.negative(d) ? -unscaled : unscaled;
        putLong(bytes, 0, v < 0 ? -1 : 0);
        putLong(bytes, 8, v);
        return Binary.fromConstantByteArray(bytes);
      }
    }
    BigDecimal v;
    try {
      v = new BigDecimal(text);
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
    // Integer digits first: setScale on 1e999999999 would build a billion-digit number.
    if (v.signum() != 0 && (long) v.precision() - v.scale() > DECIMAL_PRECISION - DECIMAL_SCALE) {
      return null;
    }
    if (v.signum() != 0 && v.stripTrailingZeros().scale() > DECIMAL_SCALE) {
      return null;
    }
    BigInteger unscaled = v.setScale(DECIMAL_SCALE).unscaledValue();
    if (unscaled.abs().compareTo(MAX_UNSCALED) >= 0) {
      return null;
    }
    byte[] twos = unscaled.toByteArray();
    byte pad = (byte) (unscaled.signum() < 0 ? 0xff : 0);
    int lead = DECIMAL_BYTES - twos.length;
    for (int i = 0; i < lead; i++) {
      bytes[i] = pad;
    }
    System.arraycopy(twos, 0, bytes, lead, twos.length);
    return Binary.fromConstantByteArray(bytes);
  }

  /**
   * Whether {@link #decimal} holds the number, without building its bytes where the text decides.
   */
  static boolean fitsDecimal(String text) {
    long d = NumberText.decompose(text);
    if (d == NumberText.NOT_SIMPLE) {
      return decimal(text) != null;
    }
    return decimalFits(d);
  }

  /**
   * A decomposed number ({@link NumberText}) fits when it is zero, or has at most 9 decimals
   * (trailing zeros aside) and at most 29 integer digits: the rule of the BigDecimal way above.
   */
  private static boolean decimalFits(long d) {
    long m = NumberText.mantissa(d);
    int power = NumberText.power(d);
    return m == 0
        || (power >= -DECIMAL_SCALE
            && NumberText.digits(m) + power <= DECIMAL_PRECISION - DECIMAL_SCALE);
  }

  private static boolean isPlainInteger(String text) {
    int start = text.startsWith("-") ? 1 : 0;
    if (start == text.length()) {
      return false;
    }
    for (int i = start; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static void putLong(byte[] b, int at, long v) {
    for (int i = 7; i >= 0; i--) {
      b[at + i] = (byte) v;
      v >>= 8;
    }
  }

  /** The Athena column type of each value column, in file order (for the docs' DDL). */
  List<String> athenaColumns() {
    List<String> ddl = new ArrayList<>();
    for (ColumnPlan.Column c : plan.columns()) {
      ddl.add("`" + c.name() + "` " + c.type().athenaType());
    }
    ddl.add("`" + ColumnPlan.OVERFLOW + "` string");
    return ddl;
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
      if (schemaIds) {
        for (String name :
            List.of(KEY_SCHEMA_ID, KEY_DATA_FORMAT, VALUE_SCHEMA_ID, VALUE_DATA_FORMAT)) {
          b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(name);
        }
      }
      if (exact) {
        b.optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .named(KafkaColumns.EXACT);
      }
    }
    if (typed != null) {
      typed.addTo(b);
    }
    for (ColumnPlan.Column c : plan.columns()) {
      switch (c.type()) {
        case BIGINT -> b.optional(PrimitiveTypeName.INT64).named(c.name());
        case DOUBLE -> b.optional(PrimitiveTypeName.DOUBLE).named(c.name());
        case BOOLEAN -> b.optional(PrimitiveTypeName.BOOLEAN).named(c.name());
        case DECIMAL ->
            b.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY)
                .length(DECIMAL_BYTES)
                .as(LogicalTypeAnnotation.decimalType(DECIMAL_SCALE, DECIMAL_PRECISION))
                .named(c.name());
        case STRING, JSON ->
            b.optional(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named(c.name());
      }
    }
    b.optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .named(ColumnPlan.OVERFLOW);
    return b.named("kafka_record");
  }
}
