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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which object each record goes to: one object per topic-partition per time folder, named
 * from its first offset. The result is ordered by topic, partition and first offset, so the objects
 * of a partition are written in offset order.
 *
 * <p>Under {@code PARTITION_TIME=batch} the folder is the hour of the partition's first record
 * (lowest offset) in the batch: a redelivery from the same offset lands in the same folder,
 * whatever the batch's end or partition mix (DESIGN §2).
 */
public final class Grouper {
  private final PartitionTime partitionTime;
  private final ZoneId zone;
  private final Clock clock;

  public Grouper(PartitionTime partitionTime, ZoneId zone, Clock clock) {
    this.partitionTime = partitionTime;
    this.zone = zone;
    this.clock = clock;
  }

  public ZoneId zone() {
    return zone;
  }

  public List<ObjectGroup> group(KafkaBatch batch) {
    Map<Stream, Long> firstTimestamp = firstTimestamps(batch);
    Instant now = clock.instant();
    Map<Slot, List<KafkaRecord>> records = new LinkedHashMap<>();
    Map<Slot, List<RejectedRecord>> rejected = new LinkedHashMap<>();
    for (KafkaRecord r : batch.records()) {
      Stream stream = new Stream(r.topic(), r.partition());
      Slot slot = new Slot(stream, folder(r.timestamp(), firstTimestamp.get(stream), now));
      records.computeIfAbsent(slot, s -> new ArrayList<>()).add(r);
    }
    for (RejectedRecord r : batch.rejected()) {
      Stream stream =
          placed(r) ? new Stream(r.topic(), r.partition()) : new Stream(r.topic(), null);
      Long first = firstTimestamp.get(stream);
      Slot slot =
          new Slot(stream, folder(r.timestamp(), first == null ? r.timestamp() : first, now));
      rejected.computeIfAbsent(slot, s -> new ArrayList<>()).add(r);
    }
    List<ObjectGroup> groups = new ArrayList<>();
    List<Slot> slots = new ArrayList<>(records.keySet());
    rejected.keySet().stream().filter(s -> !records.containsKey(s)).forEach(slots::add);
    for (Slot slot : slots) {
      List<KafkaRecord> rs = new ArrayList<>(records.getOrDefault(slot, List.of()));
      rs.sort(Comparator.comparingLong(KafkaRecord::offset));
      List<RejectedRecord> rj = rejected.getOrDefault(slot, List.of());
      if (slot.stream().partition() == null) {
        groups.add(new ObjectGroup(slot.stream().topic(), null, -1, slot.folder(), rs, rj));
      } else {
        groups.add(new ObjectGroup(slot.stream().topic(), slot.folder(), rs, rj));
      }
    }
    groups.sort(GROUP_ORDER);
    return groups;
  }

  /**
   * The claim of a group's offsets (see {@link Claim}), before it is fitted to the metadata budget;
   * its error-row count is known only once the group is encoded.
   */
  public Claim claim(ObjectGroup group) {
    List<Claim.Gap> gaps = new ArrayList<>();
    long next = group.start();
    for (long[] p : points(group)) {
      if (p[0] > next) {
        gaps.add(new Claim.Gap(next, p[0] - 1));
      }
      next = Math.max(next, p[0] + 1);
    }
    return new Claim(group.start(), group.last(), 0, segments(group), gaps);
  }

  /**
   * The segments of a group (see {@link Claim}): where a delivery restarting inside it would name
   * its object. A new segment starts where the start folder changes; a missing offset does not
   * start one (the claim lists it as a gap), so a topic with transaction markers or compacted
   * records still fits one object.
   */
  public List<Claim.Segment> segments(ObjectGroup group) {
    List<Claim.Segment> segments = new ArrayList<>();
    long from = -1;
    long to = -1;
    long folder = 0;
    for (long[] p : points(group)) {
      long f = startFolder(p[1], group.folderTime()).toEpochSecond();
      if (from >= 0 && f == folder) {
        to = p[0];
        continue;
      }
      if (from >= 0) {
        segments.add(new Claim.Segment(from, to, folder));
      }
      from = p[0];
      to = p[0];
      folder = f;
    }
    if (from >= 0) {
      segments.add(new Claim.Segment(from, to, folder));
    }
    return segments;
  }

  /** Offset and timestamp of each record of a group that has an offset, in offset order. */
  private static List<long[]> points(ObjectGroup group) {
    List<long[]> points = new ArrayList<>();
    for (KafkaRecord r : group.records()) {
      points.add(new long[] {r.offset(), r.timestamp()});
    }
    for (RejectedRecord r : group.rejected()) {
      if (r.offset() != null) {
        points.add(new long[] {r.offset(), r.timestamp()});
      }
    }
    points.sort(Comparator.comparingLong(p -> p[0]));
    return points;
  }

  /**
   * The part of a group from {@code offset} on, in the folder a delivery starting there would name:
   * under {@code batch}, the hour of that first record, so a continuation object and a later
   * delivery from the same offset agree on its key.
   */
  public ObjectGroup restartAt(ObjectGroup group, long offset) {
    ObjectGroup rest = group.from(offset);
    long timestamp = -1;
    for (KafkaRecord r : rest.records()) {
      if (r.offset() == offset) {
        timestamp = r.timestamp();
      }
    }
    for (RejectedRecord r : rest.rejected()) {
      if (r.offset() != null && r.offset() == offset) {
        timestamp = r.timestamp();
      }
    }
    return rest.in(startFolder(timestamp, group.folderTime()));
  }

  /** The folder a delivery whose first record of the partition has this timestamp would use. */
  private ZonedDateTime startFolder(long timestamp, ZonedDateTime groupFolder) {
    return switch (partitionTime) {
      case BATCH -> hour(Instant.ofEpochMilli(usable(timestamp)));
      case RECORD, INGEST -> groupFolder;
    };
  }

  private static boolean placed(RejectedRecord r) {
    return r.partition() != null && r.offset() != null;
  }

  /** The timestamp of each partition's lowest-offset record, decoded or rejected. */
  private static Map<Stream, Long> firstTimestamps(KafkaBatch batch) {
    Map<Stream, long[]> first = new HashMap<>(); // offset, timestamp
    for (KafkaRecord r : batch.records()) {
      note(first, new Stream(r.topic(), r.partition()), r.offset(), r.timestamp());
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

  private ZonedDateTime folder(long recordTimestamp, long firstOfStream, Instant now) {
    return switch (partitionTime) {
      case BATCH -> hour(Instant.ofEpochMilli(usable(firstOfStream)));
      case RECORD -> hour(Instant.ofEpochMilli(usable(recordTimestamp)));
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

  private record Stream(String topic, Integer partition) {}

  private record Slot(Stream stream, ZonedDateTime folder) {}

  private static final Comparator<ObjectGroup> GROUP_ORDER =
      Comparator.comparing(ObjectGroup::topic)
          .thenComparing(ObjectGroup::partition, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparingLong(ObjectGroup::start);
}
