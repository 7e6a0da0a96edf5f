package io.kafkas3archiver.remote;

import java.time.Clock;

/** The moment the invocation must have answered by: Lambda's remaining time, less a margin. */
public record Deadline(long epochMillis, Clock clock) {
  /** No deadline: for work outside an invocation (priming, tests, local tools). */
  public static final Deadline UNBOUNDED = new Deadline(Long.MAX_VALUE / 2, Clock.systemUTC());

  public static Deadline in(long millis, Clock clock) {
    return new Deadline(clock.millis() + millis, clock);
  }

  public long remainingMillis() {
    return epochMillis - clock.millis();
  }
}
