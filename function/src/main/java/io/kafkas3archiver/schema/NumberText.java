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
    int n = text.length();
    int i = 0;
    boolean negative = n > 0 && text.charAt(0) == '-';
    if (negative) {
      i++;
    }
    long m = 0;
    int digits = 0;
    int zeros = 0; // zero digits after the last non-zero one, not yet in m
    int fraction = 0;
    int start = i;
    for (; i < n; i++) {
      char c = text.charAt(i);
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
    if (i == start || (i - start > 1 && text.charAt(start) == '0')) {
      return NOT_SIMPLE;
    }
    if (i < n && text.charAt(i) == '.') {
      int from = ++i;
      for (; i < n; i++) {
        char c = text.charAt(i);
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
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      boolean negativeExponent = i < n && text.charAt(i) == '-';
      if (i < n && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
        i++;
      }
      int from = i;
      for (; i < n; i++) {
        char c = text.charAt(i);
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
    long d = decompose(text);
    if (d != NOT_SIMPLE) {
      long m = mantissa(d);
      if (m == 0) {
        return true;
      }
      int exponent = digits(m) - 1 + power(d);
      if (exponent >= MIN_EXPONENT && exponent <= MAX_EXPONENT) {
        return true;
      }
    }
    return ColumnType.exactDouble(text) != null;
  }

  /** {@link Double#parseDouble} of a JSON number's text. */
  public static double toDouble(String text) {
    long d = decompose(text);
    if (d != NOT_SIMPLE) {
      double m = mantissa(d);
      int p = power(d);
      if (p >= -22 && p <= 22) {
        double v = p >= 0 ? m * POWERS_OF_TEN[p] : m / POWERS_OF_TEN[-p];
        return negative(d) ? -v : v;
      }
    }
    return Double.parseDouble(text);
  }
}
