package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.schema.NumberTextTest;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;

/**
 * A number cell of a {@code DECIMAL(38,9)} column: {@link ParquetSchema#decimal} (which reads the
 * common number digit by digit) and {@link ParquetSchema#fitsDecimal} agree with the BigDecimal
 * rule for every kind of number text.
 */
class ParquetDecimalTest {
  @Test
  void shouldHoldExactlyTheNumbersTheBigDecimalRuleHolds() {
    SplittableRandom r = new SplittableRandom(38);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      texts.add(NumberTextTest.randomNumber(r));
    }
    texts.addAll(
        List.of(
            "0",
            "-0",
            "-0.0",
            "0e-400",
            "1e-9",
            "1e-10",
            "-0.000000001",
            "19.400",
            "1e28",
            "1e29",
            "99999999999999999999999999999.999999999",
            "1e0000001",
            "123456789012345678",
            "-9223372036854775808",
            "12345678901234567890123456789"));

    for (String t : texts) {
      byte[] expected = bigDecimalRule(t);
      Binary actual = ParquetSchema.decimal(t);
      assertThat(actual == null ? null : actual.getBytes()).as(t).isEqualTo(expected);
      assertThat(ParquetSchema.fitsDecimal(t)).as(t).isEqualTo(expected != null);
    }
  }

  /** The rule as the encoder had it: exact at scale 9, below 10^38 unscaled, else null. */
  private static byte[] bigDecimalRule(String text) {
    BigDecimal d;
    try {
      d = new BigDecimal(text);
    } catch (NumberFormatException e) {
      return null;
    }
    if (d.signum() != 0 && (long) d.precision() - d.scale() > 29) {
      return null;
    }
    if (d.signum() != 0 && d.stripTrailingZeros().scale() > 9) {
      return null;
    }
    BigInteger unscaled = d.setScale(9).unscaledValue();
    if (unscaled.abs().compareTo(BigInteger.TEN.pow(38)) >= 0) {
      return null;
    }
    byte[] twos = unscaled.toByteArray();
    byte[] bytes = new byte[16];
    for (int i = 0; i < 16 - twos.length; i++) {
      bytes[i] = (byte) (unscaled.signum() < 0 ? 0xff : 0);
    }
    System.arraycopy(twos, 0, bytes, 16 - twos.length, twos.length);
    return bytes;
  }
}
