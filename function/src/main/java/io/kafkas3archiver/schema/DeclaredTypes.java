package io.kafkas3archiver.schema;

import io.kafkas3archiver.schema.FieldType.Scalar;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The type vocabulary of a declared schema ({@code PARQUET_SCHEMA} inline, an S3 document, or a
 * Glue table's columns): Hive type strings, as Athena and Glue write them, mapped to the Parquet
 * column types of {@link FieldType}. docs/object-layout.md, "Declared types", has the table.
 */
public final class DeclaredTypes {
  /** The legal types, as configuration errors list them. */
  public static final String LEGAL =
      "boolean, int, bigint, float, double, decimal(p,s), string, binary, date, timestamp,"
          + " timestamp(6), json, struct<name:type,...>, array<type>, map<string,type>";

  private DeclaredTypes() {}

  /** Parses one type; an {@link IllegalArgumentException} names what is wrong. */
  public static FieldType parse(String type) {
    Reader r = new Reader(type);
    FieldType t = r.type();
    r.skipSpace();
    if (r.at < r.text.length()) {
      throw new IllegalArgumentException("the type '" + type + "' has extra text after its end");
    }
    return t;
  }

  /** The type's name in the vocabulary, for reasons and messages. */
  public static String name(FieldType type) {
    return switch (type) {
      case Scalar s ->
          switch (s) {
            case BOOLEAN -> "boolean";
            case INT32 -> "int";
            case INT64 -> "bigint";
            case FLOAT -> "float";
            case DOUBLE -> "double";
            case STRING -> "string";
            case BINARY -> "binary (base64 text)";
            case DATE -> "date (yyyy-mm-dd or days since 1970-01-01)";
            case TIME_MILLIS, TIME_MICROS -> "time";
            case TIMESTAMP_MILLIS ->
                "timestamp (ISO-8601 or epoch milliseconds, exact to the millisecond)";
            case TIMESTAMP_MICROS ->
                "timestamp(6) (ISO-8601 or epoch milliseconds, exact to the microsecond)";
          };
      case FieldType.Decimal d -> "decimal(" + d.precision() + "," + d.scale() + ")";
      case FieldType.Struct s -> "struct (object)";
      case FieldType.Array a -> "array<" + name(a.element()) + "> (array)";
      case FieldType.MapOf m -> "map<string," + name(m.value()) + "> (object)";
      case FieldType.Json j -> "json (object or array)";
    };
  }

  /** A recursive-descent reader of Hive type text: {@code struct<a:int,b:array<string>>}. */
  private static final class Reader {
    final String text;
    int at;

    Reader(String text) {
      this.text = text;
    }

    void skipSpace() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
        at++;
      }
    }

    String word() {
      skipSpace();
      int start = at;
      while (at < text.length()
          && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
        at++;
      }
      return text.substring(start, at).toLowerCase(Locale.ROOT);
    }

    boolean accept(char c) {
      skipSpace();
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    void expect(char c) {
      if (!accept(c)) {
        throw new IllegalArgumentException(
            "the type '" + text + "' lacks '" + c + "' at position " + at);
      }
    }

    int number() {
      String w = word();
      try {
        return Integer.parseInt(w);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "the type '" + text + "' has '" + w + "' where a number belongs");
      }
    }

    FieldType type() {
      String w = word();
      return switch (w) {
        case "boolean" -> Scalar.BOOLEAN;
        case "tinyint", "smallint", "int", "integer" -> Scalar.INT32;
        case "bigint" -> Scalar.INT64;
        case "float", "real" -> Scalar.FLOAT;
        case "double" -> Scalar.DOUBLE;
        case "string" -> Scalar.STRING;
        case "varchar", "char" -> {
          if (accept('(')) {
            number();
            expect(')');
          }
          yield Scalar.STRING;
        }
        case "binary" -> Scalar.BINARY;
        case "date" -> Scalar.DATE;
        case "timestamp" -> {
          if (!accept('(')) {
            yield Scalar.TIMESTAMP_MILLIS;
          }
          int digits = number();
          expect(')');
          yield switch (digits) {
            case 3 -> Scalar.TIMESTAMP_MILLIS;
            case 6 -> Scalar.TIMESTAMP_MICROS;
            default ->
                throw new IllegalArgumentException(
                    "timestamp(" + digits + ") is not supported; use timestamp(3) or timestamp(6)");
          };
        }
        case "json" -> new FieldType.Json();
        // The first vocabulary's exact number; kept so that old settings still mean the same.
        case "number" -> new FieldType.Decimal(38, 9);
        case "decimal", "numeric" -> decimal();
        case "struct" -> struct();
        case "array" -> {
          expect('<');
          FieldType element = type();
          expect('>');
          yield new FieldType.Array(element);
        }
        case "map" -> {
          expect('<');
          FieldType key = type();
          if (key != Scalar.STRING) {
            throw new IllegalArgumentException(
                "the type '" + text + "' has a map whose keys are not string (JSON keys are)");
          }
          expect(',');
          FieldType value = type();
          expect('>');
          yield new FieldType.MapOf(value);
        }
        case "" ->
            throw new IllegalArgumentException(
                "the type '" + text + "' lacks a type name at position " + at);
        default -> throw new IllegalArgumentException("unknown type '" + w + "'");
      };
    }

    FieldType decimal() {
      if (!accept('(')) {
        return new FieldType.Decimal(10, 0); // Hive's default
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
      return new FieldType.Decimal(precision, scale);
    }

    FieldType struct() {
      expect('<');
      List<FieldType.Column> fields = new ArrayList<>();
      do {
        skipSpace();
        int start = at;
        while (at < text.length() && text.charAt(at) != ':') {
          at++;
        }
        String name = text.substring(start, at).trim();
        if (name.isEmpty()) {
          throw new IllegalArgumentException(
              "the type '" + text + "' has a struct field without a name");
        }
        expect(':');
        fields.add(new FieldType.Column(name, name, type()));
      } while (accept(','));
      expect('>');
      return new FieldType.Struct(fields);
    }
  }
}
