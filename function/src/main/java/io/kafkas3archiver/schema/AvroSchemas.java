package io.kafkas3archiver.schema;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.decode.ParseProblem;
import io.kafkas3archiver.schema.FieldType.Column;
import io.kafkas3archiver.schema.FieldType.Scalar;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an Avro schema (its JSON text, as a registry stores it) into columns, with Jackson: the
 * Avro library would add about 1 MB to the jar for what is a small walk over a JSON tree.
 *
 * <p>The mapping (docs/schema-registry.md has the table): boolean, int, long, float, double, string
 * as themselves; bytes, fixed, enum and uuid as text; decimal (bytes or fixed) as {@code
 * DECIMAL(p,s)}; date, time-millis/-micros, timestamp-millis/-micros (and their local- forms) as
 * the Parquet logical types; a record as a group; a union of null and one type as that type,
 * nullable; arrays, maps and unions of several types as JSON text. A named type may be used again
 * by its name; a record that contains itself is JSON text where it recurs.
 */
public final class AvroSchemas {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Map<String, FieldType> named = new HashMap<>();

  private AvroSchemas() {}

  /** The columns of the schema's top-level record; none when the schema is not a record. */
  public static RegistrySchema parse(String schemaJson) {
    JsonNode root;
    try {
      root = MAPPER.readTree(schemaJson);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "the Avro schema is not JSON: "
              + (e instanceof JacksonException j ? ParseProblem.describe(j) : "unreadable"));
      // Not chained: the parser's message quotes the schema text, and the runtime prints causes.
    }
    if (root == null) {
      throw new IllegalArgumentException("the Avro schema is empty");
    }
    FieldType top = new AvroSchemas().type(root, "");
    List<Column> columns = top instanceof FieldType.Struct s ? s.fields() : List.of();
    return new RegistrySchema("AVRO", columns);
  }

  private FieldType type(JsonNode node, String namespace) {
    if (node.isTextual()) {
      return named(node.asText(), namespace);
    }
    if (node.isArray()) {
      List<JsonNode> branches = new ArrayList<>();
      for (JsonNode branch : node) {
        if (!(branch.isTextual() && branch.asText().equals("null"))) {
          branches.add(branch);
        }
      }
      if (branches.size() == 1) {
        return type(branches.get(0), namespace);
      }
      // Named types defined inside a wider union stay usable by name further on.
      branches.forEach(b -> type(b, namespace));
      return new FieldType.Json();
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException("an Avro type is neither a name, a union nor an object");
    }
    JsonNode typeNode = node.get("type");
    if (typeNode == null) {
      throw new IllegalArgumentException(
          "an Avro schema object"
              + (node.path("name").isTextual() ? " named '" + node.get("name").asText() + "'" : "")
              + " has no \"type\"");
    }
    String logical = node.path("logicalType").asText("");
    FieldType logicalType = logical(logical, node);
    if (!typeNode.isTextual()) {
      return logicalType != null ? logicalType : type(typeNode, namespace);
    }
    String kind = typeNode.asText();
    return switch (kind) {
      case "record", "error" -> record(node, namespace);
      case "enum" -> define(node, namespace, Scalar.STRING);
      case "fixed" -> define(node, namespace, logicalType != null ? logicalType : Scalar.STRING);
      case "array", "map" -> new FieldType.Json();
      default -> logicalType != null ? logicalType : named(kind, namespace);
    };
  }

  private static FieldType logical(String logical, JsonNode node) {
    return switch (logical) {
      case "decimal" -> {
        int precision = node.path("precision").asInt(0);
        int scale = node.path("scale").asInt(0);
        if (precision < 1 || scale < 0 || scale > precision) {
          throw new IllegalArgumentException(
              "a decimal needs 1 <= precision and 0 <= scale <= precision, not precision "
                  + precision
                  + " and scale "
                  + scale);
        }
        // Parquet readers (Athena, Spark) hold at most 38 digits; wider decimals stay text.
        yield precision > 38 ? Scalar.STRING : new FieldType.Decimal(precision, scale);
      }
      case "uuid" -> Scalar.STRING;
      case "date" -> Scalar.DATE;
      case "time-millis" -> Scalar.TIME_MILLIS;
      case "time-micros" -> Scalar.TIME_MICROS;
      case "timestamp-millis", "local-timestamp-millis" -> Scalar.TIMESTAMP_MILLIS;
      case "timestamp-micros", "local-timestamp-micros" -> Scalar.TIMESTAMP_MICROS;
      default -> null; // unknown logical types fall back to their underlying type (Avro's rule)
    };
  }

  private FieldType record(JsonNode node, String namespace) {
    String ns = namespaceOf(node, namespace);
    String fullName = fullName(node.path("name").asText(""), ns);
    // Until its fields are read, a reference to the record from inside itself is JSON text.
    register(fullName, new FieldType.Json());
    List<Column> columns = new ArrayList<>();
    int index = 0;
    for (JsonNode field : node.path("fields")) {
      index++;
      String name = field.path("name").asText();
      if (name.isEmpty() || !field.has("type")) {
        throw new IllegalArgumentException(
            "field "
                + index
                + " of the Avro record '"
                + fullName
                + "' has no "
                + (name.isEmpty() ? "name" : "type"));
      }
      columns.add(new Column(name, name, type(field.get("type"), ns)));
    }
    FieldType.Struct struct = new FieldType.Struct(columns);
    register(fullName, struct);
    return struct;
  }

  private FieldType define(JsonNode node, String namespace, FieldType type) {
    register(fullName(node.path("name").asText(""), namespaceOf(node, namespace)), type);
    return type;
  }

  private FieldType named(String name, String namespace) {
    FieldType primitive =
        switch (name) {
          case "boolean" -> Scalar.BOOLEAN;
          case "int" -> Scalar.INT32;
          case "long" -> Scalar.INT64;
          case "float" -> Scalar.FLOAT;
          case "double" -> Scalar.DOUBLE;
          case "string", "bytes" -> Scalar.STRING;
          case "null" -> new FieldType.Json();
          default -> null;
        };
    if (primitive != null) {
      return primitive;
    }
    FieldType t = named.get(name.contains(".") ? name : fullName(name, namespace));
    if (t == null) {
      t = named.get(name);
    }
    if (t == null) {
      throw new IllegalArgumentException("the Avro schema uses the undefined type '" + name + "'");
    }
    return t;
  }

  private void register(String fullName, FieldType type) {
    named.put(fullName, type);
    // The short name too, for schemas that refer to a type without its namespace.
    named.put(fullName.substring(fullName.lastIndexOf('.') + 1), type);
  }

  private static String namespaceOf(JsonNode node, String enclosing) {
    String name = node.path("name").asText("");
    if (name.contains(".")) {
      return name.substring(0, name.lastIndexOf('.'));
    }
    return node.has("namespace") ? node.get("namespace").asText("") : enclosing;
  }

  private static String fullName(String name, String namespace) {
    return name.contains(".") || namespace.isEmpty() ? name : namespace + "." + name;
  }
}
