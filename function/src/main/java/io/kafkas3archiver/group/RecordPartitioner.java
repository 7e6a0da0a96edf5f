package io.kafkas3archiver.group;

import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads what a record's folder depends on (DESIGN §8): the rendered values of the key template's
 * record variables, in template order, and, under {@code PARTITION_TIME=field}, the event time.
 * Value paths and the time field are read in one streaming pass over the value.
 */
public final class RecordPartitioner {
  /** For templates without record variables and without a time field: reads nothing. */
  public static final RecordPartitioner NONE = new RecordPartitioner(List.of(), null, 0);

  /** Where a record goes, before the time is truncated to its folder. */
  public record Placement(List<String> values, Instant eventTime) {}

  private static final Placement EMPTY = new Placement(List.of(), null);

  private final List<RecordField> fields;
  private final TimeField timeField;
  private final int maxValueBytes;
  private final ValueExtractor extractor;

  /** For each field, its index among the extractor's paths, or -1 when it is not a value path. */
  private final int[] pathIndex;

  private final int timeIndex;

  public RecordPartitioner(List<RecordField> fields, TimeField timeField, int maxValueBytes) {
    this.fields = List.copyOf(fields);
    this.timeField = timeField;
    this.maxValueBytes = maxValueBytes;
    List<List<String>> paths = new ArrayList<>();
    this.pathIndex = new int[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i) instanceof RecordField.ValueField v) {
        pathIndex[i] = paths.size();
        paths.add(v.path());
      } else {
        pathIndex[i] = -1;
      }
    }
    if (timeField != null) {
      timeIndex = paths.size();
      paths.add(timeField.path());
    } else {
      timeIndex = -1;
    }
    this.extractor = new ValueExtractor(paths);
  }

  /** Whether records can land in more folders than their Kafka time alone would give. */
  public boolean readsRecords() {
    return !fields.isEmpty() || timeField != null;
  }

  /** Whether the key template has record variables (not only a time field). */
  public boolean hasRecordFields() {
    return !fields.isEmpty();
  }

  public boolean usesTimeField() {
    return timeField != null;
  }

  public Placement place(KafkaRecord r) {
    if (!readsRecords()) {
      return EMPTY;
    }
    String[] found = extractor.size() == 0 ? null : extractor.extract(r.value());
    List<String> values = new ArrayList<>(fields.size());
    for (int i = 0; i < fields.size(); i++) {
      byte[] raw =
          switch (fields.get(i)) {
            case RecordField.ValueField v -> utf8(found[pathIndex[i]]);
            case RecordField.KeyField k -> r.key();
            case RecordField.HeaderField h -> lastHeader(r, h.name());
          };
      values.add(PartitionValue.render(raw, maxValueBytes));
    }
    Instant time = timeIndex < 0 ? null : timeOf(found[timeIndex]);
    return new Placement(List.copyOf(values), time);
  }

  /** Where a record that could not be decoded goes: every value is the default partition. */
  public List<String> defaults() {
    return fields.stream().map(f -> PartitionValue.HIVE_DEFAULT).toList();
  }

  private Instant timeOf(String text) {
    return text == null ? null : timeField.format().parse(text);
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] lastHeader(KafkaRecord r, String name) {
    byte[] value = null;
    boolean present = false;
    for (Header h : r.headers()) {
      if (h.name().equals(name)) {
        value = h.value();
        present = true;
      }
    }
    return present ? value : null;
  }
}
