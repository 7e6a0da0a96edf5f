package io.kafkas3archiver.decode;

import java.util.Arrays;

/**
 * Decodes a record's base64 key, value or header straight from the parser's characters into an
 * array of the exact size: no copy of the text into bytes and no {@code ByteBuffer}s, which the JDK
 * decoder needs for text that is not a whole array. Only the usual form is decoded here (standard
 * alphabet, padded to a multiple of four, {@code =} only at the end); anything else returns null,
 * and the caller hands it to {@link java.util.Base64#getDecoder()}, which decides, so the accepted
 * inputs and the decoded bytes are the JDK's.
 */
final class Base64Text {
  private static final byte[] VALUES = new byte[128];

  static {
    Arrays.fill(VALUES, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      VALUES[alphabet.charAt(i)] = (byte) i;
    }
  }

  private Base64Text() {}

  /** The decoded bytes, or null when the text is not of the usual form (or not base64 at all). */
  static byte[] decodeUsual(char[] chars, int offset, int length) {
    if (length % 4 != 0) {
      return null;
    }
    if (length == 0) {
      return new byte[0];
    }
    int last = offset + length - 1;
    int padding = chars[last] != '=' ? 0 : chars[last - 1] != '=' ? 1 : 2;
    byte[] out = new byte[length / 4 * 3 - padding];
    int end = offset + length - (padding == 0 ? 0 : 4);
    int o = 0;
    for (int i = offset; i < end; i += 4) {
      int a = value(chars[i]);
      int b = value(chars[i + 1]);
      int c = value(chars[i + 2]);
      int d = value(chars[i + 3]);
      if ((a | b | c | d) < 0) {
        return null;
      }
      int bits = a << 18 | b << 12 | c << 6 | d;
      out[o++] = (byte) (bits >> 16);
      out[o++] = (byte) (bits >> 8);
      out[o++] = (byte) bits;
    }
    if (padding > 0) {
      int a = value(chars[end]);
      int b = value(chars[end + 1]);
      int c = padding == 1 ? value(chars[end + 2]) : 0;
      if ((a | b | c) < 0) {
        return null;
      }
      int bits = a << 18 | b << 12 | c << 6;
      out[o++] = (byte) (bits >> 16);
      if (padding == 1) {
        out[o] = (byte) (bits >> 8);
      }
    }
    return out;
  }

  private static int value(char c) {
    return c < 128 ? VALUES[c] : -1;
  }
}
