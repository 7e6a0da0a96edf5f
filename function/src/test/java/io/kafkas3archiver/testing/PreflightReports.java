package io.kafkas3archiver.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Reading a preflight report's steps in tests. */
public final class PreflightReports {
  private PreflightReports() {}

  /** Each step as {@code name=STATUS}, in the report's order. */
  public static List<String> statuses(JsonNode report) {
    List<String> out = new ArrayList<>();
    report
        .path("steps")
        .forEach(s -> out.add(s.path("name").asText() + "=" + s.path("status").asText()));
    return out;
  }

  /** The step of that name; fails the test when the report has none. */
  public static JsonNode step(JsonNode report, String name) {
    for (JsonNode s : report.path("steps")) {
      if (s.path("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no step " + name + " in " + report);
  }
}
