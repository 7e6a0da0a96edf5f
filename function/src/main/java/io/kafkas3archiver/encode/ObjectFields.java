package io.kafkas3archiver.encode;

import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A tabular value's top-level fields read straight from its bytes after one {@link JsonValueScan},
 * for the values the scan is sure of; {@link TabularBatch#parseWithJackson} reads the rest. The
 * fields are the ones Jackson would give: names and strings decoded, numbers as sent, a nested
 * value as compact JSON.
 *
 * <p>Field names repeat in every record of a batch, so each is made a String once per batch and
 * reused while its bytes recur (a small table, bounded whatever the shapes). One instance per
 * batch: not thread-safe.
 */
final class ObjectFields {
  /** Slots in the name table; a power of two. */
  private static final int NAMES = 256;

  private final JsonValueScan scan = new JsonValueScan();
  private final byte[][] nameBytes = new byte[NAMES][];
  private final String[] names = new String[NAMES];

  /**
   * The value's fields, a String saying which other kind of JSON value it is, or null when the scan
   * is unsure (the caller then asks Jackson).
   */
  Object read(byte[] value) {
    if (!scan.scan(value)) {
      return null;
    }
    byte first = value[scan.start()];
    if (first != '{') {
      return "a JSON " + kindName(first);
    }
    int count = scan.members();
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
    String name = name(value, scan.keyStart(m), scan.keyEnd(m));
    int from = scan.valueStart(m);
    int to = scan.valueEnd(m);
    return switch (value[from]) {
      case 'n' -> new Field(name, Kind.NULL, null);
      case 't' -> new Field(name, Kind.BOOLEAN, "true");
      case 'f' -> new Field(name, Kind.BOOLEAN, "false");
      case '"' ->
          scan.escaped(m)
              ? new Field(name, Kind.STRING, unescape(value, from + 1, to - 1))
              : Field.ofBytes(name, Kind.STRING, value, from + 1, to - from - 2);
      case '{', '[' -> nested(name, value, m, from, to);
      // A number: ASCII digits, sign, point and exponent, kept exactly as sent.
      default -> Field.ofBytes(name, Kind.NUMBER, value, from, to - from);
    };
  }

  /** A nested value as compact JSON; null if Jackson, asked for it, disagrees with the scan. */
  private Field nested(String name, byte[] value, int m, int from, int to) {
    String text;
    if (scan.escaped(m)) {
      // Jackson writes a nested string's escapes its own way (an escaped slash as a slash).
      text = TabularBatch.compactWithJackson(value, from, to);
      if (text == null) {
        return null;
      }
    } else if (scan.spaced(m)) {
      text = new String(JsonValueScan.withoutSpaces(value, from, to), StandardCharsets.UTF_8);
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

  /** A field name, the same String while the same bytes recur in the batch. */
  private String name(byte[] value, int from, int to) {
    int h = 1;
    for (int i = from; i < to; i++) {
      h = 31 * h + value[i];
    }
    int slot = (h ^ (h >>> 16)) & (NAMES - 1);
    byte[] known = nameBytes[slot];
    if (known != null && Arrays.equals(known, 0, known.length, value, from, to)) {
      return names[slot];
    }
    String name = new String(value, from, to - from, StandardCharsets.UTF_8);
    nameBytes[slot] = Arrays.copyOfRange(value, from, to);
    names[slot] = name;
    return name;
  }

  /** A string's content with its escapes decoded; the scan has checked every escape. */
  private static String unescape(byte[] value, int from, int to) {
    StringBuilder text = new StringBuilder(to - from);
    int plain = from;
    int i = from;
    while (i < to) {
      if (value[i] != '\\') {
        i++;
        continue;
      }
      // A UTF-8 run ends at an ASCII backslash, so decoding runs one by one is exact.
      text.append(new String(value, plain, i - plain, StandardCharsets.UTF_8));
      byte e = value[i + 1];
      switch (e) {
        case 'b' -> text.append('\b');
        case 'f' -> text.append('\f');
        case 'n' -> text.append('\n');
        case 'r' -> text.append('\r');
        case 't' -> text.append('\t');
        case 'u' -> {
          text.append(
              (char)
                  (hex(value[i + 2]) << 12
                      | hex(value[i + 3]) << 8
                      | hex(value[i + 4]) << 4
                      | hex(value[i + 5])));
          i += 4;
        }
        default -> text.append((char) e);
      }
      i += 2;
      plain = i;
    }
    text.append(new String(value, plain, to - plain, StandardCharsets.UTF_8));
    return text.toString();
  }

  private static int hex(byte b) {
    return b <= '9' ? b - '0' : (b | 0x20) - 'a' + 10;
  }
}
