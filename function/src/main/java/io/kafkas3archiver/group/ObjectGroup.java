package io.kafkas3archiver.group;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The records that go into one object: one topic (and one partition when the key template names
 * {@code ${PARTITION}} or a record variable), one time folder, and one set of {@code folderValues}:
 * the rendered values of the template's record variables, in template order (empty without them).
 * {@code rejected} are records of the same group that could not be decoded; they go to the group's
 * error object.
 */
public record ObjectGroup(
    String topic,
    ZonedDateTime folderTime,
    List<KafkaRecord> records,
    List<RejectedRecord> rejected,
    List<String> folderValues) {

  public ObjectGroup {
    records = List.copyOf(records);
    rejected = List.copyOf(rejected);
    folderValues = List.copyOf(folderValues);
  }

  public ObjectGroup(
      String topic,
      ZonedDateTime folderTime,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected) {
    this(topic, folderTime, records, rejected, List.of());
  }

  /** Offset range per partition over every record of the group, decoded or not. */
  public Map<Integer, OffsetRange> offsetRanges() {
    Map<Integer, OffsetRange> ranges = new TreeMap<>();
    for (KafkaRecord r : records) {
      ranges.merge(r.partition(), new OffsetRange(r.offset(), r.offset()), OffsetRange::span);
    }
    for (RejectedRecord r : rejected) {
      if (r.partition() != null && r.offset() != null) {
        ranges.merge(r.partition(), new OffsetRange(r.offset(), r.offset()), OffsetRange::span);
      }
    }
    return ranges;
  }

  /**
   * The deterministic id of this group's object: a name-based UUID of the topic, every partition's
   * first and last offset, and the format. A retried batch gets the same id, so it overwrites.
   */
  public UUID jobId(String format) {
    StringBuilder name = new StringBuilder(topic);
    offsetRanges()
        .forEach(
            (partition, range) ->
                name.append('|')
                    .append(partition)
                    .append(':')
                    .append(range.first())
                    .append('-')
                    .append(range.last()));
    // A record rejected without partition or offset is not in the ranges; name the object by its
    // raw JSON too, or two different batches of such records would share (and overwrite) a key.
    for (RejectedRecord r : rejected) {
      if (r.partition() == null || r.offset() == null) {
        name.append("|raw:").append(r.rawRecordJson());
      }
    }
    name.append('|').append(format);
    return UUID.nameUUIDFromBytes(name.toString().getBytes(StandardCharsets.UTF_8));
  }

  public int recordCount() {
    return records.size() + rejected.size();
  }

  /** First and last offset of one partition within a group. */
  public record OffsetRange(long first, long last) {
    OffsetRange span(OffsetRange other) {
      return new OffsetRange(Math.min(first, other.first), Math.max(last, other.last));
    }
  }
}
