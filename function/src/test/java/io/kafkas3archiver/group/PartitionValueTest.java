package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PartitionValueTest {

  @Test
  void shouldRenderMissingNullAndEmptyAsTheHiveDefault() {
    assertThat(PartitionValue.render((byte[]) null, 64)).isEqualTo("__HIVE_DEFAULT_PARTITION__");
    assertThat(PartitionValue.render("", 64)).isEqualTo("__HIVE_DEFAULT_PARTITION__");
  }

  @Test
  void shouldKeepSafeCharactersAndEscapeTheRestAsHiveDoes() {
    assertThat(PartitionValue.render("eu-west_1.b", 64)).isEqualTo("eu-west_1.b");
    assertThat(PartitionValue.render("a/b=c%d", 64)).isEqualTo("a%2Fb%3Dc%25d");
    assertThat(PartitionValue.render("tab\tnl\n", 64)).isEqualTo("tab%09nl%0A");
    assertThat(PartitionValue.render("x y", 64)).isEqualTo("x%20y");
    assertThat(PartitionValue.render("\uD83D\uDE00", 64)).isEqualTo("%F0%9F%98%80");
  }

  @ParameterizedTest
  @ValueSource(strings = {".", "..", "...", "../.."})
  void shouldNeverRenderADotSegment(String value) {
    String rendered = PartitionValue.render(value, 64);
    assertThat(rendered).doesNotContain("/").isNotIn(".", "..");
    if (value.chars().allMatch(c -> c == '.')) {
      assertThat(rendered).doesNotContain(".");
    }
  }

  @Test
  void shouldCutALongValueWithAHashSoDistinctValuesStayDistinct() {
    String a = "a".repeat(2048) + "1";
    String b = "a".repeat(2048) + "2";
    String ra = PartitionValue.render(a, 64);
    String rb = PartitionValue.render(b, 64);

    assertThat(ra).hasSize(64).startsWith("a".repeat(47)).matches(".*-[0-9a-f]{16}");
    assertThat(rb).hasSize(64).isNotEqualTo(ra);
    assertThat(PartitionValue.render(a, 64)).isEqualTo(ra);
  }

  @Test
  void shouldNeverCutAnEscapeInHalf() {
    for (int pad = 0; pad < 4; pad++) {
      String value = "x".repeat(pad) + "/".repeat(100);
      String rendered = PartitionValue.render(value, 64);
      assertThat(rendered.length()).isLessThanOrEqualTo(64);
      String head = rendered.substring(0, rendered.length() - 17);
      assertThat(head).matches("x*(%2F)*");
    }
  }

  @Test
  void shouldEscapeBytesThatAreNotUtf8() {
    byte[] raw = {(byte) 0xff, 'a', 0};
    assertThat(PartitionValue.render(raw, 64)).isEqualTo("%FFa%00");
    assertThat("%FFa%00".getBytes(StandardCharsets.UTF_8)).hasSize(7);
  }
}
