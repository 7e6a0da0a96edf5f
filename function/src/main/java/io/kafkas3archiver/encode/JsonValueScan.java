package io.kafkas3archiver.encode;

import java.util.Arrays;

/**
 * One pass over a value's bytes that answers, for the common value, what Jackson would after
 * several: the bytes are valid UTF-8 and hold exactly one JSON value, between optional spaces,
 * tabs, CRs and LFs.
 *
 * <p>It answers only "valid" or "unsure", never "invalid". Anything unusual is "unsure" and the
 * caller runs its Jackson path, so results and error messages stay Jackson's: a key with a
 * backslash, nesting deeper than {@value #MAX_DEPTH}, a number longer than {@value #MAX_NUMBER}
 * characters, a key longer than {@value #MAX_KEY} bytes, an object with more than {@value
 * #MAX_KEYS} keys, a NUL or a byte-order mark, invalid UTF-8, any grammar error. Below those limits
 * the grammar is as strict as {@link Json#FACTORY}: no leading zeros, no {@code +1}, {@code .5},
 * {@code 1.}, NaN, comments, trailing commas, single quotes or unquoted names; no control character
 * inside a string; only the standard escapes; a key given twice (compared as raw bytes, exact when
 * no key holds a backslash) is not valid.
 *
 * <p>Not thread-safe: one instance per batch. It allocates nothing per value once its key stack has
 * grown to the batch's shape.
 */
final class JsonValueScan {
  static final int MAX_DEPTH = 64;
  static final int MAX_KEYS = 64;
  static final int MAX_NUMBER = 1_000;
  static final int MAX_KEY = 1_000;

  private byte[] in;
  private int limit;
  private int pos;

  /** The keys of every open object, innermost last, as [start, end) of their raw bytes. */
  private int[] keyStart = new int[128];

  private int[] keyEnd = new int[128];
  private int keyTop;

  /** Counters the member bookkeeping reads before and after a value. */
  private int escapes;

  private int supplementary;

  private int innerSpaces;
  private boolean lineBreak;

  private int start;
  private int end;

  /** The root object's members, when the root is an object. */
  private int members;

  private final int[] memberKeyStart = new int[MAX_KEYS];
  private final int[] memberKeyEnd = new int[MAX_KEYS];
  private final int[] memberValueStart = new int[MAX_KEYS];
  private final int[] memberValueEnd = new int[MAX_KEYS];
  private final boolean[] memberEscaped = new boolean[MAX_KEYS];
  private final boolean[] memberSpaced = new boolean[MAX_KEYS];

  /** Whether the whole of {@code bytes} is one valid JSON value; false means unsure. */
  boolean scan(byte[] bytes) {
    return scan(bytes, 0, bytes.length);
  }

  /** Whether {@code bytes[offset, offset + length)} is one valid JSON value; false means unsure. */
  boolean scan(byte[] bytes, int offset, int length) {
    in = bytes;
    limit = offset + length;
    keyTop = 0;
    members = 0;
    escapes = 0;
    supplementary = 0;
    lineBreak = false;
    int i = offset;
    while (i < limit && isSpace(in[i])) {
      i++;
    }
    if (i == limit) {
      return false;
    }
    start = i;
    pos = i;
    boolean ok = value(0);
    in = null;
    if (!ok) {
      return false;
    }
    end = pos;
    i = pos;
    while (i < limit && isSpace(bytes[i])) {
      i++;
    }
    return i == limit;
  }

  /** The value's first byte, after leading whitespace. */
  int start() {
    return start;
  }

  /** Just past the value's last byte, before trailing whitespace. */
  int end() {
    return end;
  }

  /** Whether a CR or LF separates two of the value's tokens. */
  boolean spansLines() {
    return lineBreak;
  }

  /** Whether a string or name in the value holds a backslash escape. */
  boolean escaped() {
    return escapes != 0;
  }

  /**
   * Whether a string or name holds a character above U+FFFF, which Jackson's UTF-8 generator writes
   * as two backslash-u escapes.
   */
  boolean supplementary() {
    return supplementary != 0;
  }

