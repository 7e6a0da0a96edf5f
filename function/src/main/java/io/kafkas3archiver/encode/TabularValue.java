package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kafkas3archiver.decode.KafkaRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * How a csv or parquet row turns back into the record's value, and so whether it does so byte for
 * byte: one piece of code for both sides. The encoders ask it, for every row with Kafka metadata,
 * whether the restore would rebuild the exact bytes from the row's cells; when it would not (JSON
 * escapes such as {@code \u00fc} or {@code \/}, whitespace, a byte order mark, a null field, a
 * field order the columns change, a number form its column rewrites, an empty key in csv), the row
 * also carries what is needed in the {@value KafkaColumns#EXACT} column. The restore rebuilds
 * values with the same {@link #rebuild} and applies that column.
 *
 * <p>The rebuild: a JSON object written compactly, cells in column order, empty cells left out,
 * then the fields of the {@value ColumnPlan#OVERFLOW} column merged back (it is never a field of
 * its own). A cell that is known JSON (a number, a boolean) or looks like JSON is written as JSON;
 * any other text as a JSON string.
 */
public final class TabularValue {
  private TabularValue() {}

  /** A value cell as a reader sees it: the column's name, its text, and whether it is JSON. */
  public record Cell(String name, String text, boolean json) {}

  /**
   * What the {@value KafkaColumns#EXACT} column holds: the key's bytes (csv, an empty key), and
   * either the value's exact bytes or, when that is enough, a patch to the rebuild: the columns
   * whose empty cell is a JSON {@code null} ({@code "null"}), and those that are strings whatever
   * they look like, the empty string included ({@code "text"}).
   */
  public record Exact(
      boolean hasKey, byte[] key, byte[] value, Set<String> nulls, Set<String> texts) {}

  /** The value a restore builds from {@code cells}; null (a tombstone) when every cell is empty. */
  public static byte[] rebuild(List<Cell> cells) {
    return rebuild(cells, Set.of(), Set.of());
  }

  /**
   * As above, with a patch: an empty cell of a column in {@code nulls} is written as {@code null},
   * a cell of a column in {@code texts} as a JSON string (so {@code "42"} and {@code ""} stay
   * strings).
   */
  public static byte[] rebuild(List<Cell> cells, Set<String> nulls, Set<String> texts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    boolean any = false;
    try (JsonGenerator gen = Json.FACTORY.createGenerator(out)) {
      gen.writeStartObject();
      for (Cell c : cells) {
        boolean empty = c.text() == null || c.text().isEmpty();
        if (texts.contains(c.name())) {
          gen.writeStringField(c.name(), c.text() == null ? "" : c.text());
          any = true;
          continue;
        }
        if (empty) {
          if (nulls.contains(c.name())) {
            gen.writeNullField(c.name());
            any = true;
          }
          continue;
        }
        any = true;
        if (c.name().equals(ColumnPlan.OVERFLOW)) {
          mergeOverflow(gen, c.text());
        } else {
          gen.writeFieldName(c.name());
          if (c.json() || looksLikeJson(c.text())) {
            gen.writeRawValue(c.text());
          } else {
            gen.writeString(c.text());
          }
        }
      }
      gen.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return any ? out.toByteArray() : null;
  }

  /** The overflow column's JSON object, field by field, values as stored (null included). */
  private static void mergeOverflow(JsonGenerator gen, String objectText) throws IOException {
    try (JsonParser p = Json.FACTORY.createParser(objectText)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the " + ColumnPlan.OVERFLOW + " column is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        gen.writeFieldName(p.currentName());
        p.nextToken();
        gen.copyCurrentStructure(p);
      }
    }
  }

  /** Exactly one JSON number, boolean, object or array (a string or null stays text). */
  public static boolean looksLikeJson(String text) {
    char first = text.charAt(0);
    if (!(first == '{' || first == '[' || first == '-' || first == 't' || first == 'f')
        && !(first >= '0' && first <= '9')) {
      return false;
    }
    if (first != '{' && first != '[' && !couldBeScalar(text, first)) {
      // Most such cells are text (a timestamp, an id): ruled out without a parser per cell.
      return false;
    }
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null || t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NULL) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * False only when the text cannot be one JSON number, {@code true} or {@code false} (each maybe
   * followed by whitespace): a character no number has, or another word.
   */
  private static boolean couldBeScalar(String text, char first) {
    if (first == 't') {
      return text.startsWith("true");
    }
    if (first == 'f') {
      return text.startsWith("false");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9')
          && c != '-'
          && c != '+'
          && c != '.'
          && c != 'e'
          && c != 'E'
          && c != ' '
          && c != '\t'
          && c != '\n'
          && c != '\r') {
        return false;
      }
    }
    return true;
  }

  /** A Parquet DECIMAL as a reader prints it: its shortest plain text ({@code 19.400} -> 19.4). */
  public static String decimalText(BigDecimal v) {
    return (v.signum() == 0 ? BigDecimal.ZERO : v.stripTrailingZeros()).toPlainString();
  }

  /**
   * The {@value KafkaColumns#EXACT} cell of a row: {@code cells} are the row's value cells as a
   * reader sees them, one per column (text null where empty), then the overflow cell; {@code nulls}
   * the columns whose field is JSON {@code null}, {@code strings} those whose field is a string.
   * Null when the row gives everything back by itself; a small patch ({@code "null"}, {@code
   * "text"}) when that makes the rebuild exact; the value's bytes otherwise. The key goes in when
   * {@code keyCellsLoseEmpty} (csv, whose cells cannot tell an empty key from none) and it is
   * empty.
   */
  public static String exactCell(
      KafkaRecord r,
      List<Cell> cells,
      Set<String> nulls,
      Set<String> strings,
      boolean keyCellsLoseEmpty) {
    boolean key = keyCellsLoseEmpty && r.key() != null && r.key().length == 0;
    Set<String> patchNulls = Set.of();
    Set<String> patchTexts = Set.of();
    boolean value = false;
    if (!r.isTombstone() && !Arrays.equals(rebuild(cells), r.value())) {
      patchNulls = nulls;
      patchTexts = new TreeSet<>();
      for (Cell c : cells) {
        if (strings.contains(c.name())
            && (c.text() == null || c.text().isEmpty() || looksLikeJson(c.text()))) {
          patchTexts.add(c.name());
        }
      }
      value = !Arrays.equals(rebuild(cells, patchNulls, patchTexts), r.value());
    }
    boolean patch = !value && (!patchNulls.isEmpty() || !patchTexts.isEmpty());
    if (!key && !value && !patch) {
      return null;
    }
    StringWriter text = new StringWriter();
    try (JsonGenerator g = Json.FACTORY.createGenerator(text)) {
      g.writeStartObject();
      if (key) {
        g.writeStringField("key_base64", "");
      }
      if (value) {
        g.writeStringField("value_base64", Base64.getEncoder().encodeToString(r.value()));
      } else if (patch) {
        names(g, "null", patchNulls);
        names(g, "text", patchTexts);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return text.toString();
  }

  private static void names(JsonGenerator g, String field, Set<String> names) throws IOException {
    if (!names.isEmpty()) {
      g.writeArrayFieldStart(field);
      for (String n : new TreeSet<>(names)) {
        g.writeString(n);
      }
      g.writeEndArray();
    }
  }

  /**
   * The value a restore gives back for a row: {@code exact}'s bytes when it holds them, else the
   * rebuild of {@code cells} with {@code exact}'s patch (or none).
   */
  public static byte[] value(List<Cell> cells, Exact exact) {
    if (exact == null) {
      return rebuild(cells);
    }
    return exact.value() != null ? exact.value() : rebuild(cells, exact.nulls(), exact.texts());
  }

  /** Reads an {@value KafkaColumns#EXACT} cell back. */
  public static Exact exact(String text) throws IOException {
    boolean hasKey = false;
    byte[] key = null;
    byte[] value = null;
    Set<String> nulls = new TreeSet<>();
    Set<String> texts = new TreeSet<>();
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the " + KafkaColumns.EXACT + " column is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        switch (name) {
          case "key_base64" -> {
            hasKey = true;
            key = Base64.getDecoder().decode(p.getText());
          }
          case "value_base64" -> value = Base64.getDecoder().decode(p.getText());
          case "null", "text" -> {
            Set<String> into = name.equals("null") ? nulls : texts;
            while (p.nextToken() == JsonToken.VALUE_STRING) {
              into.add(p.getText());
            }
          }
          default -> p.skipChildren();
        }
      }
    }
    return new Exact(hasKey, key, value, nulls, texts);
  }
}
