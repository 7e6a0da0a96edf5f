package io.kafkas3archiver.testing;

import io.kafkas3archiver.decode.KafkaRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Records for encoder tests, without an event around them. */
public final class Records {
  private Records() {}

  /**
   * One record per value on topic {@code t}, partition 0, offsets 0, 1, … with create times a
   * millisecond apart from 2026-07-13T15:04:05Z, no key and no headers.
   */
  public static List<KafkaRecord> ofValues(String... values) {
    List<KafkaRecord> records = new ArrayList<>(values.length);
    for (int i = 0; i < values.length; i++) {
      records.add(
          new KafkaRecord(
              "t",
              0,
              i,
              1783955045000L + i,
              "CREATE_TIME",
              null,
              values[i].getBytes(StandardCharsets.UTF_8),
              List.of()));
    }
    return records;
  }
}
