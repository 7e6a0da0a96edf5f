package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Grouping by record content (DESIGN §8): folders per value, event time, the fan-out guard. */
class FieldGrouperTest {
  private static final long KAFKA_TIME = Instant.parse("2026-07-14T09:10:00Z").toEpochMilli();
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-20T00:00:00Z"), ZoneOffset.UTC);
  private static final ZoneId UTC = ZoneId.of("UTC");

  private static KafkaRecord record(int partition, long offset, String json) {
    return new KafkaRecord(
        "orders",
        partition,
        offset,
        KAFKA_TIME,
        "CREATE_TIME",
        null,
        json == null ? null : json.getBytes(StandardCharsets.UTF_8),
        List.of());
  }

  private static String event(String region, String time) {
    return "{\"customer\":{\"region\":\""
        + region
        + "\"}"
        + (time == null ? "" : ",\"eventTime\":\"" + time + "\"")
        + "}";
  }

  private static Grouper grouper(int maxFolders) {
    var partitioner =
        new RecordPartitioner(
            List.of(new RecordField.ValueField(List.of("customer", "region"))),
            TimeField.of("eventTime", "iso8601", UTC),
            128);
    return new Grouper(PartitionTime.FIELD, UTC, CLOCK, partitioner, maxFolders);
  }

  @Test
  void shouldSplitByPartitionValueAndEventHourAndCountTimeFallbacks() {
    KafkaBatch batch =
        new KafkaBatch(
            "aws:kafka",
            List.of(
                record(0, 1, event("eu", "2026-07-13T15:30:00Z")),
                record(0, 2, event("us", "2026-07-13T15:45:00Z")),
                record(0, 3, event("eu", "2026-07-13T16:05:00Z")),
                record(1, 4, event("eu", "2026-07-13T15:10:00Z")),
                record(0, 5, "{\"eventTime\":\"2026-07-13T15:00:00Z\"}"),
                record(0, 6, event("eu", "not a time")),
                record(0, 7, null)),
            List.of());

    var grouping = grouper(Grouper.UNLIMITED).grouping(batch);

    assertThat(grouping.groups())
        .extracting(
            g ->
                g.offsetRanges().keySet() + " " + g.folderValues() + " " + g.folderTime().getHour())
        // In each partition's offset order (by first offset), as its chain of objects is written.
        .containsExactly(
            "[0] [eu] 15",
            "[0] [us] 15",
            "[0] [eu] 16",
            "[0] [__HIVE_DEFAULT_PARTITION__] 15",
            "[0] [eu] 9",
            "[0] [__HIVE_DEFAULT_PARTITION__] 9",
            "[1] [eu] 15");
    // Offset 6 ("not a time") fell back to its Kafka hour; the tombstone (7) is not counted.
    assertThat(grouping.timeFallbacksByTopic()).isEqualTo(Map.of("orders", 1));
    assertThat(grouping.deferredFrom()).isEmpty();
  }

  @Test
  void shouldDeferEverythingFromTheRecordThatWouldOpenOneFolderTooMany() {
    List<KafkaRecord> records = new ArrayList<>();
    String[] regions = {"a", "b", "a", "c", "a", "b"};
    for (int i = 0; i < regions.length; i++) {
      records.add(record(0, 100 + i, event(regions[i], "2026-07-13T15:00:00Z")));
    }
    records.add(record(1, 7, event("z", "2026-07-13T15:00:00Z")));
    var grouping = grouper(2).grouping(new KafkaBatch("aws:kafka", records, List.of()));

    // a, b fit; c (offset 103) would be the third folder: 103..105 wait for the redelivery,
    // although a and b would have had room.
    assertThat(grouping.deferredFrom()).isEqualTo(Map.of("orders-0", 103L));
    assertThat(grouping.deferredByTopic()).isEqualTo(Map.of("orders", 3));
    assertThat(grouping.groups())
        .flatExtracting(ObjectGroup::records)
        .extracting(KafkaRecord::offset)
        .containsExactlyInAnyOrder(100L, 101L, 102L, 7L);
  }

  @Test
  void shouldAlwaysArchiveTheFirstRecordOfAPartitionSoItNeverStalls() {
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      records.add(record(0, i, event("r" + i, null)));
    }
    var grouping = grouper(1).grouping(new KafkaBatch("aws:kafka", records, List.of()));

    assertThat(grouping.groups()).hasSize(1);
    assertThat(grouping.groups().get(0).records())
        .extracting(KafkaRecord::offset)
        .containsExactly(0L);
    assertThat(grouping.deferredFrom()).isEqualTo(Map.of("orders-0", 1L));
  }
}
