package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class GrouperTest {
  // 2026-07-13T15:59:59Z and 2026-07-13T16:00:01Z: two records either side of an hour edge.
  private static final long BEFORE_EDGE = 1783958399000L;
  private static final long AFTER_EDGE = 1783958401000L;
  private static final Clock LATER =
      Clock.fixed(Instant.parse("2026-07-14T09:30:00Z"), ZoneOffset.UTC);

  private static KafkaRecord record(String topic, int partition, long offset, long ts) {
    return new KafkaRecord(
        topic, partition, offset, ts, "CREATE_TIME", null, "{}".getBytes(), List.of());
  }

  private static final KafkaBatch BATCH =
      new KafkaBatch(
          "aws:kafka",
          List.of(
              record("orders", 1, 11, AFTER_EDGE),
              record("orders", 0, 10, BEFORE_EDGE),
              record("payments", 0, 3, AFTER_EDGE)),
          List.of());

  @Test
  void shouldWriteOneObjectPerTopicPartitionInItsFirstRecordsHourByDefault() {
    var groups = new Grouper(PartitionTime.BATCH, ZoneId.of("UTC"), LATER).group(BATCH);

    assertThat(groups)
        .extracting(g -> g.topic() + "-" + g.partition() + "@" + g.start())
        .containsExactly("orders-0@10", "orders-1@11", "payments-0@3");
    assertThat(groups.get(0).folderTime().getHour()).isEqualTo(15);
    assertThat(groups.get(1).folderTime().getHour()).isEqualTo(16);
  }

  @Test
  void shouldTakeTheBatchFolderFromTheFirstRecordWhateverTheBatchHoldsAfterIt() {
    KafkaBatch shorter =
        new KafkaBatch("aws:kafka", List.of(record("orders", 0, 5, AFTER_EDGE)), List.of());
    KafkaBatch longer =
        new KafkaBatch(
            "aws:kafka",
            List.of(
                record("orders", 0, 5, AFTER_EDGE),
                record("orders", 0, 6, BEFORE_EDGE),
                record("payments", 0, 1, BEFORE_EDGE)),
            List.of());
    var grouper = new Grouper(PartitionTime.BATCH, ZoneId.of("UTC"), LATER);

    assertThat(grouper.group(longer).get(0).folderTime())
        .isEqualTo(grouper.group(shorter).get(0).folderTime());
    assertThat(grouper.group(longer).get(0).folderTime().getHour()).isEqualTo(16);
  }

  @Test
  void shouldUseTheEpochFolderWhenThePartitionsFirstRecordHasNoTimestamp() {
    KafkaBatch batch =
        new KafkaBatch(
            "aws:kafka",
            List.of(record("orders", 0, 1, -1L), record("orders", 0, 2, AFTER_EDGE)),
            List.of());
    var grouper = new Grouper(PartitionTime.BATCH, ZoneId.of("UTC"), LATER);

    assertThat(grouper.group(batch).get(0).folderTime().getYear()).isEqualTo(1970);
  }

  @Test
  void shouldSplitAtHourEdgesWithRecordTime() {
    var groups = new Grouper(PartitionTime.RECORD, ZoneId.of("UTC"), LATER).group(BATCH);

    assertThat(groups)
        .extracting(g -> g.topic() + "@" + g.folderTime().getHour())
        .containsExactly("orders@15", "orders@16", "payments@16");
  }

  @Test
  void shouldUseTheInvocationClockWithIngestTime() {
    var groups = new Grouper(PartitionTime.INGEST, ZoneId.of("UTC"), LATER).group(BATCH);

    assertThat(groups)
        .allSatisfy(
            g -> assertThat(g.folderTime()).isEqualTo(ZonedDateTime.parse("2026-07-14T09:00Z")));
  }

  @Test
  void shouldComputeFoldersInTheConfiguredTimeZone() {
    var groups = new Grouper(PartitionTime.BATCH, ZoneId.of("Asia/Kolkata"), LATER).group(BATCH);

    assertThat(groups.get(0).folderTime().getHour()).isEqualTo(21); // 15:59Z = 21:29 IST
  }

  @Test
  void shouldNameAnObjectFromTopicPartitionAndFirstOffsetOnly() {
    var grouper = new Grouper(PartitionTime.BATCH, ZoneId.of("UTC"), LATER);
    KafkaBatch longer =
        new KafkaBatch(
            "aws:kafka",
            List.of(record("orders", 0, 10, BEFORE_EDGE), record("orders", 0, 99, AFTER_EDGE)),
            List.of());
    assertThat(grouper.group(longer).get(0).jobId("ndjson"))
        .isEqualTo(grouper.group(BATCH).get(0).jobId("ndjson"));
    var first = grouper.group(BATCH).get(0).jobId("ndjson");
    var again = grouper.group(BATCH).get(0).jobId("ndjson");
    var otherFormat = grouper.group(BATCH).get(0).jobId("csv");

    assertThat(again).isEqualTo(first);
    assertThat(otherFormat).isNotEqualTo(first);
    assertThat(first.version()).isEqualTo(3);
  }
}
