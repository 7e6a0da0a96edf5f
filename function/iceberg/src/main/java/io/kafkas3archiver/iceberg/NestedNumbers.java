package io.kafkas3archiver.iceberg;

/**
 * Whether a nested value's compact text, read from its bytes, is the text Jackson's exact tree
 * writes for it ({@code JsonNode.toString()}): the same when every number in it prints as it was
 * sent. Jackson writes an integer by its value ({@code -0} as {@code 0}) and a fraction by {@link
 * java.math.BigDecimal#toString()}, which uses an exponent for {@code 1e5} ({@code 1E+5}) and for
 * values below 10^-6 ({@code 0.0000001} as {@code 1E-7}), and drops a zero's sign.
 */
final class NestedNumbers {
  private NestedNumbers() {}

  /**
   * For a value the scan found valid, without escapes or whitespace: true when each of its numbers
   * prints as sent. Strings are skipped by their quotes (no escapes, so every quote is one).
   */
  static boolean printAsSent(byte[] text, int from, int to) {
    int i = from;
    while (i < to) {
      byte b = text[i];
      if (b == '"') {
        i++;
        while (text[i] != '"') { // the scan found the value valid: every string is closed
          i++;
        }
        i++;
      } else if (b == '-' || (b >= '0' && b <= '9')) {
        int end = i + 1;
        while (end < to && isNumberByte(text[end])) {
          end++;
        }
        if (!printsAsSent(text, i, end)) {
          return false;
        }
        i = end;
      } else {
        i++;
      }
    }
    return true;
  }

  private static boolean isNumberByte(byte b) {
    return (b >= '0' && b <= '9') || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-';
  }

  /** One number token, valid JSON: {@code -?int(.frac)?(e...)?}. */
  static boolean printsAsSent(byte[] text, int from, int to) {
    boolean negative = text[from] == '-';
    int intStart = negative ? from + 1 : from;
    int point = -1;
    for (int i = intStart; i < to; i++) {
      byte b = text[i];
      if (b == 'e' || b == 'E') {
        return false;
      }
      if (b == '.') {
        point = i;
      }
    }
    int intEnd = point < 0 ? to : point;
    boolean zeroInt = intEnd - intStart == 1 && text[intStart] == '0';
    if (point < 0) {
      return !(negative && zeroInt); // -0 is written 0
    }
    if (!zeroInt) {
      return true; // 12.50 is written 12.50
    }
    int leadingZeros = 0;
    int i = point + 1;
    while (i < to && text[i] == '0') {
      leadingZeros++;
      i++;
    }
    int fraction = to - point - 1;
    if (leadingZeros == fraction) {
      // Zero with a scale: 0.000000 is written as sent, 0.0000000 as 0E-7; -0.0 loses its sign.
      return !negative && fraction <= 6;
    }
    return leadingZeros <= 5; // 0.000001 is written as sent, 0.0000001 as 1E-7
  }
}
