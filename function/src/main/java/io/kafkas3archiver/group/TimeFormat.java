package io.kafkas3archiver.group;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;

/**
 * How {@code TIME_FIELD}'s text becomes an instant ({@code TIME_FORMAT}, DESIGN §8). Parsing
 * returns null for text it cannot read, so the record falls back to its Kafka timestamp.
 */
public sealed interface TimeFormat {
  String LEGAL =
      "epoch_millis, epoch_seconds, iso8601, or a java.time DateTimeFormatter pattern that yields"
          + " at least a date and an hour, such as yyyy-MM-dd HH:mm:ss";

  /** Years the folders can name; anything outside is not a usable time. */
  int MIN_YEAR = 1;

  int MAX_YEAR = 9999;

  Instant parse(String text);

  /** Milliseconds since the epoch, as a JSON number or a string of digits. */
  record EpochMillis() implements TimeFormat {
    @Override
    public Instant parse(String text) {
      BigDecimal n = number(text);
      if (n == null || n.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
        return null;
      }
      return inRange(Instant.ofEpochMilli(n.longValue()));
    }
  }

  /** Seconds since the epoch; a fraction is kept to the millisecond. */
  record EpochSeconds() implements TimeFormat {
    @Override
    public Instant parse(String text) {
      BigDecimal n = number(text);
      if (n == null || n.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 1000)) > 0) {
        return null;
      }
      return inRange(Instant.ofEpochMilli(n.movePointRight(3).longValue()));
    }
  }

  /**
   * ISO-8601: with an offset or {@code Z} ({@code 2026-12-01T10:15:30.123+01:00}); without one the
   * time is read in {@code TIME_ZONE}; a bare date is its midnight.
   */
  record Iso8601(ZoneId zone) implements TimeFormat {
    @Override
    public Instant parse(String text) {
      try {
        TemporalAccessor t =
            DateTimeFormatter.ISO_DATE_TIME.parseBest(
                text, OffsetDateTime::from, LocalDateTime::from);
        Instant i =
            t instanceof OffsetDateTime o
                ? o.toInstant()
                : ((LocalDateTime) t).atZone(zone).toInstant();
        return inRange(i);
      } catch (DateTimeException e) {
        try {
          return inRange(
              java.time.LocalDate.parse(text, DateTimeFormatter.ISO_DATE)
                  .atStartOfDay(zone)
                  .toInstant());
        } catch (DateTimeException e2) {
          return null;
        }
      }
    }
  }

  /** A {@code java.time} pattern; a pattern without a zone reads the time in {@code TIME_ZONE}. */
  record Pattern(String pattern, DateTimeFormatter formatter) implements TimeFormat {
    @Override
    public Instant parse(String text) {
      try {
        return inRange(ZonedDateTime.parse(text, formatter).toInstant());
      } catch (DateTimeException e) {
        return null;
      }
    }
  }

  /** Parses {@code TIME_FORMAT}; a pattern must compile and must read back what it writes. */
  static TimeFormat of(String raw, ZoneId zone) {
    switch (raw) {
      case "epoch_millis":
        return new EpochMillis();
      case "epoch_seconds":
        return new EpochSeconds();
      case "iso8601":
        return new Iso8601(zone);
      default:
        break;
    }
    DateTimeFormatter f;
    try {
      f = DateTimeFormatter.ofPattern(raw).withZone(zone);
    } catch (IllegalArgumentException e) {
      throw invalid(raw, "it is not a java.time pattern (" + e.getMessage() + ")");
    }
    // A pattern must be able to place a record in an hour folder: write a known instant with it
    // and read it back to the same hour.
    ZonedDateTime probe = ZonedDateTime.of(2021, 3, 4, 5, 6, 7, 0, zone);
    try {
      TemporalAccessor parsed = f.parse(f.format(probe));
      if (!parsed.isSupported(ChronoField.HOUR_OF_DAY)
          || !parsed.isSupported(ChronoField.DAY_OF_MONTH)) {
        throw invalid(raw, "it does not hold a date and an hour, so no hour folder follows");
      }
      Instant back = ZonedDateTime.parse(f.format(probe), f).toInstant();
      if (back.getEpochSecond() / 3600 != probe.toEpochSecond() / 3600) {
        throw invalid(raw, "it does not read back the hour it writes");
      }
    } catch (DateTimeException e) {
      throw invalid(raw, "it cannot read back what it writes (" + e.getMessage() + ")");
    }
    return new Pattern(raw, f);
  }

  private static InvalidKeyTemplateException invalid(String raw, String why) {
    return new InvalidKeyTemplateException(
        "TIME_FORMAT='" + raw + "' is not valid: " + why + "; legal values: " + LEGAL);
  }

  private static BigDecimal number(String text) {
    if (text == null || text.isEmpty() || text.length() > 40) {
      return null;
    }
    try {
      return new BigDecimal(text.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Instant inRange(Instant i) {
    int year;
    try {
      year = i.atZone(java.time.ZoneOffset.UTC).getYear();
    } catch (DateTimeException e) {
      return null;
    }
    return year < MIN_YEAR || year > MAX_YEAR ? null : i;
  }
}
