package io.kafkas3archiver.report;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.config.LogLevel;
import io.kafkas3archiver.decode.ParseProblem;
import io.kafkas3archiver.decode.RejectedRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * One structured JSON line per invocation, to stdout (CloudWatch Logs in Lambda): counts, bytes
 * before and after compression, keys, duration, batch age and retries; for failures a stable {@code
 * errorType} with the advice text. At DEBUG, one more line per object written. Messages come from
 * the classifier and never hold credentials. Keys are shown through {@code shownKey}, which masks
 * the segments a key template fills from record content (DESIGN §6); the DEBUG lines, written only
 * at {@code LOG_LEVEL=debug}, carry the full key.
 */
public final class InvocationLog {
  private final PrintStream out;
  private final String title;
  private final LogLevel threshold;
  private final UnaryOperator<String> shownKey;

  /** For keys that hold no record content. */
  public InvocationLog(PrintStream out, String title, LogLevel threshold) {
    this(out, title, threshold, UnaryOperator.identity());
  }

  public InvocationLog(
      PrintStream out, String title, LogLevel threshold, UnaryOperator<String> shownKey) {
    this.out = out;
    this.title = title;
    this.threshold = threshold;
    this.shownKey = shownKey;
  }

  public void batch(
      String requestId, String eventSource, BatchOutcome o, long durationMs, long nowMillis) {
    if (threshold.allows(LogLevel.DEBUG)) {
      for (WrittenObject w : o.objects()) {
        write(
            LogLevel.DEBUG,
            "object written",
            requestId,
            g -> {
              g.writeStringField("key", w.key());
              g.writeStringField("kind", w.kind().name());
              g.writeNumberField("rows", w.rows());
              g.writeNumberField("bytesBeforeCompression", w.rawBytes());
              g.writeNumberField("bytes", w.bytes());
              g.writeNumberField("attempts", w.attempts());
              g.writeNumberField("uploadMillis", w.millis());
            });
      }
    }
    if (threshold.allows(LogLevel.DEBUG)) {
      for (RejectedRecord r : o.rejected()) {
        write(LogLevel.DEBUG, "record sent to the error object", requestId, g -> rejected(g, r));
      }
    }
    LogLevel level = o.succeeded() ? LogLevel.INFO : LogLevel.ERROR;
    write(
        level,
        o.succeeded() ? "batch archived" : "batch not fully archived",
        requestId,
        g -> {
          g.writeStringField("eventSource", eventSource);
          g.writeNumberField("recordsIn", o.recordsIn());
          g.writeNumberField("recordsWritten", o.recordsWritten());
          g.writeNumberField("recordsErrored", o.recordsErrored());
          g.writeNumberField("tombstonesSkipped", o.tombstonesSkipped());
          g.writeNumberField("recordsFailed", o.recordsFailed());
          g.writeNumberField("recordsAlreadyArchived", o.recordsAlreadyArchived());
          if (o.recordsDeferred() > 0) {
            // The fan-out guard's doing, not a failure: these come back as a new batch.
            g.writeNumberField("recordsDeferred", o.recordsDeferred());
            g.writeObjectFieldStart("deferredFrom");
            for (var e : new java.util.TreeMap<>(o.deferredFrom()).entrySet()) {
              g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
          }
          if (o.timeFallbacks() > 0) {
            g.writeNumberField("timeFallbacks", o.timeFallbacks());
          }
          if (o.valuesOverflowed() > 0) {
            // csv/parquet: values kept exact in _overflow because their column's type cannot
            // hold them (a string where numbers were, a fraction in a bigint column).
            g.writeNumberField("valuesOverflowed", o.valuesOverflowed());
          }
          g.writeNumberField("objectsWritten", o.objects().size());
          g.writeNumberField(
              "bytesBeforeCompression",
              o.objects().stream().mapToLong(WrittenObject::rawBytes).sum());
          g.writeNumberField(
              "bytesWritten", o.objects().stream().mapToLong(WrittenObject::bytes).sum());
          g.writeNumberField("uploadRetries", o.uploadRetries());
          if (o.earliestTimestamp() >= 0) {
            g.writeNumberField("batchAgeMs", Math.max(0, nowMillis - o.earliestTimestamp()));
          }
          g.writeNumberField("durationMs", durationMs);
          if (!o.commits().isEmpty()) {
            writeCommits(g, o);
          }
          g.writeArrayFieldStart("keys");
          for (WrittenObject w : o.objects()) {
            g.writeString(shownKey.apply(w.key()));
          }
          g.writeEndArray();
          if (!o.succeeded()) {
            var first = o.failures().get(0).error();
            g.writeStringField("errorType", first.type().label());
            g.writeStringField("error", first.getMessage());
            g.writeObjectFieldStart("failedTopicPartitions");
            for (var e : o.firstUnwrittenOffsets().entrySet()) {
              g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
          }
        });
  }

  /**
   * Table output: records skipped as already committed (so that {@code recordsIn = recordsWritten +
   * recordsErrored + tombstonesSkipped + recordsFailed + recordsAlreadyCommitted}), commit retries,
   * the slowest commit and each commit's snapshot.
   */
  private static void writeCommits(JsonGenerator g, BatchOutcome o) throws IOException {
    g.writeNumberField("recordsAlreadyCommitted", o.recordsAlreadyCommitted());
    g.writeNumberField("commitRetries", o.commits().stream().mapToInt(TableCommit::retries).sum());
    g.writeNumberField(
        "commitLatencyMs",
        o.commits().stream().mapToLong(TableCommit::latencyMillis).max().orElse(0));
    g.writeArrayFieldStart("tableCommits");
    for (TableCommit c : o.commits()) {
      g.writeStartObject();
      g.writeStringField("table", c.table());
      g.writeNumberField("snapshotId", c.snapshotId());
      g.writeNumberField("rowsAppended", c.rowsAppended());
      g.writeNumberField("recordsAlreadyCommitted", c.recordsAlreadyCommitted());
      g.writeNumberField("dataFiles", c.dataFiles());
      g.writeNumberField("attempts", c.attempts());
      g.writeNumberField("latencyMs", c.latencyMillis());
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /**
   * Where the record was and why it was rejected, with lengths and a masked excerpt: enough to find
   * it in the error object, no payload byte (the error object holds the raw value).
   */
  private static void rejected(JsonGenerator g, RejectedRecord r) throws IOException {
    g.writeStringField("topic", r.topic());
    if (r.partition() != null) {
      g.writeNumberField("partition", r.partition());
    }
    if (r.offset() != null) {
      g.writeNumberField("offset", r.offset());
    }
    g.writeStringField("reason", r.reason());
    byte[] raw;
    if (r.record() != null) {
      raw = r.record().value();
      g.writeNumberField("keyBytes", r.record().key() == null ? -1 : r.record().key().length);
      g.writeNumberField("valueBytes", raw == null ? -1 : raw.length);
    } else {
      raw = r.rawRecordJson() == null ? null : r.rawRecordJson().getBytes(StandardCharsets.UTF_8);
      g.writeNumberField("rawRecordBytes", raw == null ? -1 : raw.length);
    }
    if (raw != null) {
      g.writeStringField("maskedExcerpt", ParseProblem.maskedExcerpt(raw, 0, raw.length));
    }
  }

  /**
   * A failure before any object was attempted (a bad event, an unknown action). {@code debugDetail}
   * (where the parser stopped, a masked excerpt) is written only when LOG_LEVEL=debug.
   */
  public void rejectedEvent(
      String requestId, String errorType, String message, String debugDetail) {
    write(
        LogLevel.ERROR,
        "invocation rejected",
        requestId,
        g -> {
          g.writeStringField("errorType", errorType);
          g.writeStringField("error", message);
          if (debugDetail != null && threshold.allows(LogLevel.DEBUG)) {
            g.writeStringField("debugDetail", debugDetail);
          }
        });
  }

  private void write(LogLevel level, String message, String requestId, JsonText.Writer fields) {
    if (!threshold.allows(level)) {
      return;
    }
    out.println(JsonText.logLine(level.name(), message, title, requestId, fields));
  }
}
