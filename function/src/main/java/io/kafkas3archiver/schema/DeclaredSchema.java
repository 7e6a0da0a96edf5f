package io.kafkas3archiver.schema;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A declared schema: the columns that every Parquet object of every topic has, first and with these
 * types, whatever a batch holds. It wins over the schema registry and over inference (DESIGN §4);
 * fields it does not declare are inferred as usual. A record whose value does not match a declared
 * type goes to the error object, with a reason naming the field and the type.
 *
 * @param origin where it was declared, for reasons and messages: {@code PARQUET_SCHEMA}, {@code the
 *     Glue table db.t}, {@code the schema document s3://b/k.json}
 * @param columns the declared fields in order; a field matches its JSON field by name, or ignoring
 *     case when no field has the exact name (Glue stores column names in lower case)
 */
public record DeclaredSchema(String origin, List<FieldType.Column> columns) {
  private static final JsonFactory JSON = new JsonFactory();

  public DeclaredSchema {
    columns = List.copyOf(columns);
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("it declares no field");
    }
    Set<String> seen = new HashSet<>();
    for (FieldType.Column c : columns) {
      if (!seen.add(c.name().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "field '" + c.name() + "' is declared twice (names are compared ignoring case)");
      }
    }
  }

  /**
   * A JSON object from field name to type ({@link DeclaredTypes}), e.g. {@code
   * {"id":"bigint","at":"timestamp","price":"decimal(10,2)"}}; an {@link IllegalArgumentException}
   * says what is wrong.
   */
  public static DeclaredSchema parse(String document, String origin) {
    List<FieldType.Column> columns = new ArrayList<>();
    try (JsonParser p = JSON.createParser(document)) {
      p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("it is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (p.nextToken() != JsonToken.VALUE_STRING) {
          throw new IllegalArgumentException("the type of field '" + name + "' is not a string");
        }
        FieldType type;
        try {
          type = DeclaredTypes.parse(p.getText());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("field '" + name + "': " + e.getMessage());
        }
        columns.add(new FieldType.Column(name, name, type));
      }
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("more than one JSON value");
      }
    } catch (JacksonException e) {
      throw new IllegalArgumentException("it is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("it cannot be read: " + e.getMessage());
    }
    return new DeclaredSchema(origin, columns);
  }

  /** The declared field names. */
  public List<String> names() {
    return columns.stream().map(FieldType.Column::name).toList();
  }
}
