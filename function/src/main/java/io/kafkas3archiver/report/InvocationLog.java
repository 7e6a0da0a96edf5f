package io.kafkas3archiver.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * One structured JSON line per invocation, to stdout (CloudWatch Logs in Lambda). It carries
 * counts, bytes, keys and duration, and for failures a stable {@code errorType} with the advice
 * text.
 */
public final class InvocationLog {
  private static final JsonFactory FACTORY = new JsonFactory();
  private final PrintStream out;
  private final String title;

  public InvocationLog(PrintStream out, String title) {
    this.out = out;
    this.title = title;
  }

  public void batch(
      String requestId, String eventSource, BatchOutcome o, long durationMs, long nowMillis) {
    StringWriter line = new StringWriter(256);
    try (JsonGenerator g = FACTORY.createGenerator(line)) {
      g.writeStartObject();
      g.writeStringField("level", o.succeeded() ? "INFO" : "ERROR");
      g.writeStringField("message", o.succeeded() ? "batch archived" : "batch not fully archived");
      g.writeStringField("title", title);
      g.writeStringField("requestId", requestId);
      g.writeStringField("eventSource", eventSource);
      g.writeNumberField("recordsIn", o.recordsIn());
      g.writeNumberField("recordsWritten", o.recordsWritten());
      g.writeNumberField("recordsErrored", o.recordsErrored());
      g.writeNumberField("tombstonesSkipped", o.tombstonesSkipped());
      g.writeNumberField("recordsFailed", o.recordsFailed());
      g.writeNumberField("objectsWritten", o.objects().size());
      g.writeNumberField(
          "bytesBeforeCompression", o.objects().stream().mapToLong(WrittenObject::rawBytes).sum());
      g.writeNumberField(
          "bytesWritten", o.objects().stream().mapToLong(WrittenObject::bytes).sum());
      g.writeNumberField("uploadRetries", o.uploadRetries());
      if (o.earliestTimestamp() >= 0) {
        g.writeNumberField("batchAgeMs", Math.max(0, nowMillis - o.earliestTimestamp()));
      }
      g.writeNumberField("durationMs", durationMs);
      g.writeArrayFieldStart("keys");
      for (WrittenObject w : o.objects()) {
        g.writeString(w.key());
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
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.println(line);
  }

  /** A failure before any object was attempted (a bad event). */
  public void rejectedEvent(String requestId, String errorType, String message) {
    StringWriter line = new StringWriter(256);
    try (JsonGenerator g = FACTORY.createGenerator(line)) {
      g.writeStartObject();
      g.writeStringField("level", "ERROR");
      g.writeStringField("message", "invocation rejected");
      g.writeStringField("title", title);
      g.writeStringField("requestId", requestId);
      g.writeStringField("errorType", errorType);
      g.writeStringField("error", message);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.println(line);
  }
}
