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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides which object each record goes to: one object per topic-partition per time folder, named
 * from its first offset. The result is ordered by topic, partition and first offset, so the objects
 * of a partition are written in offset order.
 *
 * <p>Under {@code PARTITION_TIME=batch} the folder is the hour of the partition's first record
 * (lowest offset) in the batch: a redelivery from the same offset lands in the same folder,
 * whatever the batch's end or partition mix (DESIGN §2).
 *
 * <p>With record variables in the template ({@code ${value.region}}, ...) or {@code
 * PARTITION_TIME=field}, a record's folder is its time folder plus its rendered values, computed
 * from the record alone: the same kind of folder as {@code PARTITION_TIME=record}'s, whose offsets
 * may interleave with other folders of the partition. The chain of claims handles that already (see
 * {@code chain.ChainWriter}): a delivery restarting at any offset names each folder's object from
 * that folder's first offset at or after it, whatever else the batch holds.
 *
 * <p>The fan-out guard: a topic-partition may open at most {@code maxFoldersPerPartition} folders
 * per batch. Its records are taken in offset order; the record that would open one folder more, and
 * every later record of that topic-partition, are deferred: not archived now, reported as the
 * partition's batch item failure, so the event source mapping redelivers them from that offset.
 * Each invocation archives at least the first record of every partition, so a partition never
 * stalls, and nothing is dropped. No group holds an offset at or past the deferred one, so the
 * restart there meets no claim of this invocation.
 */
public final class Grouper {
  /** No guard: every folder of the batch is written in this invocation. */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  private final PartitionTime partitionTime;
  private final ZoneId zone;
  private final Clock clock;
  private final RecordPartitioner partitioner;
  private final int maxFoldersPerPartition;

  public Grouper(PartitionTime partitionTime, ZoneId zone, Clock clock) {
    this(partitionTime, zone, clock, RecordPartitioner.NONE, UNLIMITED);
  }

  public Grouper(
      PartitionTime partitionTime,
      ZoneId zone,
      Clock clock,
      RecordPartitioner partitioner,
      int maxFoldersPerPartition) {
    if (partitionTime == PartitionTime.BATCH && partitioner.hasRecordFields()) {
      // Under batch, a restart's time folder is that of the partition's first record, which may sit
      // in another value folder: no claim could say where the restart names its object.
      throw new IllegalArgumentException("record variables need PARTITION_TIME record or field");
    }
    this.partitionTime = partitionTime;
    this.zone = zone;
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

  public ZoneId zone() {
    return zone;
  }

  public List<ObjectGroup> group(KafkaBatch batch) {
    return grouping(batch).groups();
  }

  public Grouping grouping(KafkaBatch batch) {
    Map<Stream, Long> firstTimestamp = firstTimestamps(batch);
    Instant now = clock.instant();
    Hours hours = new Hours(zone);
    List<Entry> entries = new ArrayList<>(batch.records().size() + batch.rejected().size());
    // A batch lists each partition's records together, mostly in one hour: the previous record's
    // stream and slot are reused when they are the same, instead of new ones per record.
    Stream runStream = null;
    Long runFirst = null;
    Slot lastSlot = null;
    for (KafkaRecord r : batch.records()) {
      if (runStream == null || !runStream.holds(r)) {
        runStream = new Stream(r.topic(), r.partition());
        runFirst = firstTimestamp.get(runStream);
      }
      var placement = partitioner.place(r);
      Instant eventTime = partitioner.usesTimeField() ? placement.eventTime() : null;
      boolean fallback = partitioner.usesTimeField() && eventTime == null && !r.isTombstone();
      ZonedDateTime folder = folder(hours, r.timestamp(), runFirst, now, eventTime);
      if (lastSlot == null
          || lastSlot.stream() != runStream
          || lastSlot.folder() != folder
          || !lastSlot.values().equals(placement.values())) {
        lastSlot = new Slot(runStream, folder, placement.values());
      }
      entries.add(new Entry(lastSlot, r.offset(), r, null, fallback));
    }
    for (RejectedRecord r : batch.rejected()) {
      Stream stream =
          placed(r) ? new Stream(r.topic(), r.partition()) : new Stream(r.topic(), null);
      Long first = firstTimestamp.get(stream);
      List<String> values = partitioner.defaults();
      Instant eventTime = null;
      if (r.record() != null && partitioner.readsRecords()) {
        var placement = partitioner.place(r.record());
        values = placement.values();
        eventTime = partitioner.usesTimeField() ? placement.eventTime() : null;
      }
      Slot slot =
          new Slot(
              stream,
              folder(hours, r.timestamp(), first == null ? r.timestamp() : first, now, eventTime),
              values);
      entries.add(new Entry(slot, placed(r) ? r.offset() : -1, null, r, false));
    }

    Map<String, Long> deferredFrom = guard(entries);
    Map<String, Integer> deferredByTopic = new TreeMap<>();
    Map<String, Integer> fallbacks = new TreeMap<>();
    Map<Slot, List<KafkaRecord>> records = new LinkedHashMap<>();
    Map<Slot, List<RejectedRecord>> rejected = new LinkedHashMap<>();
    Slot listed = null; // the slot of `list`: consecutive entries mostly share one
    List<KafkaRecord> list = null;
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
        if (e.slot() != listed) {
          listed = e.slot();
          list = records.computeIfAbsent(listed, s -> new ArrayList<>());
        }
        list.add(e.record());
      } else {
        rejected.computeIfAbsent(e.slot(), s -> new ArrayList<>()).add(e.rejected());
      }
    }

