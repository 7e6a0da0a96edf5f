package io.kafkas3archiver.report;

import io.kafkas3archiver.upload.UploadException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What happened to one batch. Every record in is accounted for: {@code recordsIn = recordsWritten +
 * recordsErrored + tombstonesSkipped + recordsFailed}, where failed records belong to groups whose
 * objects were not written (they will be redelivered).
 */
public record BatchOutcome(
    int recordsIn,
    int recordsWritten,
    int recordsErrored,
    int tombstonesSkipped,
    int recordsFailed,
    long earliestTimestamp,
    List<WrittenObject> objects,
    List<Failure> failures) {

  public BatchOutcome {
    objects = List.copyOf(objects);
    failures = List.copyOf(failures);
  }

  public boolean succeeded() {
    return failures.isEmpty();
  }

  /** For each topic-partition that has unwritten records, its first unwritten offset. */
  public Map<String, Long> firstUnwrittenOffsets() {
    Map<String, Long> offsets = new TreeMap<>();
    for (Failure f : failures) {
      f.firstOffsets().forEach((tp, offset) -> offsets.merge(tp, offset, Math::min));
    }
    return offsets;
  }

  public int uploadRetries() {
    return objects.stream().mapToInt(o -> o.attempts() - 1).sum();
  }

  /** A group whose objects could not be written, and why. */
  public record Failure(String topic, Map<String, Long> firstOffsets, UploadException error) {
    public Failure {
      firstOffsets = Map.copyOf(firstOffsets);
    }
  }
}
