package io.kafkas3archiver.group;

import io.kafkas3archiver.config.PartitionTime;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides which object each record goes to. The result is ordered (topic, partition, folder), so
 * the same batch always yields the same groups in the same order.
 *
 * <p>The fan-out guard: a topic-partition may open at most {@code maxFoldersPerPartition} folders
 * per batch. Its records are taken in offset order; the record that would open one folder more, and
 * every later record of that topic-partition, are deferred: not archived now, reported as the
 * partition's batch item failure, so the event source mapping redelivers them from that offset.
 * Each invocation archives at least the first record of every partition, so a partition never
 * stalls, and nothing is dropped.
 */
public final class Grouper {
  /** No guard: every folder of the batch is written in this invocation. */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  private final PartitionTime partitionTime;
  private final ZoneId zone;
  private final boolean onePartitionPerObject;
  private final Clock clock;
  private final RecordPartitioner partitioner;
  private final int maxFoldersPerPartition;

  public Grouper(
      PartitionTime partitionTime, ZoneId zone, boolean onePartitionPerObject, Clock clock) {
    this(partitionTime, zone, onePartitionPerObject, clock, RecordPartitioner.NONE, UNLIMITED);
  }

  public Grouper(
      PartitionTime partitionTime,
      ZoneId zone,
      boolean onePartitionPerObject,
      Clock clock,
      RecordPartitioner partitioner,
      int maxFoldersPerPartition) {
    this.partitionTime = partitionTime;
    this.zone = zone;
    this.onePartitionPerObject = onePartitionPerObject || partitioner.readsRecords();
    this.clock = clock;
    this.partitioner = partitioner;
    this.maxFoldersPerPartition = maxFoldersPerPartition;
  }

  /**
   * The groups of a batch, and what was deferred by the fan-out guard.
   *
   * @param deferredFrom per topic-partition ({@code t-0}), the first deferred offset
   * @param deferredByTopic per topic, how many records were deferred
   * @param timeFallbacksByTopic per topic, how many grouped records had no usable time field and
   *     were placed by their Kafka timestamp (only under {@code PARTITION_TIME=field})
   */
  public record Grouping(
      List<ObjectGroup> groups,
      Map<String, Long> deferredFrom,
      Map<String, Integer> deferredByTopic,
      Map<String, Integer> timeFallbacksByTopic) {}

  public List<ObjectGroup> group(KafkaBatch batch) {
    return grouping(batch).groups();
  }

