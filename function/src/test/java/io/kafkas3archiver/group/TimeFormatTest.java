package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class TimeFormatTest {
  private static final ZoneId KOLKATA = ZoneId.of("Asia/Kolkata");

  @Test
  void shouldReadEpochMillisAndSeconds() {
    assertThat(TimeFormat.of("epoch_millis", KOLKATA).parse("1783958399000"))
        .isEqualTo(Instant.parse("2026-07-13T15:59:59Z"));
    assertThat(TimeFormat.of("epoch_seconds", KOLKATA).parse("1783958399.5"))
        .isEqualTo(Instant.parse("2026-07-13T15:59:59.500Z"));
    assertThat(TimeFormat.of("epoch_millis", KOLKATA).parse("soon")).isNull();
    assertThat(TimeFormat.of("epoch_seconds", KOLKATA).parse("1e30")).isNull();
    assertThat(TimeFormat.of("epoch_millis", KOLKATA).parse("-99999999999999999")).isNull();
  }

  @Test
  void shouldReadIso8601WithOffsetWithoutOffsetInTheZoneAndBareDates() {
    TimeFormat iso = TimeFormat.of("iso8601", KOLKATA);
    assertThat(iso.parse("2026-07-13T15:30:00Z")).isEqualTo(Instant.parse("2026-07-13T15:30:00Z"));
    assertThat(iso.parse("2026-07-13T21:00:00+05:30"))
        .isEqualTo(Instant.parse("2026-07-13T15:30:00Z"));
    assertThat(iso.parse("2026-07-13T21:00:00")).isEqualTo(Instant.parse("2026-07-13T15:30:00Z"));
    assertThat(iso.parse("2026-07-14")).isEqualTo(Instant.parse("2026-07-13T18:30:00Z"));
    assertThat(iso.parse("13/07/2026")).isNull();
    assertThat(iso.parse("")).isNull();
  }

  @Test
  void shouldReadAPatternInTheZone() {
    TimeFormat f = TimeFormat.of("dd/MM/yyyy HH:mm", KOLKATA);
    assertThat(f.parse("13/07/2026 21:00")).isEqualTo(Instant.parse("2026-07-13T15:30:00Z"));
    assertThat(f.parse("2026-07-13")).isNull();
  }
}
