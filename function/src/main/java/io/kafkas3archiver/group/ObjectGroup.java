package io.kafkas3archiver.group;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The records of one object: one topic-partition, one folder, named from {@code start}, the offset
 * of its first record (DESIGN §3). The folder is {@code folderTime} plus {@code folderValues}: the
 * rendered values of the template's record variables, in template order (empty without them).
 * {@code rejected} are records of the same range that go to the error object. A group of records
 * rejected without a partition or offset has a null {@code partition} and {@code start} -1: it has
 * no place in any partition's chain of objects.
 */
public record ObjectGroup(
    String topic,
    Integer partition,
    long start,
    ZonedDateTime folderTime,
    List<KafkaRecord> records,
    List<RejectedRecord> rejected,
    List<String> folderValues) {

  public ObjectGroup {
    records = List.copyOf(records);
    rejected = List.copyOf(rejected);
    folderValues = List.copyOf(folderValues);
  }

  /** A group of a template without record variables. */
  public ObjectGroup(
      String topic,
      Integer partition,
      long start,
      ZonedDateTime folderTime,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected) {
    this(topic, partition, start, folderTime, records, rejected, List.of());
  }

  /** A group whose partition and start are those of its lowest-offset record (tests, priming). */
  public ObjectGroup(
      String topic,
      ZonedDateTime folderTime,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected) {
    this(topic, folderTime, records, rejected, List.of());
  }

  /** The same, in the folder of these record-variable values. */
  public ObjectGroup(
      String topic,
      ZonedDateTime folderTime,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected,
      List<String> folderValues) {
    this(
        topic,
        partitionOf(records, rejected),
        firstOffset(records, rejected),
        folderTime,
        records,
        rejected,
        folderValues);
  }

  /** Whether the group sits in a partition's chain (it has a partition and offsets). */
  public boolean placed() {
    return partition != null;
  }

  /** The highest offset of the group, or {@code start} when it holds none. */
  public long last() {
    long last = start;
    for (KafkaRecord r : records) {
      last = Math.max(last, r.offset());
    }
    for (RejectedRecord r : rejected) {
      if (r.offset() != null) {
        last = Math.max(last, r.offset());
      }
    }
    return last;
  }

  /** The part of this group from {@code offset} on, named from {@code offset}. */
  public ObjectGroup from(long offset) {
    List<KafkaRecord> rs = new ArrayList<>();
    for (KafkaRecord r : records) {
      if (r.offset() >= offset) {
        rs.add(r);
      }
    }
    List<RejectedRecord> rj = new ArrayList<>();
    for (RejectedRecord r : rejected) {
      if (r.offset() != null && r.offset() >= offset) {
        rj.add(r);
      }
    }
    return new ObjectGroup(topic, partition, offset, folderTime, rs, rj, folderValues);
  }

  /** The same records in another time folder (the record-variable values stay). */
  public ObjectGroup in(ZonedDateTime folder) {
    return new ObjectGroup(topic, partition, start, folder, records, rejected, folderValues);
  }

  /** The part of this group up to and including {@code offset}. */
  public ObjectGroup through(long offset) {
    List<KafkaRecord> rs = records.stream().filter(r -> r.offset() <= offset).toList();
    List<RejectedRecord> rj =
        rejected.stream().filter(r -> r.offset() != null && r.offset() <= offset).toList();
    return new ObjectGroup(topic, partition, start, folderTime, rs, rj, folderValues);
  }

  /** Offset range per partition (one partition at most), for failure reports. */
  public Map<Integer, OffsetRange> offsetRanges() {
    Map<Integer, OffsetRange> ranges = new TreeMap<>();
    if (placed()) {
      ranges.put(partition, new OffsetRange(start, last()));
    }
    return ranges;
  }

  /**
   * The deterministic id of this group's object: a name-based UUID of topic, partition, first
   * offset and format. It hangs on nothing a re-formed batch changes (its end, its partition mix),
   * so every delivery that starts a partition's object at this offset names it the same.
   */
  public UUID jobId(String format) {
    StringBuilder name = new StringBuilder(topic);
    if (placed()) {
      name.append('|').append(partition).append(':').append(start);
    } else {
      // Records rejected without partition or offset: named by their raw JSON, so two different
      // batches of such records never share (and overwrite) a key.
      for (RejectedRecord r : rejected) {
        name.append("|raw:")
            .append(
                r.rawRecordJson() != null
                    ? r.rawRecordJson()
                    // a misrouted record: its place in its own topic's log names it
                    : r.topic() + "-" + r.partition() + ":" + r.offset());
      }
    }
    name.append('|').append(format);
    return UUID.nameUUIDFromBytes(name.toString().getBytes(StandardCharsets.UTF_8));
  }

  public int recordCount() {
    return records.size() + rejected.size();
  }

  private static Integer partitionOf(List<KafkaRecord> records, List<RejectedRecord> rejected) {
    if (!records.isEmpty()) {
      return records.get(0).partition();
    }
    return rejected.stream()
        .filter(r -> r.partition() != null && r.offset() != null)
        .map(RejectedRecord::partition)
        .findFirst()
        .orElse(null);
  }

  private static long firstOffset(List<KafkaRecord> records, List<RejectedRecord> rejected) {
    long first = Long.MAX_VALUE;
    for (KafkaRecord r : records) {
      first = Math.min(first, r.offset());
    }
    for (RejectedRecord r : rejected) {
      if (r.partition() != null && r.offset() != null) {
        first = Math.min(first, r.offset());
      }
    }
    return first == Long.MAX_VALUE ? -1 : first; // -1: no partition either (see placed())
  }

  /** First and last offset of one partition within a group. */
  public record OffsetRange(long first, long last) {}
}
