package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.RejectedRecord;
import java.util.List;

/**
 * What an encoder did with a group's records: every record is a row written, a tombstone skipped,
 * or rejected (to the error object), and the three add up to the records given. {@code
 * valuesOverflowed} counts the values (in rows written) that went to csv's or parquet's {@code
 * _overflow} column because their column's type cannot hold them exactly.
 */
public record EncodeResult(
    int rowsWritten, int tombstonesSkipped, List<RejectedRecord> rejected, int valuesOverflowed) {
  public EncodeResult {
    rejected = List.copyOf(rejected);
  }

  public EncodeResult(int rowsWritten, int tombstonesSkipped, List<RejectedRecord> rejected) {
    this(rowsWritten, tombstonesSkipped, rejected, 0);
  }
}
