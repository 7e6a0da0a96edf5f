package io.kafkas3archiver.group;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * The start of the hour (in a zone) that holds an instant, as epoch seconds, without a {@code
 * ZonedDateTime} per record: the last two hours seen are kept, so records that jitter across an
 * hour edge cost a few comparisons each.
 */
public final class Hours {
  private final ZoneId zone;
  // Two windows [from, to) in epoch millis and their hour; "a" is the one used last.
  private long fromA = 0;
  private long toA = 0;
  private long hourA;
  private long fromB = 0;
  private long toB = 0;
  private long hourB;
  private ZonedDateTime startA;
  private ZonedDateTime startB;

  public Hours(ZoneId zone) {
    this.zone = zone;
  }

  public ZoneId zone() {
    return zone;
  }

  /** The hour that holds {@code epochMillis}, in epoch seconds (below 0 counts as the epoch). */
  public long of(long epochMillis) {
    long ms = Math.max(epochMillis, 0L);
    if (ms >= fromA && ms < toA) {
      return hourA;
    }
    if (ms >= fromB && ms < toB) {
      swap();
      return hourA;
    }
    ZonedDateTime start = Instant.ofEpochMilli(ms).atZone(zone).truncatedTo(ChronoUnit.HOURS);
    fromB = fromA;
    toB = toA;
    hourB = hourA;
    startB = startA;
    startA = start;
    hourA = start.toEpochSecond();
    fromA = hourA * 1000;
    toA = start.plusHours(1).toEpochSecond() * 1000;
    return hourA;
  }

  /** The same hour as a time folder. */
  public ZonedDateTime folder(long epochMillis) {
    of(epochMillis);
    return startA;
  }

  private void swap() {
    long f = fromA;
    long t = toA;
    long h = hourA;
    ZonedDateTime s = startA;
    fromA = fromB;
    toA = toB;
    hourA = hourB;
    startA = startB;
    fromB = f;
    toB = t;
    hourB = h;
    startB = s;
  }
}
