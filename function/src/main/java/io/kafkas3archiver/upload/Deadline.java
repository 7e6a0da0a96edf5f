package io.kafkas3archiver.upload;

import java.time.Clock;

/** The moment the invocation must have answered by: Lambda's remaining time, less a margin. */
public record Deadline(long epochMillis, Clock clock) {

  public static Deadline in(long millis, Clock clock) {
    return new Deadline(clock.millis() + millis, clock);
  }

  public long remainingMillis() {
    return epochMillis - clock.millis();
  }
}
