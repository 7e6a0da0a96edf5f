package io.kafkas3archiver.schema;

import io.kafkas3archiver.schema.FieldType.Column;
import io.kafkas3archiver.schema.FieldType.Scalar;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a Protobuf schema (the {@code .proto} text a registry stores) into the columns of its first
 * top-level message, which is the message Confluent's serializers and Glue use by default.
 *
 * <p>Scope, on purpose small: proto3 (proto2's {@code optional}/{@code required} are read as plain
 * fields) scalars, nested and top-level messages, enums, {@code oneof} (each member a nullable
 * column), {@code repeated} and {@code map<,>} (JSON text), {@code google.protobuf.Timestamp} (a
 * timestamp). Options, {@code reserved}, {@code extensions}, {@code import} and {@code service}
 * blocks are skipped; other imported types are JSON text. Not supported: proto2 groups and
 * extensions' fields, and messages selected by a message index other than the first.
 */
public final class ProtobufSchemas {
  private final List<String> tokens;
  private int at;

  /** Message and enum definitions by full dotted name, collected before types are resolved. */
  private final Map<String, Definition> definitions = new HashMap<>();

  private final Set<String> resolving = new HashSet<>();

  private sealed interface Definition {}

  private record Message(String fullName, List<FieldDecl> fields) implements Definition {}

  private record EnumDef() implements Definition {}

  private record FieldDecl(String name, String type, boolean repeated) {}

  private ProtobufSchemas(String text) {
    this.tokens = tokenize(text);
  }

  public static RegistrySchema parse(String protoText) {
    ProtobufSchemas p = new ProtobufSchemas(protoText);
    Message first = p.file();
    if (first == null) {
      throw new IllegalArgumentException("the Protobuf schema defines no message");
    }
    return new RegistrySchema("PROTOBUF", p.struct(first).fields());
  }

  private Message file() {
    String pkg = "";
    Message first = null;
    while (at < tokens.size()) {
      String t = next();
      switch (t) {
        case "package" -> {
          pkg = next();
          expect(";");
        }
        case "syntax", "edition", "import", "option" -> skipStatement();
        case "message" -> {
          Message m = message(pkg);
          if (first == null) {
            first = m;
          }
        }
        case "enum" -> enumDef(pkg);
        case "service", "extend" -> {
          next();
          skipBlock();
        }
        case ";" -> {}
        default ->
            throw new IllegalArgumentException(
                "unexpected " + kind(t) + " at token " + at + " of the .proto");
      }
    }
    return first;
  }

  private Message message(String scope) {
    String fullName = qualify(scope, next());
    expect("{");
    List<FieldDecl> fields = new ArrayList<>();
    Message m = new Message(fullName, fields);
    definitions.put(fullName, m);
    while (!peek("}")) {
      String t = next();
      switch (t) {
        case "message" -> message(fullName);
        case "enum" -> enumDef(fullName);
        case "option", "reserved", "extensions" -> skipStatement();
        case "extend" -> {
          next();
          skipBlock();
        }
        case "oneof" -> {
          next();
          expect("{");
          while (!peek("}")) {
            if (peek("option")) {
              skipStatement();
            } else {
              fields.add(field(next(), false));
            }
          }
          expect("}");
        }
        case ";" -> {}
        case "repeated" -> fields.add(field(next(), true));
        case "optional", "required" -> fields.add(field(next(), false));
        case "map" -> {
          // map<K, V> name = N;
          while (!next().equals(">")) {
            // key and value types: the column is JSON text either way
          }
          fields.add(field("map", true));
        }
        default -> fields.add(field(t, false));
      }
    }
    expect("}");
    return m;
  }

  private FieldDecl field(String type, boolean repeated) {
    String name = next();
    expect("=");
    next(); // the field number
    skipStatement();
    return new FieldDecl(name, type, repeated);
  }

  private void enumDef(String scope) {
    definitions.put(qualify(scope, next()), new EnumDef());
    skipBlockBody();
  }

  private FieldType.Struct struct(Message m) {
    resolving.add(m.fullName());
    List<Column> columns = new ArrayList<>();
    for (FieldDecl f : m.fields()) {
      FieldType type = f.repeated() ? new FieldType.Json() : type(f.type(), m.fullName());
      columns.add(new Column(f.name(), jsonName(f.name()), type));
    }
    resolving.remove(m.fullName());
    return new FieldType.Struct(columns);
  }

