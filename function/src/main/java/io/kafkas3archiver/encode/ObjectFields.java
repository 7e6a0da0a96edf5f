package io.kafkas3archiver.encode;

import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tabular value's top-level fields read straight from its bytes after one {@link JsonValueScan}
 * ({@link JsonMembers}), for the values the scan is sure of; {@link TabularBatch#parseWithJackson}
 * reads the rest. The fields are the ones Jackson would give: names and strings decoded, numbers as
 * sent, a nested value as compact JSON. One instance per batch: not thread-safe.
 */
final class ObjectFields {
  private final JsonMembers members = new JsonMembers();

  /**
   * The value's fields, a String saying which other kind of JSON value it is, or null when the scan
   * is unsure (the caller then asks Jackson).
   */
  Object read(byte[] value) {
    if (!members.read(value)) {
      return null;
    }
    byte first = members.first();
    if (first != '{') {
      return "a JSON " + kindName(first);
    }
    int count = members.count();
    List<Field> fields = new ArrayList<>(count);
    for (int m = 0; m < count; m++) {
      Field field = field(value, m);
      if (field == null) {
        return null;
      }
      fields.add(field);
    }
    return fields;
  }

  /** The root object's member {@code m}; null sends the record to Jackson. */
  private Field field(byte[] value, int m) {
    String name = members.name(m);
    int from = members.valueStart(m);
    int to = members.valueEnd(m);
    return switch (value[from]) {
      case 'n' -> new Field(name, Kind.NULL, null);
      case 't' -> new Field(name, Kind.BOOLEAN, "true");
      case 'f' -> new Field(name, Kind.BOOLEAN, "false");
      case '"' ->
          members.escaped(m)
              ? new Field(name, Kind.STRING, members.string(m))
              : Field.ofBytes(name, Kind.STRING, value, from + 1, to - from - 2);
      case '{', '[' -> nested(name, value, m, from, to);
      // A number: ASCII digits, sign, point and exponent, kept exactly as sent.
      default -> Field.ofBytes(name, Kind.NUMBER, value, from, to - from);
    };
  }

  /** A nested value as compact JSON; null if Jackson, asked for it, disagrees with the scan. */
  private Field nested(String name, byte[] value, int m, int from, int to) {
    String text;
    if (members.escaped(m)) {
      // Jackson writes a nested string's escapes its own way (an escaped slash as a slash).
      text = TabularBatch.compactWithJackson(value, from, to);
      if (text == null) {
        return null;
      }
    } else if (members.spaced(m)) {
      text = new String(members.withoutSpaces(m), StandardCharsets.UTF_8);
    } else {
      return Field.ofBytes(name, Kind.NESTED, value, from, to - from);
    }
    return new Field(name, Kind.NESTED, text);
  }

  private static String kindName(byte first) {
    return switch (first) {
      case '[' -> "array";
      case '"' -> "string";
      case 't', 'f' -> "boolean";
      case 'n' -> "null";
      default -> "number";
    };
  }
}
