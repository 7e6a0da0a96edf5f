package io.kafkas3archiver.report;

import io.kafkas3archiver.upload.UploadException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * What happened to one batch, per topic. Every record in is accounted for: {@code recordsIn =
 * recordsWritten + recordsErrored + tombstonesSkipped + recordsFailed + recordsDeferred}. {@code
 * deferredFrom} holds, per topic-partition, the first offset the fan-out guard held back; those are
 * reported as batch item failures, but are not failures: {@link #succeeded()} ignores them.
 */
public record BatchOutcome(
    List<TopicOutcome> topics, List<Failure> failures, Map<String, Long> deferredFrom) {

  public BatchOutcome {
    topics = List.copyOf(topics);
    failures = List.copyOf(failures);
    deferredFrom = Map.copyOf(deferredFrom);
  }

  public BatchOutcome(List<TopicOutcome> topics, List<Failure> failures) {
    this(topics, failures, Map.of());
  }

  public int recordsDeferred() {
    return sum(TopicOutcome::recordsDeferred);
  }

  public int timeFallbacks() {
    return sum(TopicOutcome::timeFallbacks);
  }

  public boolean succeeded() {
    return failures.isEmpty();
  }

  public int recordsIn() {
    return sum(TopicOutcome::recordsIn);
  }

  public int recordsWritten() {
    return sum(TopicOutcome::recordsWritten);
  }

  public int recordsErrored() {
    return sum(TopicOutcome::recordsErrored);
  }

  public int tombstonesSkipped() {
    return sum(TopicOutcome::tombstonesSkipped);
  }

  public int recordsFailed() {
    return sum(TopicOutcome::recordsFailed);
  }

  public int uploadRetries() {
    return sum(TopicOutcome::uploadRetries);
  }

  public List<WrittenObject> objects() {
    return topics.stream().flatMap(t -> t.objects().stream()).toList();
  }

  /** The earliest record timestamp of the batch, or -1 when no record carried one. */
  public long earliestTimestamp() {
    return topics.stream()
        .mapToLong(TopicOutcome::earliestTimestamp)
        .filter(t -> t >= 0)
        .min()
        .orElse(-1);
  }

  /**
   * For each topic-partition that has unwritten records (failed or deferred), its first unwritten
   * offset: what the batch item failures report.
   */
  public Map<String, Long> firstUnwrittenOffsets() {
    Map<String, Long> offsets = new TreeMap<>(deferredFrom);
    for (Failure f : failures) {
      f.firstOffsets().forEach((tp, offset) -> offsets.merge(tp, offset, Math::min));
    }
    return offsets;
  }

  private int sum(ToIntFunction<TopicOutcome> count) {
    return topics.stream().mapToInt(count).sum();
  }

  /** A group whose objects could not be written, and why. */
  public record Failure(String topic, Map<String, Long> firstOffsets, UploadException error) {
    public Failure {
      firstOffsets = Map.copyOf(firstOffsets);
    }
  }
}