  public Grouping grouping(KafkaBatch batch) {
    Map<Slot, List<KafkaRecord>> records = new LinkedHashMap<>();
    Map<Slot, List<RejectedRecord>> rejected = new LinkedHashMap<>();
    Map<Stream, Long> earliest = earliestTimestamps(batch);
    Instant now = clock.instant();
    Map<String, Integer> fallbacks = new TreeMap<>();

    List<Entry> entries = new ArrayList<>(batch.records().size() + batch.rejected().size());
    for (KafkaRecord r : batch.records()) {
      Stream stream = stream(r.topic(), r.partition());
      var placement = partitioner.place(r);
      boolean fallback = partitioner.usesTimeField() && placement.eventTime() == null;
      Instant time =
          partitioner.usesTimeField() && placement.eventTime() != null
              ? placement.eventTime()
              : null;
      Slot slot =
          new Slot(
              stream, folder(r.timestamp(), earliest.get(stream), now, time), placement.values());
      entries.add(new Entry(slot, r.offset(), r, null, fallback && !r.isTombstone()));
    }
    for (RejectedRecord r : batch.rejected()) {
      Stream stream = stream(r.topic(), r.partition());
      List<String> values = partitioner.defaults();
      Instant time = null;
      if (r.record() != null && partitioner.readsRecords()) {
        var placement = partitioner.place(r.record());
        values = placement.values();
        time = placement.eventTime();
      }
      Slot slot = new Slot(stream, folder(r.timestamp(), earliest.get(stream), now, time), values);
      entries.add(new Entry(slot, r.offset() == null ? -1 : r.offset(), null, r, false));
    }

    Map<String, Long> deferredFrom = guard(entries);
    Map<String, Integer> deferredByTopic = new TreeMap<>();
    for (Entry e : entries) {
      String topic = e.slot().stream().topic();
      if (e.deferred) {
        deferredByTopic.merge(topic, 1, Integer::sum);
        continue;
      }
      if (e.timeFallback()) {
        fallbacks.merge(topic, 1, Integer::sum);
      }
      if (e.record() != null) {
        records.computeIfAbsent(e.slot(), s -> new ArrayList<>()).add(e.record());
      } else {
        rejected.computeIfAbsent(e.slot(), s -> new ArrayList<>()).add(e.rejected());
      }
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
              rejected.getOrDefault(slot, List.of()),
              slot.values()));
    }
    return new Grouping(groups, deferredFrom, deferredByTopic, fallbacks);
  }

  /**
   * Marks the entries past each topic-partition's folder budget as deferred, in offset order, and
   * returns the first deferred offset of each such topic-partition. Entries without an offset (a
   * record the event did not number) are never deferred: no redelivery could name them.
   */
  private Map<String, Long> guard(List<Entry> entries) {
    Map<String, Long> deferredFrom = new TreeMap<>();
    if (maxFoldersPerPartition == UNLIMITED) {
      return deferredFrom;
    }
    Map<Stream, List<Entry>> byStream = new LinkedHashMap<>();
    for (Entry e : entries) {
      if (e.offset() >= 0 && e.slot().stream().partition() != null) {
        byStream.computeIfAbsent(e.slot().stream(), s -> new ArrayList<>()).add(e);
      }
    }
    for (var s : byStream.entrySet()) {
      List<Entry> ordered = s.getValue();
      ordered.sort(Comparator.comparingLong(Entry::offset));
      Set<Slot> open = new HashSet<>();
      Long cut = null;
      for (Entry e : ordered) {
        if (cut == null && !open.contains(e.slot()) && open.size() >= maxFoldersPerPartition) {
          cut = e.offset();
        }
        if (cut != null) {
          e.deferred = true;
        } else {
          open.add(e.slot());
        }
      }
      if (cut != null) {
        deferredFrom.put(s.getKey().topic() + "-" + s.getKey().partition(), cut);
      }
    }
    return deferredFrom;
  }

  private Stream stream(String topic, Integer partition) {
    return new Stream(topic, onePartitionPerObject ? partition : null);
  }

  private Map<Stream, Long> earliestTimestamps(KafkaBatch batch) {
    Map<Stream, Long> earliest = new HashMap<>();
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

  /** {@code eventTime} is the value's time under PARTITION_TIME=field, or null to fall back. */
  private ZonedDateTime folder(
      long recordTimestamp, long earliestOfStream, Instant now, Instant eventTime) {
    Instant instant =
        switch (partitionTime) {
          case BATCH ->
              Instant.ofEpochMilli(earliestOfStream == Long.MAX_VALUE ? 0L : earliestOfStream);
          case RECORD -> Instant.ofEpochMilli(usable(recordTimestamp));
          case FIELD ->
              eventTime != null ? eventTime : Instant.ofEpochMilli(usable(recordTimestamp));
          case INGEST -> now;
        };
    return instant.atZone(zone).truncatedTo(ChronoUnit.HOURS);
  }

  /** Records without a timestamp (-1) land in the epoch's folder, which is stable on retry. */
  private static long usable(long timestamp) {
    return Math.max(timestamp, 0L);
  }

  private record Stream(String topic, Integer partition) {}

  private record Slot(Stream stream, ZonedDateTime folder, List<String> values) {}

  /** One record (decoded or rejected) on its way to a slot. */
  private static final class Entry {
    private final Slot slot;
    private final long offset;
    private final KafkaRecord record;
    private final RejectedRecord rejected;
    private final boolean timeFallback;
    private boolean deferred;

    Entry(Slot slot, long offset, KafkaRecord record, RejectedRecord rejected, boolean fallback) {
      this.slot = slot;
      this.offset = offset;
      this.record = record;
      this.rejected = rejected;
      this.timeFallback = fallback;
    }

    Slot slot() {
      return slot;
    }

    long offset() {
      return offset;
    }

    KafkaRecord record() {
      return record;
    }

    RejectedRecord rejected() {
      return rejected;
    }

    boolean timeFallback() {
      return timeFallback;
    }
  }

  private static final Comparator<Slot> SLOT_ORDER =
      Comparator.comparing((Slot s) -> s.stream().topic())
          .thenComparing(
              s -> s.stream().partition(), Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(Slot::folder)
          .thenComparing(s -> String.join("/", s.values()));
}
