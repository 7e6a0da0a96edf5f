package io.kafkas3archiver.preflight;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.report.JsonText;
import java.io.IOException;
import java.util.List;

/**
 * The result of a preflight check: each step with its status and advice, and an example of the key
 * layout that archiving will write. Rendered as one JSON document; it never holds a credential.
 */
public record PreflightReport(
    String title,
    String bucket,
    String region,
    String endpoint,
    String credentials,
    List<Step> steps,
    KeyLayout keyLayout) {

  /** How a step went. Only FAIL makes the report fail; WARN is advice that does not block. */
  public enum Status {
    PASS,
    WARN,
    FAIL,
    SKIPPED
  }

  /**
   * One step: its name, status, what was observed, and for WARN/FAIL what to do, with the stable
   * errorType.
   */
  public record Step(String name, Status status, String detail, String advice, String errorType) {
    static Step pass(String name, String detail) {
      return new Step(name, Status.PASS, detail, null, null);
    }

    static Step skipped(String name, String why) {
      return new Step(name, Status.SKIPPED, why, null, null);
    }
  }

  /** Where objects will go: the template, an example data key, an example error key. */
  public record KeyLayout(
      String template, String exampleKey, String exampleErrorKey, String probeKey, String note) {}

  public PreflightReport {
    steps = List.copyOf(steps);
  }

  /** True when no step failed. */
  public boolean ok() {
    return steps.stream().noneMatch(s -> s.status() == Status.FAIL);
  }

  public Step step(String name) {
    return steps.stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no step " + name));
  }

  /** The report as the invocation's JSON response. */
  public String toJson() {
    return JsonText.of(this::write);
  }

  /** One structured log line: level, message, request id and the report. */
  public String toLogLine(String requestId) {
    return JsonText.logLine(
        ok() ? "INFO" : "ERROR",
        ok() ? "preflight passed" : "preflight failed",
        title,
        requestId,
        g -> {
          for (Step s : steps) {
            if (s.status() == Status.FAIL) {
              g.writeStringField("errorType", s.errorType());
              break;
            }
          }
          g.writeFieldName("report");
          write(g);
        });
  }

  private void write(JsonGenerator g) throws IOException {
    g.writeStartObject();
    g.writeStringField("action", "preflight");
    g.writeBooleanField("ok", ok());
    g.writeStringField("title", title);
    g.writeStringField("bucket", bucket);
    g.writeStringField("region", region);
    g.writeStringField("endpoint", endpoint);
    g.writeStringField("credentials", credentials);
    g.writeArrayFieldStart("steps");
    for (Step s : steps) {
      g.writeStartObject();
      g.writeStringField("name", s.name());
      g.writeStringField("status", s.status().name());
      g.writeStringField("detail", s.detail());
      if (s.advice() != null) {
        g.writeStringField("advice", s.advice());
      }
      if (s.errorType() != null) {
        g.writeStringField("errorType", s.errorType());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeObjectFieldStart("keyLayout");
    g.writeStringField("template", keyLayout.template());
    g.writeStringField("exampleKey", keyLayout.exampleKey());
    g.writeStringField("exampleErrorKey", keyLayout.exampleErrorKey());
    g.writeStringField("probeKey", keyLayout.probeKey());
    g.writeStringField("note", keyLayout.note());
    g.writeEndObject();
    g.writeEndObject();
  }
}
