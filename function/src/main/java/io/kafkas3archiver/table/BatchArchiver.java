package io.kafkas3archiver.table;

import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.report.BatchOutcome;

/**
 * Archives one decoded batch and says what happened to every record. The pipeline puts objects; a
 * table writer (the iceberg artifact) commits to a table. The handler holds one, chosen at init
 * from {@code OUTPUT_FORMAT}. It lives here, downstream of the handler, so that table writers need
 * nothing from the root package (no package cycle).
 */
public interface BatchArchiver {
  BatchOutcome archive(KafkaBatch batch, Deadline deadline);

  /**
   * {@code {"action":"maintain"}}: compact small files and expire old snapshots. Only tables have
   * anything to maintain; the file formats refuse it.
   */
  default MaintenanceReport maintain(Deadline deadline) {
    throw new ConfigException(
        "{\"action\":\"maintain\"} maintains Iceberg tables, and this function writes files:"
            + " invoke it only with OUTPUT_FORMAT=iceberg (the infrastructure schedules it only"
            + " then)");
  }
}