  private FieldType type(String name, String scope) {
    FieldType scalar =
        switch (name) {
          case "double" -> Scalar.DOUBLE;
          case "float" -> Scalar.FLOAT;
          case "int32", "sint32", "sfixed32" -> Scalar.INT32;
          // Unsigned 32-bit values reach 2^32 - 1: a signed 64-bit column holds them all.
          case "uint32", "fixed32", "int64", "sint64", "sfixed64" -> Scalar.INT64;
          case "uint64", "fixed64" -> new FieldType.Decimal(20, 0);
          case "bool" -> Scalar.BOOLEAN;
          case "string", "bytes" -> Scalar.STRING;
          case "google.protobuf.Timestamp", ".google.protobuf.Timestamp" -> Scalar.TIMESTAMP_MICROS;
          default -> null;
        };
    if (scalar != null) {
      return scalar;
    }
    Definition d = resolve(name, scope);
    return switch (d) {
      case null -> new FieldType.Json(); // an imported type we do not have
      case EnumDef e -> Scalar.STRING;
      case Message m -> resolving.contains(m.fullName()) ? new FieldType.Json() : struct(m);
    };
  }

  /** Protobuf's scoping: the innermost enclosing scope that defines the name wins. */
  private Definition resolve(String name, String scope) {
    if (name.startsWith(".")) {
      return definitions.get(name.substring(1));
    }
    String s = scope;
    while (true) {
      Definition d = definitions.get(qualify(s, name));
      if (d != null || s.isEmpty()) {
        return d;
      }
      int dot = s.lastIndexOf('.');
      s = dot < 0 ? "" : s.substring(0, dot);
    }
  }

  /** proto3's JSON name: underscores dropped, the letter after each one upper-cased. */
  static String jsonName(String name) {
    StringBuilder b = new StringBuilder(name.length());
    boolean upper = false;
    for (char c : name.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return b.toString();
  }

  private static String qualify(String scope, String name) {
    return scope.isEmpty() ? name : scope + "." + name;
  }

  private String next() {
    if (at >= tokens.size()) {
      throw new IllegalArgumentException("the .proto ends early");
    }
    return tokens.get(at++);
  }

  private boolean peek(String t) {
    if (at >= tokens.size()) {
      throw new IllegalArgumentException("the .proto ends early, expected '" + t + "'");
    }
    return tokens.get(at).equals(t);
  }

  private void expect(String t) {
    String got = next();
    if (!got.equals(t)) {
      throw new IllegalArgumentException(
          "expected '" + t + "' but found " + kind(got) + " at token " + at + " of the .proto");
    }
  }

  /**
   * What a token is, without its text (which may be a string or an option value of the schema's
   * author): punctuation is shown, anything else by its kind.
   */
  private static String kind(String token) {
    if (token.length() == 1 && "{}[]()<>;=,.".contains(token)) {
      return "'" + token + "'";
    }
    if (token.startsWith("\"") || token.startsWith("'")) {
      return "a string";
    }
    if (!token.isEmpty() && (Character.isDigit(token.charAt(0)) || token.charAt(0) == '-')) {
      return "a number";
    }
    return "a name";
  }

  /** Up to and including the next ';' at this nesting level (skips [options] and {...}). */
  private void skipStatement() {
    int depth = 0;
    while (true) {
      String t = next();
      switch (t) {
        case "{", "[", "(" -> depth++;
        case "}", "]", ")" -> depth--;
        case ";" -> {
          if (depth == 0) {
            return;
          }
        }
        default -> {}
      }
      if (depth == 0 && t.equals("}")) {
        return;
      }
    }
  }

  private void skipBlock() {
    while (!peek("{")) {
      next();
    }
    skipBlockBody();
  }

  private void skipBlockBody() {
    expect("{");
    int depth = 1;
    while (depth > 0) {
      String t = next();
      if (t.equals("{")) {
        depth++;
      } else if (t.equals("}")) {
        depth--;
      }
    }
  }

  private static List<String> tokenize(String text) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
        while (i < n && text.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && text.charAt(j) != c) {
          j += text.charAt(j) == '\\' ? 2 : 1;
        }
        out.add(text.substring(i, Math.min(j + 1, n)));
        i = j + 1;
      } else if (Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-' || c == '+') {
        int j = i;
        while (j < n) {
          char d = text.charAt(j);
          if (!(Character.isLetterOrDigit(d) || d == '_' || d == '.' || d == '-' || d == '+')) {
            break;
          }
          j++;
        }
        out.add(text.substring(i, j));
        i = j;
      } else {
        out.add(String.valueOf(c));
        i++;
      }
    }
    return out;
  }
}
