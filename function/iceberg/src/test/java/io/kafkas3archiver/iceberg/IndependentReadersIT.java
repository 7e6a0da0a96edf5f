package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.testing.BoundedProcess;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The table the handler committed, read by PyIceberg 0.12.0 and DuckDB 1.4.4's iceberg extension
 * (both from .venv, pinned in .ci/requirements.txt): the same snapshot, and row for row the records
 * that went in, each offset once, after a redelivery.
 */
class IndependentReadersIT {
  /** The checkout's .venv (setup-tools), found from the module folder upwards. */
  static final Path PYTHON = checkoutPath(".venv/bin/python");

  private static Path checkoutPath(String relative) {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve(".ci"))) {
        return dir.resolve(relative);
      }
    }
    return Path.of(relative);
  }

  static final Path SCRIPT = Path.of("src/test/python/read_table.py");

  static IcebergHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = new IcebergHarness();
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  @Test
  void shouldReadTheSameRowsWithPyIcebergAndDuckDb() throws Exception {
    var fn = h.function(Map.of("COMPRESSION", "zstd"));
    List<String> expected = new ArrayList<>();
    EventBuilder first = new EventBuilder();
    EventBuilder redelivery = new EventBuilder();
    for (int p = 0; p < 2; p++) {
      for (long o = 0; o < 120; o++) {
        long ts = IcebergTableIT.T0 + o * 60_000L;
        if (o < 80) {
          first.add("readers", p, o, ts, null, IcebergTableIT.value(p, o));
        }
        if (o >= 40) {
          redelivery.add("readers", p, o, ts, null, IcebergTableIT.value(p, o));
        }
        expected.add(p + "@" + o + "|" + p + "-" + o + "|" + o + "|" + (o % 2 == 0) + "|" + ts);
      }
    }
    fn.invoke(first);
    fn.invoke(redelivery);
    long snapshot = h.table("readers").currentSnapshot().snapshotId();

    JsonNode result = read(h, "readers");

    expected.sort(null);
    assertThat(result.get("snapshot").asLong()).isEqualTo(snapshot);
    assertThat(strings(result.get("pyiceberg"))).hasSize(240).isEqualTo(expected);
    assertThat(strings(result.get("duckdb"))).isEqualTo(expected);
    Files.writeString(
        Path.of("target/independent-readers.txt"),
        "snapshot "
            + snapshot
            + ": pyiceberg "
            + result.get("pyiceberg").size()
            + " rows, duckdb "
            + result.get("duckdb").size()
            + " rows, equal\n");
  }

  /**
   * Runs read_table.py: {"snapshot": id, "pyiceberg": [rows], "duckdb": [rows]}, each row
   * "partition@offset|id|n|ok|timestamp_ms".
   */
  static JsonNode read(IcebergHarness h, String table) throws Exception {
    assertThat(PYTHON).as("run .ci/setup-tools: it installs .ci/requirements.txt").exists();
    ProcessBuilder builder =
        new ProcessBuilder(
            PYTHON.toString(),
            SCRIPT.toString(),
            h.rest.uri().toString(),
            h.s3.endpoint().toString(),
            S3ProxyServer.ACCESS_KEY,
            S3ProxyServer.SECRET_KEY,
            IcebergHarness.DATABASE,
            table);
    BoundedProcess.Result run = BoundedProcess.run(builder, "", Duration.ofSeconds(120));
    assertThat(run.finished()).as("the reader finished within 120 s:%n%s", run.output()).isTrue();
    assertThat(run.exitCode()).as(run.output()).isZero();
    // The JSON document is one line; the other lines are the reader's warnings (stderr).
    String json =
        run.output()
            .lines()
            .filter(l -> l.startsWith("{"))
            .reduce((first, last) -> last)
            .orElseThrow(() -> new AssertionError("no JSON line in:\n" + run.output()));
    return new ObjectMapper().readTree(json);
  }

  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