    List<ObjectGroup> groups = new ArrayList<>();
    List<Slot> slots = new ArrayList<>(records.keySet());
    rejected.keySet().stream().filter(s -> !records.containsKey(s)).forEach(slots::add);
    for (Slot slot : slots) {
      List<KafkaRecord> rs = new ArrayList<>(records.getOrDefault(slot, List.of()));
      rs.sort(Comparator.comparingLong(KafkaRecord::offset));
      List<RejectedRecord> rj = rejected.getOrDefault(slot, List.of());
      if (slot.stream().partition() == null) {
        groups.add(
            new ObjectGroup(slot.stream().topic(), null, -1, slot.folder(), rs, rj, slot.values()));
      } else {
        groups.add(new ObjectGroup(slot.stream().topic(), slot.folder(), rs, rj, slot.values()));
      }
    }
    groups.sort(GROUP_ORDER);
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

  private static boolean placed(RejectedRecord r) {
    return r.chained();
  }

  /** The timestamp of each partition's lowest-offset record, decoded or rejected. */
  private static Map<Stream, Long> firstTimestamps(KafkaBatch batch) {
    Map<Stream, long[]> first = new HashMap<>(); // offset, timestamp
    // Noted once per run of one partition's records (a batch lists them together), at the run's
    // lowest offset.
    Stream run = null;
    long offset = 0;
    long timestamp = 0;
    for (KafkaRecord r : batch.records()) {
      if (run != null && run.holds(r)) {
        if (r.offset() < offset) {
          offset = r.offset();
          timestamp = r.timestamp();
        }
        continue;
      }
      if (run != null) {
        note(first, run, offset, timestamp);
      }
      run = new Stream(r.topic(), r.partition());
      offset = r.offset();
      timestamp = r.timestamp();
    }
    if (run != null) {
      note(first, run, offset, timestamp);
    }
    for (RejectedRecord r : batch.rejected()) {
      if (placed(r)) {
        note(first, new Stream(r.topic(), r.partition()), r.offset(), r.timestamp());
      }
    }
    Map<Stream, Long> out = new HashMap<>();
    first.forEach((s, p) -> out.put(s, p[1]));
    return out;
  }

  private static void note(Map<Stream, long[]> first, Stream s, long offset, long timestamp) {
    first.merge(s, new long[] {offset, timestamp}, (a, b) -> a[0] <= b[0] ? a : b);
  }

  /** {@code eventTime} is the value's time under PARTITION_TIME=field, or null to fall back. */
  private ZonedDateTime folder(
      Hours hours, long recordTimestamp, long firstOfStream, Instant now, Instant eventTime) {
    return switch (partitionTime) {
      case BATCH -> hours.folder(usable(firstOfStream));
      case RECORD -> hours.folder(usable(recordTimestamp));
      case FIELD -> eventTime != null ? hour(eventTime) : hours.folder(usable(recordTimestamp));
      case INGEST -> hour(now);
    };
  }

  private ZonedDateTime hour(Instant instant) {
    return instant.atZone(zone).truncatedTo(ChronoUnit.HOURS);
  }

  /**
   * A record without a timestamp (-1) lands in the epoch's folder, which is stable on retry. Under
   * {@code batch} only the partition's first record decides: taking the first record that has a
   * timestamp would make the folder, and so the key, depend on where the batch ends.
   */
  private static long usable(long timestamp) {
    return Math.max(timestamp, 0L);
  }

  private record Stream(String topic, Integer partition) {
    boolean holds(KafkaRecord r) {
      return partition != null && partition == r.partition() && topic.equals(r.topic());
    }
  }

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

  private static final Comparator<ObjectGroup> GROUP_ORDER =
      Comparator.comparing(ObjectGroup::topic)
          .thenComparing(ObjectGroup::partition, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparingLong(ObjectGroup::start)
          .thenComparing(g -> String.join("/", g.folderValues()));
}
