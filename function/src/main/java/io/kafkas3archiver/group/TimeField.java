package io.kafkas3archiver.group;

import java.time.ZoneId;
import java.util.List;

/** {@code PARTITION_TIME=field}: where the event time is in the value, and how it is written. */
public record TimeField(List<String> path, TimeFormat format) {
  public TimeField {
    path = List.copyOf(path);
  }

  /** Parses {@code TIME_FIELD} (a dotted path) and {@code TIME_FORMAT}, naming either on error. */
  public static TimeField of(String field, String format, ZoneId zone) {
    return new TimeField(RecordField.path("TIME_FIELD", field, field), TimeFormat.of(format, zone));
  }
}
