package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link NumberText}'s digit-by-digit answers are those of the exact, slow way ({@link
 * ColumnType#exactDouble}, {@link Double#parseDouble}) for every kind of JSON number text.
 */
public class NumberTextTest {
  @Test
  void shouldAgreeWithTheSlowWayOnRandomNumberTexts() {
    SplittableRandom r = new SplittableRandom(29);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 300_000; i++) {
      texts.add(randomNumber(r));
    }
    texts.addAll(
        List.of(
            "0",
            "-0",
            "0.0",
            "-0.0",
            "0e5",
            "0E-400",
            "1e22",
            "1e23",
            "9e22",
            "1e-22",
            "1e-23",
            "123456789012345",
            "999999999999999",
            "1234567890123456",
            "1e-307",
            "1e-308",
            "9.99999999999999e307",
            "1e308",
            "1.7976931348623157e308",
            "2.2250738585072014E-308",
            "4.9e-324",
            "1e400",
            "1e-400",
            "1e0000001",
            "1E+5",
            "1.0e-5",
            "12.950000",
            "100.10"));

    for (String t : texts) {
      boolean exact = ColumnType.exactDouble(t) != null;
      assertThat(NumberText.isExactDouble(t)).as(t).isEqualTo(exact);
      assertThat(Double.doubleToRawLongBits(NumberText.toDouble(t)))
          .as(t)
          .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(t)));
      // The same text read from the middle of a value's bytes, as a field keeps it.
      byte[] b = ("[" + t + ",").getBytes(StandardCharsets.US_ASCII);
      assertThat(NumberText.decompose(b, 1, t.length())).as(t).isEqualTo(NumberText.decompose(t));
      assertThat(NumberText.isExactDouble(b, 1, t.length())).as(t).isEqualTo(exact);
      assertThat(Double.doubleToRawLongBits(NumberText.toDouble(b, 1, t.length())))
          .as(t)
          .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(t)));
      boolean fits = ColumnType.fitsBigint(t);
      assertThat(ColumnType.fitsBigint(b, 1, t.length())).as(t).isEqualTo(fits);
      if (fits) {
        assertThat(NumberText.parseLong(b, 1, t.length())).as(t).isEqualTo(Long.parseLong(t));
      }
    }
  }

  @Test
  void shouldReadTheIntegersAtALongsEdgesFromBytes() {
    for (String t :
        List.of(
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "-9223372036854775809",
            "-0",
            "0",
            "1234567890123456789",
            "99999999999999999999",
            "12a",
            "-",
            "")) {
      byte[] b = (" " + t + " ").getBytes(StandardCharsets.US_ASCII);
      boolean fits = ColumnType.fitsBigint(t);
      assertThat(ColumnType.fitsBigint(b, 1, t.length())).as(t).isEqualTo(fits);
      if (fits) {
        assertThat(NumberText.parseLong(b, 1, t.length())).as(t).isEqualTo(Long.parseLong(t));
      }
    }
    assertThat(ColumnType.fitsBigint("-9223372036854775808")).isTrue();
    assertThat(ColumnType.fitsBigint("9223372036854775808")).isFalse();
    // A byte past ASCII is no digit (a String would have had a character there).
    byte[] e = {'1', (byte) 0xc3, (byte) 0xa9};
    assertThat(ColumnType.fitsBigint(e, 0, 3)).isFalse();
    assertThat(NumberText.decompose(e, 0, 3)).isEqualTo(NumberText.NOT_SIMPLE);
    assertThat(NumberText.isExactDouble(e, 0, 3)).isFalse();
  }

  @Test
  void shouldLeaveTextThatIsNotAJsonNumberToTheSlowWay() {
    for (String t : List.of("", "-", "01", "-01", "1.", ".5", "+1", "1e", "1e+", "0x10", "1 ")) {
      assertThat(NumberText.decompose(t)).as(t).isEqualTo(NumberText.NOT_SIMPLE);
    }
    assertThat(NumberText.decompose("1234567890123456")).isEqualTo(NumberText.NOT_SIMPLE);
    long d = NumberText.decompose("-12.950000e3");
    assertThat(NumberText.negative(d)).isTrue();
    assertThat(NumberText.mantissa(d)).isEqualTo(1295);
    assertThat(NumberText.power(d)).isEqualTo(1);
  }

  /** Digits of every length, leading and trailing zeros, fractions and exponents of any size. */
  public static String randomNumber(SplittableRandom r) {
    StringBuilder s = new StringBuilder();
    if (r.nextBoolean()) {
      s.append('-');
    }
    int intDigits = r.nextInt(4) == 0 ? 1 : 1 + r.nextInt(20);
    if (r.nextInt(5) == 0) {
      s.append('0');
    } else {
      s.append((char) ('1' + r.nextInt(9)));
      appendDigits(s, intDigits - 1, r);
    }
    if (r.nextBoolean()) {
      s.append('.');
      if (r.nextInt(3) == 0) {
        s.append("0".repeat(r.nextInt(8)));
      }
      appendDigits(s, 1 + r.nextInt(18), r);
    }
    if (r.nextInt(3) == 0) {
      s.append(r.nextBoolean() ? 'e' : 'E');
      switch (r.nextInt(3)) {
        case 0 -> s.append('-');
        case 1 -> s.append('+');
        default -> {}
      }
      s.append(r.nextInt(4) == 0 ? r.nextInt(400) : r.nextInt(30));
    }
    return s.toString();
  }

  private static void appendDigits(StringBuilder s, int n, SplittableRandom r) {
    for (int i = 0; i < n; i++) {
      // trailing zeros often, so that significant digits and text length differ
      s.append(r.nextInt(4) == 0 ? '0' : (char) ('0' + r.nextInt(10)));
    }
  }
}
