package io.kafkas3archiver.encode;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes csv records as UTF-8 into one reusable byte buffer, quoting exactly as commons-csv's
 * {@code CSVFormat.RFC4180} with {@code "\r\n"} records did through a {@code Writer} (the bytes are
 * the same; {@code CsvWriterTest} holds it to commons-csv), without its lock, {@code ensureOpen},
 * substring and char-array copies per cell.
 *
 * <p>commons-csv's minimal quoting: a cell is quoted when it is empty and first in its record, when
 * it starts with a character at or below {@code '#'}, when it holds a line break, a quote or a
 * comma, or when it ends with a character at or below a space; a quote inside is doubled. A null
 * cell is empty and never quoted. A lone surrogate (a JSON {@code \ud800} escape) is written as
 * {@code ?}, as Java's UTF-8 writer replaces it.
 */
final class CsvWriter {
  private static final int BUFFER = 64 * 1024;

  /**
   * Room to reserve per char: a char takes at most 3 bytes in UTF-8, and a surrogate pair 4 (its
   * second char may lie just past a run, so the first is given all 4).
   */
  private static final int MAX_BYTES_PER_CHAR = 4;

  private final OutputStream out;
  private final byte[] buf = new byte[BUFFER];
  private int pos;
  private boolean recordStart = true;

  CsvWriter(OutputStream out) {
    this.out = out;
  }

  /** A text cell; null is an empty cell. */
  void cell(String text) throws IOException {
    boolean first = recordStart;
    delimit();
    recordStart = false;
    if (text == null) {
      return;
    }
    int n = text.length();
    if (n == 0) {
      if (first) {
        ascii('"');
        ascii('"');
      }
      return;
    }
    if (needsQuotes(text, n)) {
      ascii('"');
      int start = 0;
      for (int i = 0; i < n; i++) {
        if (text.charAt(i) == '"') {
          utf8(text, start, i + 1);
          start = i; // the quote is written again: doubled
        }
      }
      utf8(text, start, n);
      ascii('"');
    } else {
      utf8(text, 0, n);
    }
  }

  /**
   * A text cell given as its UTF-8 bytes, valid and without surrogates (a field read from the
   * record's value): the bytes that {@link #cell(String)} writes for their text. The quoting rules
   * read the same from bytes: each character they look at is ASCII, and in UTF-8 an ASCII byte is
   * always that character (a non-ASCII character ends in a byte above a space).
   */
  void cell(byte[] utf8, int offset, int length) throws IOException {
    boolean first = recordStart;
    delimit();
    recordStart = false;
    if (length == 0) {
      if (first) {
        ascii('"');
        ascii('"');
      }
      return;
    }
    int end = offset + length;
    if (needsQuotes(utf8, offset, end)) {
      ascii('"');
      int start = offset;
      for (int i = offset; i < end; i++) {
        if (utf8[i] == '"') {
          bytes(utf8, start, i + 1);
          start = i; // the quote is written again: doubled
        }
      }
      bytes(utf8, start, end);
      ascii('"');
    } else {
      bytes(utf8, offset, end);
    }
  }

  private static boolean needsQuotes(byte[] utf8, int from, int to) {
    if ((utf8[from] & 0xff) <= '#') {
      return true;
    }
    for (int i = from; i < to; i++) {
      byte b = utf8[i];
      if (b == '"' || b == ',' || b == '\n' || b == '\r') {
        return true;
      }
    }
    return (utf8[to - 1] & 0xff) <= ' ';
  }

  private void bytes(byte[] b, int from, int to) throws IOException {
    while (from < to) {
      if (pos == BUFFER) {
        drain();
      }
      int n = Math.min(to - from, BUFFER - pos);
      System.arraycopy(b, from, buf, pos, n);
      pos += n;
      from += n;
    }
  }

  /** A number cell (never quoted: digits and a leading minus). */
  void cell(long number) throws IOException {
    delimit();
    recordStart = false;
    if (BUFFER - pos < 20) {
      drain();
    }
    if (number == Long.MIN_VALUE) {
      utf8("-9223372036854775808", 0, 20);
      return;
    }
    if (number < 0) {
      buf[pos++] = '-';
      number = -number;
    }
    int digits = 1;
    for (long p = 10; digits < 19 && number >= p; p *= 10) {
      digits++;
    }
    for (int i = pos + digits - 1; i >= pos; i--) {
      buf[i] = (byte) ('0' + number % 10);
      number /= 10;
    }
    pos += digits;
  }

  void endRecord() throws IOException {
    ascii('\r');
    ascii('\n');
    recordStart = true;
  }

  /** Writes what is buffered and flushes the stream, as the writer it replaces did at the end. */
  void flush() throws IOException {
    drain();
    out.flush();
  }

  private static boolean needsQuotes(String text, int n) {
    if (text.charAt(0) <= '#') {
      return true;
    }
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == '"' || c == ',' || c == '\n' || c == '\r') {
        return true;
      }
    }
    return text.charAt(n - 1) <= ' ';
  }

  private void delimit() throws IOException {
    if (!recordStart) {
      ascii(',');
    }
  }

  private void ascii(char c) throws IOException {
    if (pos == BUFFER) {
      drain();
    }
    buf[pos++] = (byte) c;
  }

  /** {@code text[from, to)} as UTF-8; a surrogate without its pair is {@code ?}. */
  private void utf8(String text, int from, int to) throws IOException {
    int i = from;
    while (i < to) {
      if (BUFFER - pos < MAX_BYTES_PER_CHAR) {
        drain();
      }
      // As many chars as surely fit, so the loop checks room once per run, not per char.
      int end = Math.min(to, i + (BUFFER - pos) / MAX_BYTES_PER_CHAR);
      while (i < end) {
        char c = text.charAt(i++);
        if (c < 0x80) {
          buf[pos++] = (byte) c;
        } else if (c < 0x800) {
          buf[pos++] = (byte) (0xc0 | c >> 6);
          buf[pos++] = (byte) (0x80 | c & 0x3f);
        } else if (Character.isSurrogate(c)) {
          if (Character.isHighSurrogate(c) && i < to && Character.isLowSurrogate(text.charAt(i))) {
            int cp = Character.toCodePoint(c, text.charAt(i++));
            buf[pos++] = (byte) (0xf0 | cp >> 18);
            buf[pos++] = (byte) (0x80 | cp >> 12 & 0x3f);
            buf[pos++] = (byte) (0x80 | cp >> 6 & 0x3f);
            buf[pos++] = (byte) (0x80 | cp & 0x3f);
          } else {
            buf[pos++] = '?';
          }
        } else {
          buf[pos++] = (byte) (0xe0 | c >> 12);
          buf[pos++] = (byte) (0x80 | c >> 6 & 0x3f);
          buf[pos++] = (byte) (0x80 | c & 0x3f);
        }
      }
    }
  }

  private void drain() throws IOException {
    if (pos > 0) {
      out.write(buf, 0, pos);
      pos = 0;
    }
  }
}
