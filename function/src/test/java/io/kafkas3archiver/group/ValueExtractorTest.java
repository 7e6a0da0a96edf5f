package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValueExtractorTest {
  private static final ValueExtractor REGION_AND_TIME =
      new ValueExtractor(List.of(List.of("customer", "region"), List.of("eventTime")));

  private static String[] extract(ValueExtractor e, String json) {
    return e.extract(json == null ? null : json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void shouldReadNestedAndTopLevelFieldsInOnePass() {
    assertThat(
            extract(
                REGION_AND_TIME,
                """
                {"id":1,"tags":[{"customer":{"region":"no"}}],"customer":{"name":"n",
                 "region":"eu-west-1"},"eventTime":"2026-07-13T15:30:00Z"}"""))
        .containsExactly("eu-west-1", "2026-07-13T15:30:00Z");
  }

  @Test
  void shouldGiveNumbersAndBooleansAsReceived() {
    var e = new ValueExtractor(List.of(List.of("n"), List.of("b"), List.of("d")));
    assertThat(extract(e, "{\"n\":1.50e3,\"b\":true,\"d\":-0.0}"))
        .containsExactly("1.50e3", "true", "-0.0");
  }

  @Test
  void shouldGiveNullForMissingNullNonObjectAndMalformedValues() {
    assertThat(extract(REGION_AND_TIME, "{\"customer\":{\"region\":null}}"))
        .containsExactly(null, null);
    assertThat(extract(REGION_AND_TIME, "{\"customer\":[\"region\"]}")).containsOnlyNulls();
    assertThat(extract(REGION_AND_TIME, "{\"customer\":\"eu\"}")).containsOnlyNulls();
    assertThat(extract(REGION_AND_TIME, "[1,2]")).containsOnlyNulls();
    assertThat(extract(REGION_AND_TIME, "plain text")).containsOnlyNulls();
    assertThat(extract(REGION_AND_TIME, null)).containsOnlyNulls();
    assertThat(extract(REGION_AND_TIME, "{\"eventTime\":\"x\",\"customer\":{\"region\":"))
        .containsExactly(null, "x");
  }

  @Test
  void shouldGiveAnObjectOrArrayAtTheEndOfAPathAsCompactJson() {
    var e = new ValueExtractor(List.of(List.of("a")));
    assertThat(extract(e, "{\"a\": {\"b\": [1, 2]}}")).containsExactly("{\"b\":[1,2]}");
  }

  @Test
  void shouldTakeTheFirstOfDuplicateFields() {
    var e = new ValueExtractor(List.of(List.of("a")));
    assertThat(extract(e, "{\"a\":\"first\",\"a\":\"second\"}")).containsExactly("first");
  }

  @Test
  void shouldKeepWhatItFoundBeforeMalformedJson() {
    // Malformed after the wanted fields: whether the pass stopped early (it does; the benchmark
    // shows the saving) or met the error, the fields already read stand.
    assertThat(
            extract(
                REGION_AND_TIME,
                "{\"eventTime\":\"t\",\"customer\":{\"region\":\"r\"},\"rest\":[1,}"))
        .containsExactly("r", "t");
  }
}
