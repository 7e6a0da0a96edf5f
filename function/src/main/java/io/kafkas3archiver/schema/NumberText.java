package io.kafkas3archiver.schema;

/**
 * A JSON number's text read digit by digit, so that the common number (at most 15 significant
 * digits, a modest exponent) is typed and converted without {@link Double#parseDouble}, {@link
 * Double#toString} or a {@link java.math.BigDecimal}: the csv and parquet encoders ask this of
 * every number cell. Any other text takes the exact, slow way, so the answers are always those of
 * {@link ColumnType#exactDouble} and {@link Double#parseDouble} ({@code NumberTextTest} compares
 * them over random texts).
 *
 * <p>Why 15 digits decide it: a decimal of at most 15 significant digits in the normal range of
 * doubles comes back from its nearest double unchanged (10^15 &lt; 2^52), and Java's {@link
 * Double#toString} (shortest since Java 19) can only print a decimal that rounds to that double
 * with as few digits, which is then the same number. And a mantissa below 2^53 times or divided by
 * a power of ten up to 10^22 is one correctly rounded operation on two exact doubles: the nearest
 * double, as {@link Double#parseDouble} gives it.
 */
public final class NumberText {
  /** What {@link #decompose} returns for a text it leaves to the slow way. */
  public static final long NOT_SIMPLE = -1;

  private static final int MAX_DIGITS = 15;
  private static final int MAX_POWER = 400;
  private static final int POWER_BIAS = 1024;
  private static final int MANTISSA_BITS = 50;
  private static final long MANTISSA_MASK = (1L << MANTISSA_BITS) - 1;

  /** Normal doubles: 10^-307 is above {@link Double#MIN_NORMAL}, 10^308 below the largest. */
  private static final int MIN_EXPONENT = -307;

  private static final int MAX_EXPONENT = 307;

  private static final double[] POWERS_OF_TEN = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  private static final long[] LONG_POWERS_OF_TEN = {
    1L,
    10L,
    100L,
    1_000L,
    10_000L,
    100_000L,
    1_000_000L,
    10_000_000L,
    100_000_000L,
    1_000_000_000L,
    10_000_000_000L,
    100_000_000_000L,
    1_000_000_000_000L,
    10_000_000_000_000L,
    100_000_000_000_000L,
    1_000_000_000_000_000L,
    10_000_000_000_000_000L,
    100_000_000_000_000_000L,
    1_000_000_000_000_000_000L
  };

  private NumberText() {}

  /**
   * The number as {@code ±m × 10^power}, {@code m} below 10^15 with no trailing zero digit (zero
   * for any zero), packed into one long so that no object is made per cell ({@link #mantissa},
   * {@link #power}, {@link #negative}); {@link #NOT_SIMPLE} for more significant digits, a power
   * beyond ±400, or text that is not a JSON number.
   */
  public static long decompose(String text) {
    return decompose(text, null, 0, text.length());
  }

  /** {@link #decompose(String)} of the ASCII text {@code b[offset, offset + n)}. */
  public static long decompose(byte[] b, int offset, int n) {
    return decompose(null, b, offset, n);
  }

  /** The text is {@code text} or, when that is null, the bytes: one scan for both. */
  private static long decompose(String text, byte[] b, int offset, int n) {
    int i = 0;
    boolean negative = n > 0 && at(text, b, offset, 0) == '-';
    if (negative) {
      i++;
    }
    long m = 0;
    int digits = 0;
    int zeros = 0; // zero digits after the last non-zero one, not yet in m
    int fraction = 0;
    int start = i;
    for (; i < n; i++) {
      char c = at(text, b, offset, i);
      if (c < '0' || c > '9') {
        break;
      }
      if (c == '0') {
        zeros += m == 0 ? 0 : 1;
      } else {
        if (digits + zeros + 1 > MAX_DIGITS) {
          return NOT_SIMPLE;
        }
        m = m * LONG_POWERS_OF_TEN[zeros + 1] + (c - '0');
        digits += zeros + 1;
        zeros = 0;
      }
    }
    if (i == start || (i - start > 1 && at(text, b, offset, start) == '0')) {
      return NOT_SIMPLE;
    }
    if (i < n && at(text, b, offset, i) == '.') {
      int from = ++i;
      for (; i < n; i++) {
        char c = at(text, b, offset, i);
        if (c < '0' || c > '9') {
          break;
        }
        fraction++;
        if (c == '0') {
          zeros += m == 0 ? 0 : 1;
        } else {
          if (digits + zeros + 1 > MAX_DIGITS) {
            return NOT_SIMPLE;
          }
          m = m * LONG_POWERS_OF_TEN[zeros + 1] + (c - '0');
          digits += zeros + 1;
          zeros = 0;
        }
      }
      if (i == from) {
        return NOT_SIMPLE;
      }
    }
    int exponent = 0;
    if (i < n && (at(text, b, offset, i) == 'e' || at(text, b, offset, i) == 'E')) {
      i++;
      boolean negativeExponent = i < n && at(text, b, offset, i) == '-';
      if (i < n && (at(text, b, offset, i) == '-' || at(text, b, offset, i) == '+')) {
        i++;
      }
      int from = i;
      for (; i < n; i++) {
        char c = at(text, b, offset, i);
        if (c < '0' || c > '9' || i - from >= 6) {
          break;
        }
        exponent = exponent * 10 + (c - '0');
      }
      if (i == from) {
        return NOT_SIMPLE;
      }
      exponent = negativeExponent ? -exponent : exponent;
    }
    if (i != n) {
      return NOT_SIMPLE;
    }
    long power = m == 0 ? 0 : (long) zeros + exponent - fraction;
    if (power < -MAX_POWER || power > MAX_POWER) {
      return NOT_SIMPLE;
    }
    return (negative ? 1L << 62 : 0) | (power + POWER_BIAS) << MANTISSA_BITS | m;
  }

