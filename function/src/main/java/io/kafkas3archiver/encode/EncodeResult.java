package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.RejectedRecord;
import java.util.List;

/**
 * What an encoder did with a group's records: every record is a row written, a tombstone skipped,
 * or rejected (to the error object), and the three add up to the records given.
 */
public record EncodeResult(int rowsWritten, int tombstonesSkipped, List<RejectedRecord> rejected) {
  public EncodeResult {
    rejected = List.copyOf(rejected);
  }
}
