package io.kafkas3archiver.report;

import io.kafkas3archiver.remote.UploadException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * What happened to one batch, per topic. Every record in is accounted for: {@code recordsIn =
 * recordsWritten + recordsErrored + tombstonesSkipped + recordsFailed + recordsAlreadyArchived +
 * recordsDeferred}. {@code deferredFrom} holds, per topic-partition, the first offset the fan-out
 * guard held back; those are reported as batch item failures, but are not failures: {@link
 * #succeeded()} ignores them.
 */
public record BatchOutcome(
    List<TopicOutcome> topics,
    List<Failure> failures,
    List<TableCommit> commits,
    Map<String, Long> deferredFrom) {

  public BatchOutcome {
    topics = List.copyOf(topics);
    failures = List.copyOf(failures);
    commits = List.copyOf(commits);
    deferredFrom = Map.copyOf(deferredFrom);
  }

  /** An object-format batch: no table commits. */
  public BatchOutcome(List<TopicOutcome> topics, List<Failure> failures) {
    this(topics, failures, List.of(), Map.of());
  }

  /** A table-format batch, nothing deferred. */
  public BatchOutcome(
      List<TopicOutcome> topics, List<Failure> failures, List<TableCommit> commits) {
    this(topics, failures, commits, Map.of());
  }

  /** Records a table commit skipped because an earlier delivery had committed them. */
  public int recordsAlreadyCommitted() {
    return commits.stream().mapToInt(TableCommit::recordsAlreadyCommitted).sum();
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

  public int valuesOverflowed() {
    return sum(TopicOutcome::valuesOverflowed);
  }

  public int tombstonesSkipped() {
    return sum(TopicOutcome::tombstonesSkipped);
  }

  public int recordsFailed() {
    return sum(TopicOutcome::recordsFailed);
  }

  public int recordsAlreadyArchived() {
    return sum(TopicOutcome::recordsAlreadyArchived);
  }

  /**
   * Whether a failure cannot be named in {@code batchItemFailures}: a record without partition or
   * offset whose error object was not written. Only failing the invocation gets it retried.
   */
  public boolean hasUnnamedFailure() {
    return failures.stream().anyMatch(f -> f.firstOffsets().isEmpty());
  }

  public int uploadRetries() {
    return sum(TopicOutcome::uploadRetries);
  }

  /** The records written to error objects, for DEBUG lines. */
  public List<io.kafkas3archiver.decode.RejectedRecord> rejected() {
    return topics.stream().flatMap(t -> t.rejected().stream()).toList();
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
