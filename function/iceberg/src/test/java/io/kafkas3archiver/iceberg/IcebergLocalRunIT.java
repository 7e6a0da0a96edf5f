package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.BoundedProcess;
import io.kafkas3archiver.testing.StdoutCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/iceberg.md's "Run it locally", as a user runs it: {@code --kafka --serve} archives sample
 * events from an in-process broker into the table, then the PyIceberg and DuckDB snippets the run
 * printed are run as printed (with .venv's python) while the servers are still up. Both must read
 * every produced offset exactly once.
 */
class IcebergLocalRunIT {
  private static final Pattern PRODUCED =
      Pattern.compile("produced 120 vehicle events .* to vehicle-telemetry: (.*)");
  private static final Pattern END_OFFSET = Pattern.compile("vehicle-telemetry-(\\d+)=(\\d+)");

  @Test
  void shouldArchiveAKafkaTopicIntoATableThatThePrintedReaderSnippetsRead() throws Exception {
    List<String> lines;
    IcebergLocalRun.Served served;
    try (StdoutCapture out = new StdoutCapture()) {
      served =
          IcebergLocalRun.run(
              new String[] {
                "--kafka", "--records", "120", "--serve", "--s3-port", "0", "--catalog-port", "0"
              },
              Map.of("TITLE", "local-run-it"));
      lines = out.lines();
    }
    try (served) {
      Map<Integer, Long> produced = producedPerPartition(lines);
      assertThat(produced.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(120);
      assertThat(lines)
          .anyMatch(
              l ->
                  l.matches(
                      "table kafka.vehicle_telemetry: \\d+ snapshot\\(s\\), 120 row\\(s\\) in .*"));
      assertThat(served.snippets()).hasSize(2);

      String pyiceberg = runSnippet(served.snippets().get(0));
      String duckdb = runSnippet(served.snippets().get(1));

      produced.forEach(
          (partition, endOffset) -> {
            // Each offset once: as many rows as distinct offsets, and those are 0..end-1.
            assertThat(pyiceberg)
                .contains(
                    "partition %d: %d rows, %d distinct offsets, 0..%d"
                        .formatted(partition, endOffset, endOffset, endOffset - 1));
            assertThat(duckdbRow(duckdb, partition))
                .as("DuckDB's row for partition %d in%n%s", partition, duckdb)
                .containsExactly(partition.longValue(), endOffset, endOffset, 0L, endOffset - 1);
          });
      assertThat(pyiceberg).contains("'vehicleId': 'KA-");
    }
  }

  /** "vehicle-telemetry-0=41, vehicle-telemetry-1=..." from the run's "produced" line. */
  private static Map<Integer, Long> producedPerPartition(List<String> lines) {
    Map<Integer, Long> out = new LinkedHashMap<>();
    for (String line : lines) {
      Matcher m = PRODUCED.matcher(line);
      if (m.matches()) {
        Matcher p = END_OFFSET.matcher(m.group(1));
        while (p.find()) {
          out.put(Integer.parseInt(p.group(1)), Long.parseLong(p.group(2)));
        }
      }
    }
    assertThat(out).as("the run's 'produced' line in %s", lines).isNotEmpty();
    return out;
  }

  /**
   * Runs a printed {@code .venv/bin/python - <<'EOF' ... EOF} snippet: its body on the standard
   * input of the checkout's .venv python, as the shell would.
   */
  private static String runSnippet(String snippet) throws Exception {
    List<String> lines = snippet.lines().toList();
    assertThat(lines.get(0)).isEqualTo(".venv/bin/python - <<'EOF'");
    assertThat(lines.get(lines.size() - 1)).isEqualTo("EOF");
    String body = String.join("\n", lines.subList(1, lines.size() - 1)) + "\n";
    assertThat(IndependentReadersIT.PYTHON)
        .as("run .ci/setup-tools: it installs .ci/requirements.txt")
        .exists();
    BoundedProcess.Result run =
        BoundedProcess.run(
            new ProcessBuilder(IndependentReadersIT.PYTHON.toString(), "-"),
            body,
            Duration.ofSeconds(120));
    String out = run.output();
    assertThat(run.finished()).as("the snippet finished within 120 s:%n%s", out).isTrue();
    assertThat(run.exitCode()).as(out).isZero();
    System.out.println(out);
    return out;
  }

  /** The numbers of DuckDB's box row that starts with this partition. */
  private static List<Long> duckdbRow(String box, int partition) {
    for (String line : box.lines().toList()) {
      List<Long> cells = new ArrayList<>();
      for (String cell : line.split("│")) {
        if (cell.isBlank()) {
          continue;
        }
        if (!cell.trim().matches("-?\\d+")) {
          cells.clear();
          break;
        }
        cells.add(Long.parseLong(cell.trim()));
      }
      if (!cells.isEmpty() && cells.get(0) == partition) {
        return cells;
      }
    }
    return List.of();
  }
}
