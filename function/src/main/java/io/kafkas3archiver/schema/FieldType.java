package io.kafkas3archiver.schema;

import java.util.List;

/**
 * The type of one column as a registry schema declares it, reduced to what a Parquet column can
 * hold. The mapping from Avro and Protobuf is in {@link AvroSchemas} and {@link ProtobufSchemas}
 * and in docs/schema-registry.md.
 */
public sealed interface FieldType {

  /** Types of one value each. */
  enum Scalar implements FieldType {
    BOOLEAN,
    INT32,
    INT64,
    FLOAT,
    DOUBLE,
    /** Text; also Avro/Protobuf enums, uuid and bytes (as the mapping's JSON renders them). */
    STRING,
    /** Bytes: a declared {@code binary}; JSON gives base64 text. */
    BINARY,
    /** Days since 1970-01-01; JSON gives a number of days or an ISO date. */
    DATE,
    TIME_MILLIS,
    TIME_MICROS,
    /** Instant in UTC; JSON gives epoch milliseconds or an ISO-8601 instant. */
    TIMESTAMP_MILLIS,
    TIMESTAMP_MICROS
  }

  /** An exact decimal; values with more fractional digits than {@code scale} do not fit. */
  record Decimal(int precision, int scale) implements FieldType {}

  /** A nested record or message: a Parquet group. */
  record Struct(List<Column> fields) implements FieldType {
    public Struct {
      fields = List.copyOf(fields);
    }
  }

  /** A declared {@code array<element>}: a Parquet LIST of its elements (JSON arrays). */
  record Array(FieldType element) implements FieldType {}

  /** A declared {@code map<string,value>}: a Parquet MAP from string keys (JSON objects). */
  record MapOf(FieldType value) implements FieldType {}

  /** Registry arrays, maps and unions of several types; declared json: compact JSON text. */
  record Json() implements FieldType {}

  /**
   * One field: its column name (the schema's field name), the JSON field name the mapping's
   * conversion may use instead (Protobuf's lowerCamelCase), and its type.
   */
  record Column(String name, String jsonName, FieldType type) {}
}
