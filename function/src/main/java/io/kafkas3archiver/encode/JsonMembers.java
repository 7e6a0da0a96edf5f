package io.kafkas3archiver.encode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A JSON value's top-level members, found by one {@link JsonValueScan} of its bytes: where each
 * name and value lies, the names and strings decoded. The tabular formats read their fields with it
 * ({@link ObjectFields}), and so does the iceberg function's row conversion. Like the scan it is
 * sure or unsure, never wrong: an unsure value goes to the caller's Jackson path.
 *
 * <p>Field names repeat in every record of a batch, so each is made a String once per batch and
 * reused while its bytes recur (a small table, bounded whatever the shapes, so one instance may
 * serve batch after batch). Not thread-safe.
 */
public final class JsonMembers {
  /** Slots in the name table; a power of two. */
  private static final int NAMES = 256;

  private final JsonValueScan scan = new JsonValueScan();
  private final byte[][] nameBytes = new byte[NAMES][];
  private final String[] names = new String[NAMES];
  private byte[] value;

  /**
   * Scans {@code value}: true when it is one JSON value the scan is sure of (valid UTF-8, no
   * duplicate names, within the scan's limits); false means unsure, not invalid.
   */
  public boolean read(byte[] value) {
    this.value = value;
    return scan.scan(value);
  }

  /** The value's first byte after leading whitespace: {@code '{'} for an object. */
  public byte first() {
    return value[scan.start()];
  }

  /** The root object's members; 0 when the root is not an object. */
  public int count() {
    return scan.members();
  }

  /** Member {@code m}'s name, the same String while the same bytes recur in the batch. */
  public String name(int m) {
    int from = scan.keyStart(m);
    int to = scan.keyEnd(m);
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

  /** The first byte of member {@code m}'s value. */
  public int valueStart(int m) {
    return scan.valueStart(m);
  }

  /** Just past the last byte of member {@code m}'s value. */
  public int valueEnd(int m) {
    return scan.valueEnd(m);
  }

  /** Whether member {@code m}'s value holds a backslash escape anywhere. */
  public boolean escaped(int m) {
    return scan.escaped(m);
  }

  /** Whether member {@code m}'s value holds whitespace outside its strings. */
  public boolean spaced(int m) {
    return scan.spaced(m);
  }

  /** Member {@code m}'s string value, its escapes decoded; the member must be a string. */
  public String string(int m) {
    int from = scan.valueStart(m) + 1;
    int to = scan.valueEnd(m) - 1;
    return scan.escaped(m)
        ? unescape(value, from, to)
        : new String(value, from, to - from, StandardCharsets.UTF_8);
  }

  /**
   * Member {@code m}'s value without the whitespace between its tokens, for a member free of
   * escapes: what Jackson's compact copy writes for it.
   */
  public byte[] withoutSpaces(int m) {
    return JsonValueScan.withoutSpaces(value, scan.valueStart(m), scan.valueEnd(m));
  }

  /** A string's content with its escapes decoded; the scan has checked every escape. */
  static String unescape(byte[] value, int from, int to) {
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
