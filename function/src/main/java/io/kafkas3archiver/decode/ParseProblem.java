package io.kafkas3archiver.decode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

/**
 * Parser errors in words that hold no payload bytes (DESIGN §6). Jackson's own messages quote the
 * input ({@code Unrecognized token 'jane.doe': ...}, {@code Duplicate field 'ssn'}), and they end
 * up in log lines, in exceptions the Lambda runtime prints, and in error-object reasons. Only the
 * kind of problem is kept; where it happened and a masked excerpt are for DEBUG lines only.
 */
public final class ParseProblem {
  /** Cut Jackson's message before the first quote, parenthesis, colon or digit. */
  private static final String CUT = "'\"(:`[{0123456789";

  private static final int EXCERPT_BYTES = 32;

  private ParseProblem() {}

  /**
   * The kind of problem, e.g. "Unrecognized token", "Duplicate field", "Unexpected end-of-input".
   * Stream-constraint messages are kept whole: they hold only counts and limits.
   */
  public static String describe(JacksonException e) {
    String original = e.getOriginalMessage();
    if (original == null || original.isBlank()) {
      return "malformed JSON";
    }
    if (e instanceof StreamConstraintsException) {
      return original.replace("`", "");
    }
    int end = original.length();
    for (int i = 0; i < original.length(); i++) {
      if (CUT.indexOf(original.charAt(i)) >= 0) {
        end = i;
        break;
      }
    }
    String kind = original.substring(0, end).strip();
    while (!kind.isEmpty() && !Character.isLetter(kind.charAt(kind.length() - 1))) {
      kind = kind.substring(0, kind.length() - 1).strip();
    }
    return kind.isEmpty() ? "malformed JSON" : kind;
  }

  /** Where the parser stopped: line, column and byte offset, for DEBUG lines only. */
  public static String where(JacksonException e) {
    JsonLocation at = e.getLocation();
    if (at == null) {
      return "unknown position";
    }
    return "line "
        + at.getLineNr()
        + ", column "
        + at.getColumnNr()
        + (at.getByteOffset() >= 0 ? ", byte " + at.getByteOffset() : "");
  }

  /**
   * Up to 32 bytes from {@code from}, with every letter shown as {@code x}, every digit as {@code
   * 9}, every other byte outside printable ASCII as {@code ?}: the shape of the input (quotes,
   * braces, separators) without its content. For DEBUG lines only.
   */
  public static String maskedExcerpt(byte[] bytes, int from, int to) {
    int start = Math.max(0, from);
    int end = Math.min(Math.min(bytes.length, to), start + EXCERPT_BYTES);
    StringBuilder out = new StringBuilder(end - start);
    for (int i = start; i < end; i++) {
      int b = bytes[i] & 0xff;
      if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) {
        out.append('x');
      } else if (b >= '0' && b <= '9') {
        out.append('9');
      } else if (b >= 0x20 && b < 0x7f) {
        out.append((char) b);
      } else {
        out.append('?');
      }
    }
    return out.toString();
  }
}