  /**
   * {@code bytes[from, to)}, a value this scan found valid and free of escapes, without the
   * whitespace between its tokens: what Jackson's compact copy writes for it, since its strings,
   * names, numbers and literals are then copied byte for byte.
   */
  static byte[] withoutSpaces(byte[] bytes, int from, int to) {
    byte[] out = new byte[to - from];
    int n = 0;
    boolean inString = false;
    for (int i = from; i < to; i++) {
      byte b = bytes[i];
      if (b == '"') {
        inString = !inString;
      } else if (!inString && isSpace(b)) {
        continue;
      }
      out[n++] = b;
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  /** How many members the root object has (0 when the root is not an object). */
  int members() {
    return members;
  }

  int keyStart(int member) {
    return memberKeyStart[member];
  }

  int keyEnd(int member) {
    return memberKeyEnd[member];
  }

  int valueStart(int member) {
    return memberValueStart[member];
  }

  int valueEnd(int member) {
    return memberValueEnd[member];
  }

  /** Whether the member's value holds a backslash escape anywhere. */
  boolean escaped(int member) {
    return memberEscaped[member];
  }

  /** Whether the member's value holds whitespace outside its strings. */
  boolean spaced(int member) {
    return memberSpaced[member];
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\n' || b == '\r' || b == '\t';
  }

  /** Most tokens are not followed by whitespace: that case stays small enough for C1 to inline. */
  private void skipSpace() {
    if (pos < limit && in[pos] > ' ') {
      return;
    }
    skipSpaceRun();
  }

  private void skipSpaceRun() {
    int i = pos;
    byte[] a = in;
    int n = limit;
    while (i < n) {
      byte b = a[i];
      if (b == ' ' || b == '\t') {
        i++;
      } else if (b == '\n' || b == '\r') {
        lineBreak = true;
        i++;
      } else {
        break;
      }
    }
    if (i != pos) {
      innerSpaces++;
      pos = i;
    }
  }

  private boolean value(int depth) {
    if (pos >= limit) {
      return false;
    }
    return switch (in[pos]) {
      case '{' -> depth < MAX_DEPTH && object(depth + 1);
      case '[' -> depth < MAX_DEPTH && array(depth + 1);
      case '"' -> string();
      case 't' -> literal(TRUE);
      case 'f' -> literal(FALSE);
      case 'n' -> literal(NULL);
      default -> number();
    };
  }

  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};

  /** What follows is checked by the caller: a separator, a closer, whitespace or the end. */
  private boolean literal(byte[] word) {
    int n = word.length;
    if (limit - pos < n || !Arrays.equals(in, pos, pos + n, word, 0, n)) {
      return false;
    }
    pos += n;
    return true;
  }

  private boolean number() {
    byte[] a = in;
    int n = limit;
    int i = pos;
    if (a[i] == '-') {
      i++;
    }
    if (i >= n) {
      return false;
    }
    byte b = a[i];
    if (b == '0') {
      i++;
    } else if (b >= '1' && b <= '9') {
      i++;
      while (i < n && isDigit(a[i])) {
        i++;
      }
    } else {
      return false;
    }
    if (i < n && a[i] == '.') {
      i++;
      int digits = i;
      while (i < n && isDigit(a[i])) {
        i++;
      }
      if (i == digits) {
        return false;
      }
    }
    if (i < n && (a[i] == 'e' || a[i] == 'E')) {
      i++;
      if (i < n && (a[i] == '+' || a[i] == '-')) {
        i++;
      }
      int digits = i;
      while (i < n && isDigit(a[i])) {
        i++;
      }
      if (i == digits) {
        return false;
      }
    }
    if (i - pos > MAX_NUMBER) {
      return false;
    }
    pos = i;
    return true;
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  /**
   * A string from its opening quote; strict UTF-8 as {@link Utf8#isValid}, no control character,
   * standard escapes only. Counts the escapes it meets.
   */
  private boolean string() {
    byte[] a = in;
    int n = limit;
    int i = pos + 1;
    while (i < n) {
      // Runs of plain ASCII are most of a value: one table load per byte under C1.
      while (i < n && PLAIN[a[i] & 0xff]) {
        i++;
      }
      if (i >= n) {
        return false;
      }
      int b = a[i];
      if (b >= 0) {
        if (b == '"') {
          pos = i + 1;
          return true;
        }
        if (b == '\\') {
          if (i + 1 >= n) {
            return false;
          }
          switch (a[i + 1]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> i += 2;
            case 'u' -> {
              if (i + 5 >= n
                  || !isHex(a[i + 2])
                  || !isHex(a[i + 3])
                  || !isHex(a[i + 4])
                  || !isHex(a[i + 5])) {
                return false;
              }
              i += 6;
            }
            default -> {
              return false;
            }
          }
          escapes++;
          continue;
        }
        if (b < 0x20) {
          return false;
        }
        i++;
        continue;
      }
      b &= 0xff;
      if (b >= 0xc2 && b <= 0xdf) {
        if (i + 1 >= n || !cont(a[i + 1])) {
          return false;
        }
        i += 2;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (i + 2 >= n || !cont(a[i + 1]) || !cont(a[i + 2])) {
          return false;
        }
        int b1 = a[i + 1] & 0xff;
        if ((b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 >= 0xa0)) {
          return false;
        }
        i += 3;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (i + 3 >= n || !cont(a[i + 1]) || !cont(a[i + 2]) || !cont(a[i + 3])) {
          return false;
        }
        int b1 = a[i + 1] & 0xff;
        if ((b == 0xf0 && b1 < 0x90) || (b == 0xf4 && b1 >= 0x90)) {
          return false;
        }
        supplementary++;
        i += 4;
      } else {
        return false;
      }
    }
    return false;
  }

  /** ASCII that a string holds as is: not a control character, a quote or a backslash. */
  private static final boolean[] PLAIN = new boolean[256];

  static {
    for (int c = 0x20; c < 0x80; c++) {
      PLAIN[c] = c != '"' && c != '\\';
    }
  }

  private static boolean cont(byte b) {
    return (b & 0xc0) == 0x80;
  }

  private static boolean isHex(byte b) {
    return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
  }

  private boolean array(int depth) {
    pos++;
    skipSpace();
    if (pos < limit && in[pos] == ']') {
      pos++;
      return true;
    }
    while (true) {
      if (!value(depth)) {
        return false;
      }
      skipSpace();
      if (pos >= limit) {
        return false;
      }
      byte b = in[pos++];
      if (b == ']') {
        return true;
      }
      if (b != ',') {
        return false;
      }
      skipSpace();
    }
  }

  private boolean object(int depth) {
    pos++;
    skipSpace();
    if (pos < limit && in[pos] == '}') {
      pos++;
      return true;
    }
    int base = keyTop;
    boolean root = depth == 1;
    while (true) {
      if (pos >= limit || in[pos] != '"') {
        return false;
      }
      int escapesBefore = escapes;
      int keyFrom = pos + 1;
      if (!string() || escapes != escapesBefore) {
        return false;
      }
      int keyTo = pos - 1;
      if (keyTo - keyFrom > MAX_KEY || keyTop - base >= MAX_KEYS || repeats(base, keyFrom, keyTo)) {
        return false;
      }
      push(keyFrom, keyTo);
      skipSpace();
      if (pos >= limit || in[pos] != ':') {
        return false;
      }
      pos++;
      skipSpace();
      int spacesBefore = innerSpaces;
      int valueFrom = pos;
      if (!value(depth)) {
        return false;
      }
      if (root) {
        int m = members++;
        memberKeyStart[m] = keyFrom;
        memberKeyEnd[m] = keyTo;
        memberValueStart[m] = valueFrom;
        memberValueEnd[m] = pos;
        memberEscaped[m] = escapes != escapesBefore;
        memberSpaced[m] = innerSpaces != spacesBefore;
      }
      skipSpace();
      if (pos >= limit) {
        return false;
      }
      byte b = in[pos++];
      if (b == '}') {
        keyTop = base;
        return true;
      }
      if (b != ',') {
        return false;
      }
      skipSpace();
    }
  }

  private boolean repeats(int base, int from, int to) {
    int length = to - from;
    byte[] a = in;
    for (int k = base; k < keyTop; k++) {
      int s = keyStart[k];
      if (keyEnd[k] - s == length
          && (length == 0 || a[s] == a[from])
          && Arrays.equals(a, s, s + length, a, from, to)) {
        return true;
      }
    }
    return false;
  }

  private void push(int from, int to) {
    if (keyTop == keyStart.length) {
      keyStart = Arrays.copyOf(keyStart, keyTop * 2);
      keyEnd = Arrays.copyOf(keyEnd, keyTop * 2);
    }
    keyStart[keyTop] = from;
    keyEnd[keyTop] = to;
    keyTop++;
  }
}
