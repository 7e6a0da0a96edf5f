package io.kafkas3archiver.report;

import io.kafkas3archiver.decode.RejectedRecord;
import java.util.List;

/**
 * What happened to one topic's records in a batch: {@code recordsIn = recordsWritten +
 * recordsErrored + tombstonesSkipped + recordsFailed + recordsAlreadyArchived + recordsDeferred}.
 * Failed records are in groups whose objects were not written; deferred ones were held back by the
 * fan-out guard. Both will be redelivered. Already archived records were found in objects an
 * earlier delivery of the same offsets wrote, so nothing was written. {@code rejected} are the
 * records written to error objects, for the DEBUG log lines. {@code timeFallbacks} counts records
 * placed by their Kafka timestamp because their time field was missing or unreadable ({@code
 * PARTITION_TIME=field}). {@code valuesOverflowed} counts values of written csv or parquet rows
 * that went, exact, to the {@code _overflow} column because their column's type cannot hold them.
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
    int failedUploadRetries,
    List<RejectedRecord> rejected,
    int recordsDeferred,
    int timeFallbacks,
    int valuesOverflowed) {

  public TopicOutcome {
    objects = List.copyOf(objects);
    rejected = List.copyOf(rejected);
  }

  /** For formats without columns (json, ndjson, iceberg): no value overflows a column. */
  public TopicOutcome(
      String topic,
      int recordsIn,
      int recordsWritten,
      int recordsErrored,
      int tombstonesSkipped,
      int recordsFailed,
      int recordsAlreadyArchived,
      long earliestTimestamp,
      List<WrittenObject> objects,
      int failedUploadRetries,
      List<RejectedRecord> rejected,
      int recordsDeferred,
      int timeFallbacks) {
    this(
        topic,
        recordsIn,
        recordsWritten,
        recordsErrored,
        tombstonesSkipped,
        recordsFailed,
        recordsAlreadyArchived,
        earliestTimestamp,
        objects,
        failedUploadRetries,
        rejected,
        recordsDeferred,
        timeFallbacks,
        0);
  }

  /**
   * Retries of the uploads that wrote an object, plus {@code failedUploadRetries}: those of the
   * ones that finally failed and of the ones that met an existing key (412), such as their own
   * first write whose answer was lost.
   */
  public int uploadRetries() {
    return objects.stream().mapToInt(o -> o.attempts() - 1).sum() + failedUploadRetries;
  }
}
