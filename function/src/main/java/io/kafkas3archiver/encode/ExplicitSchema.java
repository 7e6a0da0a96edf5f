package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Kind;
import io.kafkas3archiver.schema.ColumnType;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code PARQUET_SCHEMA}: the columns a topic's Parquet objects must have, given instead of
 * inferred. It wins over inference: the declared fields are columns in every object, in the
 * declared order and with the declared type, even in a batch where none of them occurs, and a
 * record whose value does not match a declared type goes to the error object with the reason.
 * Fields that are not declared are inferred as usual.
 *
 * <p>The document is a JSON object from field name to type: {@code bigint} (INT64, an integer of 64
 * bits), {@code double} (DOUBLE, a number whose nearest double prints back as the same number),
 * {@code number} ({@code DECIMAL(38,9)}), {@code boolean}, {@code string}, or {@code json} (an
 * object or array, stored as JSON text), e.g. {@code
 * {"vehicleId":"string","speedKmh":"double","location":"json"}}. A mismatch's reason names the
 * field and the types only, never the value.
 */
public final class ExplicitSchema {
  /** The legal types, as the configuration error lists them. */
  public static final String LEGAL =
      "a JSON object from field name to \"bigint\", \"double\", \"number\", \"boolean\","
          + " \"string\" or \"json\", e.g. {\"vehicleId\":\"string\",\"speedKmh\":\"double\"}";

  private final Map<String, ColumnType> fields;

  private ExplicitSchema(Map<String, ColumnType> fields) {
    this.fields = Collections.unmodifiableMap(fields);
  }

  /** The declared fields in order, each with its column type. */
  Map<String, ColumnType> fields() {
    return fields;
  }

  /**
   * Parses the document; an {@link IllegalArgumentException} says what is wrong with it (the
   * configuration names the variable and the legal values around it).
   */
  public static ExplicitSchema parse(String document) {
    Map<String, ColumnType> fields = new LinkedHashMap<>();
    try (JsonParser p = Json.FACTORY.createParser(document)) {
      p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("it is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (p.nextToken() != JsonToken.VALUE_STRING) {
          throw new IllegalArgumentException("the type of field '" + name + "' is not a string");
        }
        fields.put(
            name,
            switch (p.getText()) {
              case "bigint" -> ColumnType.BIGINT;
              case "double" -> ColumnType.DOUBLE;
              case "number" -> ColumnType.DECIMAL;
              case "boolean" -> ColumnType.BOOLEAN;
              case "string" -> ColumnType.STRING;
              case "json" -> ColumnType.JSON;
              default ->
                  throw new IllegalArgumentException(
                      "field '" + name + "' has the unknown type '" + p.getText() + "'");
            });
      }
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("more than one JSON value");
      }
    } catch (JacksonException e) {
      throw new IllegalArgumentException("it is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("it cannot be read: " + e.getMessage());
    }
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("it declares no field");
    }
    return new ExplicitSchema(fields);
  }

  /** Why a value does not match its declared type, or null when it matches or is not declared. */
  String mismatch(Field field) {
    ColumnType declared = fields.get(field.name());
    if (declared == null || field.kind() == Kind.NULL) {
      return null;
    }
    boolean fits =
        switch (declared) {
          case BIGINT, DOUBLE, DECIMAL ->
              field.kind() == Kind.NUMBER && ColumnPlan.fits(declared, field);
          case BOOLEAN -> field.kind() == Kind.BOOLEAN;
          case STRING -> field.kind() == Kind.STRING;
          case JSON -> field.kind() == Kind.NESTED;
        };
    if (fits) {
      return null;
    }
    String what =
        field.kind() != Kind.NUMBER
            ? "a " + kindName(field.kind())
            : switch (declared) {
              case BIGINT -> "a number that is not an integer of 64 bits";
              case DOUBLE -> "a number that no double holds exactly";
              case DECIMAL -> "a number beyond DECIMAL(38,9)";
              default -> "a number";
            };
    return "field '"
        + field.name()
        + "' is "
        + what
        + ", but PARQUET_SCHEMA declares it "
        + typeName(declared);
  }

  private static String typeName(ColumnType type) {
    return switch (type) {
      case DECIMAL -> "number";
      case JSON -> "json (object or array)";
      default -> type.id();
    };
  }

  private static String kindName(Kind kind) {
    return switch (kind) {
      case NULL -> "null";
      case BOOLEAN -> "boolean";
      case NUMBER -> "number";
      case STRING -> "string";
      case NESTED -> "json (object or array)";
    };
  }
}
