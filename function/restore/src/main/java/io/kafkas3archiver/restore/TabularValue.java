package io.kafkas3archiver.restore;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * Rebuilds a JSON object value from a csv or parquet row. These formats keep fields, not bytes, so
 * the value is written compactly, fields in column order, empty cells left out. A cell that is a
 * JSON number, boolean, object or array is written as that JSON; any other text as a JSON string.
 * That gives back the produced bytes exactly for compact JSON objects whose strings do not
 * themselves look like JSON numbers, booleans, objects or arrays (docs/restore.md lists the cases).
 */
final class TabularValue {
  private TabularValue() {}

  /** A cell as the text the archiver wrote, tagged by whether it is known JSON or raw text. */
  record Cell(String name, String text, boolean json) {}

  /** Null (a tombstone) when every value cell is empty. */
  static byte[] build(List<Cell> cells) throws IOException {
    boolean any = false;
    for (Cell c : cells) {
      if (c.text() != null && !c.text().isEmpty()) {
        any = true;
        break;
      }
    }
    if (!any) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    try (JsonGenerator gen = JsonRows.FACTORY.createGenerator(out)) {
      gen.writeStartObject();
      for (Cell c : cells) {
        if (c.text() == null || c.text().isEmpty()) {
          continue;
        }
        gen.writeFieldName(c.name());
        if (c.json() || looksLikeJson(c.text())) {
          gen.writeRawValue(c.text());
        } else {
          gen.writeString(c.text());
        }
      }
      gen.writeEndObject();
    }
    return out.toByteArray();
  }

  /** Exactly one JSON number, boolean, object or array (a string or null stays text). */
  static boolean looksLikeJson(String text) {
    char first = text.charAt(0);
    if (!(first == '{' || first == '[' || first == '-' || first == 't' || first == 'f')
        && !(first >= '0' && first <= '9')) {
      return false;
    }
    try (JsonParser p = JsonRows.FACTORY.createParser(text)) {
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
}
