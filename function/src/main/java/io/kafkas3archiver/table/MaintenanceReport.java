package io.kafkas3archiver.table;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.report.JsonText;
import java.io.IOException;
import java.util.List;

/**
 * What {@code {"action":"maintain"}} did to each table: the small files it rewrote in one replace
 * commit, the snapshots it expired, and how it ended. It is the invocation's answer and log line.
 */
public record MaintenanceReport(String title, List<TableMaintenance> tables) {

  public MaintenanceReport {
    tables = List.copyOf(tables);
  }

  /** How one table's maintenance ended. */
  public enum Outcome {
    /** The rewrite (if any was needed) committed and snapshots were expired. */
    DONE,
    /** Other writers kept winning the commit; nothing was changed, the next run tries again. */
    GAVE_UP_ON_CONFLICTS,
    /** The catalog could not confirm the rewrite; the next run sees whether it landed. */
    COMMIT_STATE_UNKNOWN,
    /** The invocation's time ran out before this table; the next run starts with it. */
    OUT_OF_TIME,
    /** The catalog or storage failed; {@code error} names the cause. */
    FAILED
  }

  /**
   * @param filesRewritten small data files replaced (0 when every partition-hour had at most one)
   * @param filesWritten the larger files that replaced them
   * @param rewriteSnapshotId the replace commit, -1 when none
   * @param attempts rewrite commit attempts (more than 1 after a conflict with a live commit)
   * @param error the cause when {@code outcome} is not DONE, else null
   */
  public record TableMaintenance(
      String table,
      Outcome outcome,
      int partitionsRewritten,
      int filesRewritten,
      int filesWritten,
      long rowsRewritten,
      long rewriteSnapshotId,
      int snapshotsExpired,
      int attempts,
      long millis,
      String error) {}

  public boolean ok() {
    return tables.stream().allMatch(t -> t.outcome() == Outcome.DONE);
  }

  public String toJson() {
    return JsonText.of(this::write);
  }

  /** One structured log line: WARN when a table was left for the next run. */
  public String toLogLine(String requestId) {
    return JsonText.logLine(
        ok() ? "INFO" : "WARN",
        "iceberg maintenance",
        title,
        requestId,
        g -> {
          g.writeFieldName("report");
          write(g);
        });
  }

  private void write(JsonGenerator g) throws IOException {
    g.writeStartObject();
    g.writeBooleanField("ok", ok());
    g.writeArrayFieldStart("tables");
    for (TableMaintenance t : tables) {
      g.writeStartObject();
      g.writeStringField("table", t.table());
      g.writeStringField("outcome", t.outcome().name());
      g.writeNumberField("partitionsRewritten", t.partitionsRewritten());
      g.writeNumberField("filesRewritten", t.filesRewritten());
      g.writeNumberField("filesWritten", t.filesWritten());
      g.writeNumberField("rowsRewritten", t.rowsRewritten());
      g.writeNumberField("rewriteSnapshotId", t.rewriteSnapshotId());
      g.writeNumberField("snapshotsExpired", t.snapshotsExpired());
      g.writeNumberField("attempts", t.attempts());
      g.writeNumberField("millis", t.millis());
      if (t.error() != null) {
        g.writeStringField("error", t.error());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }
}
