package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.ParseProblem;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.NumberText;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The rows of a batch for a tabular format (csv, parquet): each value must be a JSON object, read
 * once into its top-level fields; anything else is rejected to the error object with the reason.
 *
 * <p>Fields are kept flat and as text, not as a tree: a number keeps the exact text it was sent
 * with (so csv writes {@code 1.0e5} as {@code 1.0e5}), and a nested object or array is held as one
 * compact JSON string (numbers again verbatim). That costs about the value's own size, whatever its
 * shape, where a tree of nodes costs several times it.
 */
record TabularBatch(
    List<Row> rows,
    List<RejectedRecord> rejected,
    int tombstonesSkipped,
    boolean binaryKeys,
    long valueBytes) {

  /** A JSON value's kind, as far as a tabular column cares. */
  enum Kind {
    NULL,
    BOOLEAN,
    NUMBER,
    STRING,
    NESTED
  }

  /**
   * One top-level field. {@code text} is the string's value, the number's text as sent, {@code
   * true}/{@code false}, the compact JSON of a nested value, or null for JSON null.
   */
  static final class Field {
    private final String name;
    private final Kind kind;
    private String text;
    // The text's exact UTF-8 bytes inside the record's value, when it was read from them as they
    // are: a Parquet string column writes that slice as it is, and the text is made only if asked.
    private final byte[] source;
    private final int offset;
    private final int length;

    Field(String name, Kind kind, String text) {
      this(name, kind, text, null, 0, 0);
    }

    private Field(String name, Kind kind, String text, byte[] source, int offset, int length) {
      this.name = name;
      this.kind = kind;
      this.text = text;
      this.source = source;
      this.offset = offset;
      this.length = length;
    }

    /**
     * A field whose text is exactly the UTF-8 {@code source[offset, offset + length)}: a string
     * without escapes, a number, a nested value without spaces or escapes. The bytes are the
     * record's own and must not change while the field is in use.
     */
    static Field ofBytes(String name, Kind kind, byte[] source, int offset, int length) {
      return new Field(name, kind, null, source, offset, length);
    }

    String name() {
      return name;
    }

    Kind kind() {
      return kind;
    }

    /** The text (see the record's fields); made from the bytes on first use. */
    String text() {
      if (text == null && source != null) {
        text = new String(source, offset, length, StandardCharsets.UTF_8);
      }
      return text;
    }

    /** Whether a number's text is an integer a BIGINT holds; from the bytes when it has them. */
    boolean fitsBigint() {
      return source != null
          ? ColumnType.fitsBigint(source, offset, length)
          : ColumnType.fitsBigint(text);
    }

    /** A number's long, for one that {@link #fitsBigint}. */
    long longValue() {
      return source != null ? NumberText.parseLong(source, offset, length) : Long.parseLong(text);
    }

    /** Whether a number's text is exact as a double ({@link NumberText#isExactDouble}). */
    boolean isExactDouble() {
      return source != null
          ? NumberText.isExactDouble(source, offset, length)
          : NumberText.isExactDouble(text);
    }

    /** A number's nearest double ({@link NumberText#toDouble}). */
    double doubleValue() {
      return source != null
          ? NumberText.toDouble(source, offset, length)
          : NumberText.toDouble(text);
    }

    /** Whether {@link #utf8Source} holds the text's UTF-8 bytes. */
    boolean hasUtf8() {
      return source != null;
    }

    byte[] utf8Source() {
      return source;
    }

    int utf8Offset() {
      return offset;
    }

    int utf8Length() {
      return length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Field f
          && name.equals(f.name)
          && kind == f.kind
          && Objects.equals(text(), f.text());
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, kind, text());
    }

    @Override
    public String toString() {
      return "Field[name=" + name + ", kind=" + kind + ", text=" + text() + "]";
    }
  }

  /**
   * A record and its value's fields; {@code fields} is null for a tombstone kept as a row. {@code
   * typed} holds the value's cells when a registry schema types the columns.
   */
  record Row(KafkaRecord record, List<Field> fields, RegistryColumns.Cells typed) {
    Row(KafkaRecord record, List<Field> fields) {
      this(record, fields, null);
    }
  }

  /**
   * Reads every record. Tombstones are rows with null fields when metadata is on, else counted as
   * skipped.
   */
  static TabularBatch read(List<KafkaRecord> records, String format, boolean includeMetadata) {
    List<Row> rows = new ArrayList<>(records.size());
    List<RejectedRecord> rejected = new ArrayList<>();
    boolean binaryKeys = false;
    int tombstones = 0;
    long valueBytes = 0;
    ObjectFields reader = new ObjectFields();
    for (KafkaRecord record : records) {
      if (record.isTombstone()) {
        if (includeMetadata) {
          rows.add(new Row(record, null));
          binaryKeys |= record.key() != null && !Utf8.isValid(record.key());
        } else {
          tombstones++;
        }
        continue;
      }
      Object parsed = parse(record.value(), reader);
      if (parsed instanceof String problem) {
        rejected.add(
            RejectedRecord.of(
                record, format + " needs a JSON object value; this value is " + problem));
        continue;
      }
      @SuppressWarnings("unchecked")
      List<Field> fields = (List<Field>) parsed;
      binaryKeys |= record.key() != null && !Utf8.isValid(record.key());
      valueBytes += record.value().length;
      rows.add(new Row(record, fields));
    }
    return new TabularBatch(rows, rejected, tombstones, binaryKeys, valueBytes);
  }

  /**
   * The value's fields, or a String saying what the value is instead of a JSON object. The common
   * value is read from its bytes in one pass; whatever that pass is unsure of, Jackson reads, so
   * the fields and the reasons are the same either way.
   */
  static Object parse(byte[] value, ObjectFields reader) {
    Object read = reader.read(value);
    return read != null ? read : parseWithJackson(value);
  }

  /** The Jackson path: every value the one-pass reader is unsure of, and its test reference. */
  static Object parseWithJackson(byte[] value) {
    if (!Utf8.isValid(value)) {
      return "not UTF-8 text";
    }
    try (JsonParser p = Json.utf8Parser(value)) {
      // Two fields of one name would leave a column holding one of them and lose the other.
      p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      JsonToken t = p.nextToken();
      if (t == null) {
        return "empty";
      }
      if (t != JsonToken.START_OBJECT) {
        p.skipChildren();
        if (p.nextToken() != null) {
          return "not JSON: more than one JSON value";
        }
        return "a JSON " + kindName(t);
      }
      List<Field> fields = new ArrayList<>();
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        t = p.nextToken();
        fields.add(
            switch (t) {
              case VALUE_NULL -> new Field(name, Kind.NULL, null);
              case VALUE_TRUE -> new Field(name, Kind.BOOLEAN, "true");
              case VALUE_FALSE -> new Field(name, Kind.BOOLEAN, "false");
              case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT ->
                  new Field(name, Kind.NUMBER, p.getText());
              case VALUE_STRING -> new Field(name, Kind.STRING, p.getText());
              default -> new Field(name, Kind.NESTED, compact(p));
            });
      }
      if (p.nextToken() != null) {
        // '{"a":1} trailing' is not a JSON object: taking the object would drop the tail.
        return "not JSON: more than one JSON value";
      }
      return fields;
    } catch (JacksonException e) {
      return "not JSON: " + ParseProblem.describe(e);
    } catch (IOException e) {
      throw new UncheckedIOException("reading from a byte array cannot fail", e);
    }
  }

  private static String kindName(JsonToken t) {
    return switch (t) {
      case START_ARRAY -> "array";
      case VALUE_STRING -> "string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
      case VALUE_TRUE, VALUE_FALSE -> "boolean";
      case VALUE_NULL -> "null";
      default -> t.name().toLowerCase();
    };
  }

  /**
   * The object or array at {@code value[from, to)}, which the one-pass scan found valid, as {@link
   * #parseWithJackson} writes it: one value's tokens are the same whether the parser starts at the
   * record or at the value. Null if Jackson disagrees with the scan, so the record is read the old
   * way rather than the batch failing.
   */
  static String compactWithJackson(byte[] value, int from, int to) {
    try (JsonParser p = Json.FACTORY.createParser(value, from, to - from)) {
      p.nextToken();
      return compact(p);
    } catch (JacksonException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("reading from a byte array cannot fail", e);
    }
  }

  /** The object or array at the parser, as compact JSON with numbers as sent. */
  private static String compact(JsonParser p) throws IOException {
    StringWriter text = new StringWriter();
    try (JsonGenerator g = Json.FACTORY.createGenerator(text)) {
      int depth = 0;
      JsonToken t = p.currentToken();
      do {
        switch (t) {
          case START_OBJECT, START_ARRAY -> depth++;
          case END_OBJECT, END_ARRAY -> depth--;
          default -> {}
        }
        switch (t) {
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(p.getText());
          default -> g.copyCurrentEvent(p);
        }
        if (depth == 0) {
          break;
        }
        t = p.nextToken();
      } while (t != null);
    }
    return text.toString();
  }
}
