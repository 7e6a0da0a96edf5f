package io.kafkas3archiver.report;

import java.util.List;

/**
 * One table commit of a batch (OUTPUT_FORMAT=iceberg): which table and snapshot, how many rows it
 * appended, how many records a redelivery brought that the table already held (skipped, by the
 * offsets in the snapshot summary), how many attempts the optimistic commit took and how long.
 * {@code snapshotId} is -1 when nothing was left to append.
 */
public record TableCommit(
    String table,
    List<String> topics,
    long snapshotId,
    int rowsAppended,
    int recordsAlreadyCommitted,
    int dataFiles,
    int attempts,
    long latencyMillis) {

  public TableCommit {
    topics = List.copyOf(topics);
  }

  /** Attempts after the first: each one followed a conflict with another writer. */
  public int retries() {
    return Math.max(0, attempts - 1);
  }
}
