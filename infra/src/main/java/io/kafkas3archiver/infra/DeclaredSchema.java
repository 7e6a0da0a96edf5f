package io.kafkas3archiver.infra;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code parquetSchema} (the function's {@code PARQUET_SCHEMA}) read as the function reads it: a
 * JSON object from field name to a type of the declared vocabulary (Hive type text, as Glue and
 * Athena write it), or {@code glue:<database>.<table>}, a Glue table whose columns are the schema.
 *
 * <p>When the stack provisions the Athena table, the table's columns are made from the inline
 * schema here and the function then reads its schema back from that table, so the two agree by
 * construction. That only holds for a type whose Hive name the function reads back as the same type
 * ({@link Type#hive()}): a {@code json} column is written as JSON text, which Athena reads as
 * {@code string}, but a {@code string} column in the table would make the function expect strings;
 * {@code timestamp(6)} has no Hive name Athena accepts. {@code array<…>} and {@code map<string,…>}
 * are Parquet LIST and MAP, carried as Athena's {@code array} and {@code map} of their element.
 */
record DeclaredSchema(List<Column> columns) {

  /** The vocabulary, as errors list it (the function's {@code DeclaredTypes.LEGAL}). */
  static final String LEGAL =
      "boolean, int, bigint, float, double, decimal(p,s), string, binary, date, timestamp,"
          + " timestamp(6), json, struct<name:type,...>, array<type>, map<string,type>";

  /** Glue's names, as the function's {@code DeclaredSchemaRef} accepts them. */
  private static final Pattern GLUE_TABLE =
      Pattern.compile("glue:([A-Za-z0-9_-]{1,255})\\.([A-Za-z0-9_-]{1,255})");

  /** Athena and Glue keep column names in lower case. */
  private static final Pattern TABLE_COLUMN = Pattern.compile("[a-z_][a-z0-9_]*");

  /**
   * One declared type: its canonical Hive name, or why a Glue table cannot carry it (then {@code
   * hive} is null).
   */
  record Type(String hive, String notInTable) {}

  /** A declared field: its name, the type as written, and the type read. */
  record Column(String name, String declared, Type type) {}

  /** A Glue table named by {@code glue:<database>.<table>}. */
  record GlueTable(String database, String table) {
    String setting() {
      return "glue:" + database + "." + table;
    }
  }

  /** The table {@code value} names, if it is {@code glue:<database>.<table>}. */
  static Optional<GlueTable> glueTable(String value) {
    Matcher m = GLUE_TABLE.matcher(value.strip());
    return m.matches() ? Optional.of(new GlueTable(m.group(1), m.group(2))) : Optional.empty();
  }

  /**
   * Reads an inline schema; an {@link IllegalArgumentException} names the field and what is wrong
   * (the field's name and type only: a schema holds no record values).
   */
  static DeclaredSchema parse(String document) {
    String legal =
        "legal: a JSON object from field name to one of "
            + LEGAL
            + " (e.g. {\"id\":\"bigint\",\"price\":\"decimal(10,2)\"}), or glue:<database>.<table>";
    JsonNode root;
    try {
      // As strict as the function's parser: a repeated field or a second value is an error there.
      root =
          new ObjectMapper()
              .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
              .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
              .readTree(document);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "parquetSchema='" + document + "' is not JSON (" + e.getMessage() + "); " + legal, e);
    }
    if (root == null || !root.isObject() || root.isEmpty()) {
      throw new IllegalArgumentException(
          "parquetSchema='" + document + "' is not a JSON object with a field; " + legal);
    }
    List<Column> columns = new ArrayList<>();
    root.properties()
        .forEach(
            field -> {
              if (!field.getValue().isTextual()) {
                throw new IllegalArgumentException(
                    "parquetSchema field '"
                        + field.getKey()
                        + "' has type "
                        + field.getValue()
                        + "; "
                        + legal);
              }
              String declared = field.getValue().asText();
              try {
                columns.add(new Column(field.getKey(), declared, type(declared)));
              } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                    "parquetSchema field '"
                        + field.getKey()
                        + "' has type '"
                        + declared
                        + "': "
                        + e.getMessage()
                        + "; "
                        + legal,
                    e);
              }
            });
    return new DeclaredSchema(List.copyOf(columns));
  }

  /**
   * The Glue table's columns: each field's name and Hive type. Refuses, naming the field and the
   * fix, a field the table cannot carry so that the function reads back the same schema.
   */
  List<Column> tableColumns() {
    for (Column c : columns) {
      if (!TABLE_COLUMN.matcher(c.name()).matches()) {
        throw new IllegalArgumentException(
            "parquetSchema field '"
                + c.name()
                + "' cannot be a column of the Athena table: Glue and Athena keep column names in"
                + " lower case, and the function, which reads its schema from that table, would"
                + " then look for another field name; declare lower-case names ([a-z_][a-z0-9_]*),"
                + " or set athena=false and create the table yourself");
      }
      if (c.type().hive() == null) {
        throw new IllegalArgumentException(
            "parquetSchema field '"
                + c.name()
                + "' has type '"
                + c.declared()
                + "', which the Athena table cannot carry: "
                + c.type().notInTable()
                + "; declare another type (struct<...> for an object), or set athena=false and"
                + " keep the inline parquetSchema");
      }
    }
    return columns;
  }

  /** Parses one type of the vocabulary. */
  static Type type(String text) {
    Reader r = new Reader(text);
    Type t = r.type();
    r.space();
    if (r.at < text.length()) {
      throw new IllegalArgumentException("extra text after the type's end");
    }
    return t;
  }

  /** A recursive-descent reader of Hive type text, e.g. {@code struct<a:int,b:decimal(10,2)>}. */
  private static final class Reader {
    private static final String JSON_TEXT =
        "the files hold it as JSON text, which Athena reads as string, but a string column in the"
            + " table would make the function expect strings";
    final String text;
    int at;

    Reader(String text) {
      this.text = text;
    }

    void space() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
        at++;
      }
    }

    String word() {
      space();
      int start = at;
      while (at < text.length()
          && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
        at++;
      }
      return text.substring(start, at).toLowerCase(Locale.ROOT);
    }

    boolean accept(char c) {
      space();
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    void expect(char c) {
      if (!accept(c)) {
        throw new IllegalArgumentException("'" + c + "' expected at position " + at);
      }
    }

    int number() {
      String w = word();
      try {
        return Integer.parseInt(w);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("a number expected at position " + at);
      }
    }

    Type type() {
      String w = word();
      return switch (w) {
        case "boolean" -> new Type("boolean", null);
        // The function writes every integer narrower than 64 bits as a 32-bit column.
        case "tinyint", "smallint", "int", "integer" -> new Type("int", null);
        case "bigint" -> new Type("bigint", null);
        case "float", "real" -> new Type("float", null);
        case "double" -> new Type("double", null);
        case "string" -> new Type("string", null);
        case "varchar", "char" -> {
          if (accept('(')) {
            number();
            expect(')');
          }
          yield new Type("string", null);
        }
        case "binary" -> new Type("binary", null);
        case "date" -> new Type("date", null);
        case "timestamp" -> timestamp();
        case "json" -> new Type(null, JSON_TEXT);
        // The first vocabulary's exact number: DECIMAL(38,9).
        case "number" -> new Type("decimal(38,9)", null);
        case "decimal", "numeric" -> decimal();
        case "struct" -> struct();
        // Written as Parquet LIST and MAP (the function's DeclaredTypes), which Athena reads as
        // array<...> and map<string,...>: carried when the element type is.
        case "array" -> {
          expect('<');
          Type element = type();
          expect('>');
          yield element.hive() == null
              ? new Type(null, "its elements: " + element.notInTable())
              : new Type("array<" + element.hive() + ">", null);
        }
        case "map" -> {
          expect('<');
          Type key = type();
          if (!"string".equals(key.hive())) {
            throw new IllegalArgumentException("a map's keys must be string (JSON keys are)");
          }
          expect(',');
          Type value = type();
          expect('>');
          yield value.hive() == null
              ? new Type(null, "its values: " + value.notInTable())
              : new Type("map<string," + value.hive() + ">", null);
        }
        case "" -> throw new IllegalArgumentException("a type name expected at position " + at);
        default -> throw new IllegalArgumentException("unknown type '" + w + "'");
      };
    }

    Type timestamp() {
      if (!accept('(')) {
        return new Type("timestamp", null);
      }
      int digits = number();
      expect(')');
      return switch (digits) {
        case 3 -> new Type("timestamp", null);
        case 6 ->
            new Type(
                null,
                "Athena's table DDL has no timestamp(6), and a timestamp column would make the"
                    + " function write milliseconds");
        default ->
            throw new IllegalArgumentException(
                "timestamp(" + digits + ") is not supported; use timestamp(3) or timestamp(6)");
      };
    }

    Type decimal() {
      if (!accept('(')) {
        return new Type("decimal(10,0)", null); // Hive's default
      }
      int precision = number();
      int scale = accept(',') ? number() : 0;
      expect(')');
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        throw new IllegalArgumentException(
            "decimal("
                + precision
                + ","
                + scale
                + ") is out of range: precision 1 to 38, scale 0 to the precision");
      }
      return new Type("decimal(" + precision + "," + scale + ")", null);
    }

    Type struct() {
      expect('<');
      List<String> fields = new ArrayList<>();
      String notInTable = null;
      do {
        space();
        int start = at;
        while (at < text.length() && text.charAt(at) != ':') {
          at++;
        }
        String name = text.substring(start, at).trim();
        if (name.isEmpty()) {
          throw new IllegalArgumentException("a struct field without a name");
        }
        expect(':');
        Type t = type();
        if (t.hive() == null) {
          notInTable = "its field '" + name + "': " + t.notInTable();
        } else {
          fields.add(name + ":" + t.hive());
        }
      } while (accept(','));
      expect('>');
      return notInTable != null
          ? new Type(null, notInTable)
          : new Type("struct<" + String.join(",", fields) + ">", null);
    }
  }
}
