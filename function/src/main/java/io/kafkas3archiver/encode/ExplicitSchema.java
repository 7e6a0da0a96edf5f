package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Kind;
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
 * <p>The document is a JSON object from field name to type: {@code number} ({@code DECIMAL(38,9)}),
 * {@code boolean}, {@code string}, or {@code json} (an object or array, stored as JSON text), e.g.
 * {@code {"vehicleId":"string","speedKmh":"number","location":"json"}}.
 */
public final class ExplicitSchema {
  /** The legal types, as the configuration error lists them. */
  public static final String LEGAL =
      "a JSON object from field name to \"number\", \"boolean\", \"string\" or \"json\", e.g."
          + " {\"vehicleId\":\"string\",\"speedKmh\":\"number\"}";

  private final Map<String, Kind> fields;

  private ExplicitSchema(Map<String, Kind> fields) {
    this.fields = Collections.unmodifiableMap(fields);
  }

  /** The declared fields in order, each with its kind. */
  Map<String, Kind> fields() {
    return fields;
  }

  /**
   * Parses the document; an {@link IllegalArgumentException} says what is wrong with it (the
   * configuration names the variable and the legal values around it).
   */
  public static ExplicitSchema parse(String document) {
    Map<String, Kind> fields = new LinkedHashMap<>();
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
              case "number" -> Kind.NUMBER;
              case "boolean" -> Kind.BOOLEAN;
              case "string" -> Kind.STRING;
              case "json" -> Kind.NESTED;
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
    Kind declared = fields.get(field.name());
    if (declared == null || field.kind() == Kind.NULL) {
      return null;
    }
    boolean fits =
        switch (declared) {
          case NUMBER -> field.kind() == Kind.NUMBER && ParquetSchema.decimal(field.text()) != null;
          case NESTED -> field.kind() == Kind.NESTED;
          default -> field.kind() == declared;
        };
    if (fits) {
      return null;
    }
    String what =
        field.kind() == Kind.NUMBER && declared == Kind.NUMBER
            ? "a number beyond DECIMAL(38,9)"
            : "a " + kindName(field.kind());
    return "field '"
        + field.name()
        + "' is "
        + what
        + ", but PARQUET_SCHEMA declares it "
        + kindName(declared);
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
