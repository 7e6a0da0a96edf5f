package io.kafkas3archiver.group;

import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which object each record goes to. The result is ordered (topic, partition, folder), so
 * the same batch always yields the same groups in the same order.
 */
public final class Grouper {
  private final PartitionTime partitionTime;
  private final ZoneId zone;
  private final boolean onePartitionPerObject;
  private final Clock clock;

  public Grouper(
      PartitionTime partitionTime, ZoneId zone, boolean onePartitionPerObject, Clock clock) {
    this.partitionTime = partitionTime;
    this.zone = zone;
    this.onePartitionPerObject = onePartitionPerObject;
    this.clock = clock;
  }

  public List<ObjectGroup> group(KafkaBatch batch) {
    Map<Slot, List<KafkaRecord>> records = new LinkedHashMap<>();
    Map<Slot, List<RejectedRecord>> rejected = new LinkedHashMap<>();
    Map<Stream, Long> earliest = earliestTimestamps(batch);
    Instant now = clock.instant();
    for (KafkaRecord r : batch.records()) {
      Stream stream = stream(r.topic(), r.partition());
      Slot slot = new Slot(stream, folder(r.timestamp(), earliest.get(stream), now));
      records.computeIfAbsent(slot, s -> new ArrayList<>()).add(r);
    }
    for (RejectedRecord r : batch.rejected()) {
      Stream stream = stream(r.topic(), r.partition());
      Slot slot = new Slot(stream, folder(r.timestamp(), earliest.get(stream), now));
      rejected.computeIfAbsent(slot, s -> new ArrayList<>()).add(r);
    }
    List<Slot> slots = new ArrayList<>(records.keySet());
    rejected.keySet().stream().filter(s -> !records.containsKey(s)).forEach(slots::add);
    slots.sort(SLOT_ORDER);
    List<ObjectGroup> groups = new ArrayList<>(slots.size());
    for (Slot slot : slots) {
      groups.add(
          new ObjectGroup(
              slot.stream().topic(),
              slot.folder(),
              records.getOrDefault(slot, List.of()),
              rejected.getOrDefault(slot, List.of())));
    }
    return groups;
  }

  private Stream stream(String topic, Integer partition) {
    return new Stream(topic, onePartitionPerObject ? partition : null);
  }

  private Map<Stream, Long> earliestTimestamps(KafkaBatch batch) {
    Map<Stream, Long> earliest = new LinkedHashMap<>();
    for (KafkaRecord r : batch.records()) {
      noteTimestamp(earliest, stream(r.topic(), r.partition()), r.timestamp());
    }
    for (RejectedRecord r : batch.rejected()) {
      noteTimestamp(earliest, stream(r.topic(), r.partition()), r.timestamp());
    }
    return earliest;
  }

  /**
   * Records without a timestamp (-1, or any negative value) do not take part: one of them must not
   * pull a whole batch into the epoch's folder. A stream where no record has one gets the epoch.
   */
  private static void noteTimestamp(Map<Stream, Long> earliest, Stream stream, long timestamp) {
    earliest.merge(stream, timestamp >= 0 ? timestamp : Long.MAX_VALUE, Math::min);
  }

  private ZonedDateTime folder(long recordTimestamp, long earliestOfStream, Instant now) {
    Instant instant =
        switch (partitionTime) {
          case BATCH ->
              Instant.ofEpochMilli(earliestOfStream == Long.MAX_VALUE ? 0L : earliestOfStream);
          case RECORD -> Instant.ofEpochMilli(usable(recordTimestamp));
          case INGEST -> now;
        };
    return instant.atZone(zone).truncatedTo(ChronoUnit.HOURS);
  }

  /** Records without a timestamp (-1) land in the epoch's folder, which is stable on retry. */
  private static long usable(long timestamp) {
    return Math.max(timestamp, 0L);
  }

  private record Stream(String topic, Integer partition) {}

  private record Slot(Stream stream, ZonedDateTime folder) {}

  private static final Comparator<Slot> SLOT_ORDER =
      Comparator.comparing((Slot s) -> s.stream().topic())
          .thenComparing(
              s -> s.stream().partition(), Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(Slot::folder);
}
