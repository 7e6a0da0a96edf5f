package io.kafkas3archiver.group;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Renders a record's value as one folder name component, Hive style (DESIGN §8).
 *
 * <ul>
 *   <li>Missing, null or empty: {@code __HIVE_DEFAULT_PARTITION__}, as Hive writes it.
 *   <li>Every byte of the UTF-8 text outside {@code [A-Za-z0-9._-]} becomes {@code %XX}. That is a
 *       superset of what Hive's {@code FileUtils.escapePathName} escapes ({@code /}, {@code =},
 *       {@code %}, control characters, ...), so Hive and Athena decode ASCII values back exactly;
 *       it also covers every character S3 advises against in keys. A value can therefore never add
 *       a {@code /}, and a value of only dots is escaped whole, so it can never be {@code .} or
 *       {@code ..}.
 *   <li>Longer than {@code maxBytes} after escaping: cut (never inside a {@code %XX}) and ended
 *       with {@code -} and the first 16 hex digits of the SHA-256 of the whole value, so distinct
 *       long values stay distinct and the key stays within S3's 1024 bytes.
 * </ul>
 */
public final class PartitionValue {
  public static final String HIVE_DEFAULT = "__HIVE_DEFAULT_PARTITION__";

  /** {@code -} and 16 hex digits. */
  static final int HASH_SUFFIX_LENGTH = 17;

  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
  private static final char[] LOWER_HEX = "0123456789abcdef".toCharArray();

  private PartitionValue() {}

  /** Renders UTF-8 (or any) bytes; null or empty is the Hive default partition. */
  public static String render(byte[] raw, int maxBytes) {
    if (raw == null || raw.length == 0) {
      return HIVE_DEFAULT;
    }
    boolean onlyDots = true;
    for (byte b : raw) {
      onlyDots &= b == '.';
    }
    StringBuilder out = new StringBuilder(raw.length + 8);
    for (byte b : raw) {
      int c = b & 0xff;
      if (!onlyDots && safe(c)) {
        out.append((char) c);
      } else {
        out.append('%').append((char) HEX[c >>> 4]).append((char) HEX[c & 0xf]);
      }
    }
    if (out.length() <= maxBytes) {
      return out.toString();
    }
    int keep = maxBytes - HASH_SUFFIX_LENGTH;
    // Never cut an escape in half: "%4" would decode to something else, or fail to.
    if (keep >= 1 && out.charAt(keep - 1) == '%') {
      keep -= 1;
    } else if (keep >= 2 && out.charAt(keep - 2) == '%') {
      keep -= 2;
    }
    return out.substring(0, keep) + "-" + hash16(raw);
  }

  public static String render(String text, int maxBytes) {
    return render(text == null ? null : text.getBytes(StandardCharsets.UTF_8), maxBytes);
  }

  private static boolean safe(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.';
  }

  private static String hash16(byte[] raw) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(raw);
      char[] hex = new char[16];
      for (int i = 0; i < 8; i++) {
        hex[2 * i] = LOWER_HEX[(digest[i] >>> 4) & 0xf];
        hex[2 * i + 1] = LOWER_HEX[digest[i] & 0xf];
      }
      return new String(hex);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
