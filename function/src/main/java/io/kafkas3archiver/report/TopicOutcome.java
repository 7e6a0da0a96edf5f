package io.kafkas3archiver.report;

import java.util.List;

/**
 * What happened to one topic's records in a batch: {@code recordsIn = recordsWritten +
 * recordsErrored + tombstonesSkipped + recordsFailed + recordsAlreadyArchived}. Failed records are
 * in groups whose objects were not written; they will be redelivered. Already archived records were
 * found in objects an earlier delivery of the same offsets wrote, so nothing was written.
 */
public record TopicOutcome(
    String topic,
    int recordsIn,
    int recordsWritten,
    int recordsErrored,
    int tombstonesSkipped,
    int recordsFailed,
    int recordsAlreadyArchived,
    long earliestTimestamp,
    List<WrittenObject> objects,
    int failedUploadRetries) {

  public TopicOutcome {
    objects = List.copyOf(objects);
  }

  /** Retries of the uploads that succeeded plus those of the ones that finally failed. */
  public int uploadRetries() {
    return objects.stream().mapToInt(o -> o.attempts() - 1).sum() + failedUploadRetries;
  }
}