  /** The {@code i}th character of the text or of the bytes (a byte past ASCII is no digit). */
  static char at(String text, byte[] b, int offset, int i) {
    return text != null ? text.charAt(i) : (char) (b[offset + i] & 0xff);
  }

  public static long mantissa(long decomposed) {
    return decomposed & MANTISSA_MASK;
  }

  public static int power(long decomposed) {
    return (int) ((decomposed >>> MANTISSA_BITS) & 0x7ff) - POWER_BIAS;
  }

  public static boolean negative(long decomposed) {
    return (decomposed & 1L << 62) != 0;
  }

  /** How many decimal digits {@code m} has (1 for 0). */
  public static int digits(long m) {
    int d = 1;
    while (d < LONG_POWERS_OF_TEN.length && m >= LONG_POWERS_OF_TEN[d]) {
      d++;
    }
    return d;
  }

  /** {@code 10^p} for {@code 0 <= p <= 18}. */
  public static long powerOfTen(int p) {
    return LONG_POWERS_OF_TEN[p];
  }

  /** Whether {@link ColumnType#exactDouble} holds the text. */
  public static boolean isExactDouble(String text) {
    return simplyExact(decompose(text)) || ColumnType.exactDouble(text) != null;
  }

  /** {@link #isExactDouble(String)} of the ASCII text {@code b[offset, offset + n)}. */
  public static boolean isExactDouble(byte[] b, int offset, int n) {
    return simplyExact(decompose(b, offset, n))
        || ColumnType.exactDouble(latin1(b, offset, n)) != null;
  }

  /** Whether a decomposed number is exact as a double without asking the slow way. */
  private static boolean simplyExact(long d) {
    if (d == NOT_SIMPLE) {
      return false;
    }
    long m = mantissa(d);
    if (m == 0) {
      return true;
    }
    int exponent = digits(m) - 1 + power(d);
    return exponent >= MIN_EXPONENT && exponent <= MAX_EXPONENT;
  }

  /** {@link Double#parseDouble} of a JSON number's text. */
  public static double toDouble(String text) {
    long d = decompose(text);
    return simplyConverted(d) ? simply(d) : Double.parseDouble(text);
  }

  /** {@link #toDouble(String)} of the ASCII text {@code b[offset, offset + n)}. */
  public static double toDouble(byte[] b, int offset, int n) {
    long d = decompose(b, offset, n);
    return simplyConverted(d) ? simply(d) : Double.parseDouble(latin1(b, offset, n));
  }

  /** Whether the double is one correctly rounded operation on the mantissa and a power of ten. */
  private static boolean simplyConverted(long d) {
    return d != NOT_SIMPLE && power(d) >= -22 && power(d) <= 22;
  }

  private static double simply(long d) {
    double m = mantissa(d);
    int p = power(d);
    double v = p >= 0 ? m * POWERS_OF_TEN[p] : m / POWERS_OF_TEN[-p];
    return negative(d) ? -v : v;
  }

  /**
   * A long from the text of an integer that {@link ColumnType#fitsBigint} accepted, without a
   * String: digits accumulated negatively, so that {@link Long#MIN_VALUE} fits too.
   */
  public static long parseLong(byte[] b, int offset, int n) {
    boolean negative = b[offset] == '-';
    long v = 0;
    for (int i = negative ? 1 : 0; i < n; i++) {
      v = v * 10 - (b[offset + i] - '0');
    }
    return negative ? v : -v;
  }

  /** The slow way's text, for a number of more digits than {@link #decompose} keeps. */
  static String latin1(byte[] b, int offset, int n) {
    return new String(b, offset, n, java.nio.charset.StandardCharsets.ISO_8859_1);
  }
}
