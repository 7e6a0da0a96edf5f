package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code {"action":"maintain"}} against the REST catalog on S3Proxy, while pollers commit: two
 * maintenance functions compact and expire (retention 0 h, keep 1) over and over beside four
 * pollers; afterwards every offset is in the table once (read by Iceberg, PyIceberg and DuckDB),
 * each partition-hour holds one data file, the newest (replace) snapshot still names every
 * partition's last offset, and a redelivery of everything appends nothing.
 */
class IcebergMaintenanceIT {
  static IcebergHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = new IcebergHarness();
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  /** Expire everything the rules allow: the offsets must survive on their own. */
  static final Map<String, String> AGGRESSIVE =
      Map.of("ICEBERG_SNAPSHOT_RETENTION_HOURS", "0", "ICEBERG_SNAPSHOTS_RETAINED", "1");

  @Test
  void shouldCompactDuringLiveCommitsWithoutLosingOrDuplicatingARow() throws Exception {
    String topic = "maintained";
    int pollers = 4;
    int batches = 10;
    int size = 20; // offsets 0..199 at one a minute: four partition-hours
    ExecutorService pool = Executors.newFixedThreadPool(pollers + 2);
    CountDownLatch go = new CountDownLatch(1);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Future<?>> writers = new ArrayList<>();
    for (int p = 0; p < pollers; p++) {
      int partition = p;
      var fn = h.function(Map.of());
      writers.add(
          pool.submit(
              () -> {
                go.await();
                for (int b = 0; b < batches; b++) {
                  fn.invoke(
                      IcebergTableIT.batch(
                          topic, partition, (long) b * size, (long) (b + 1) * size));
                }
                return null;
              }));
    }
    // The first batch creates the table; maintenance starts once it exists.
    h.function(Map.of()).invoke(IcebergTableIT.batch(topic, 0, 0, 1));
    List<Future<List<JsonNode>>> maintainers = new ArrayList<>();
    for (int m = 0; m < 2; m++) {
      var fn = h.function(AGGRESSIVE);
      maintainers.add(
          pool.submit(
              () -> {
                go.await();
                List<JsonNode> reports = new ArrayList<>();
                while (writing.get()) {
                  reports.add(report(fn.maintain().response()));
                }
                return reports;
              }));
    }
    go.countDown();
    for (Future<?> f : writers) {
      f.get();
    }
    writing.set(false);
    List<JsonNode> during = new ArrayList<>();
    for (Future<List<JsonNode>> f : maintainers) {
      during.addAll(f.get());
    }
    pool.shutdown();
    var maintain = h.function(AGGRESSIVE);
    JsonNode last = report(maintain.maintain().response());
    JsonNode again = report(maintain.maintain().response());

    long rewritesDuring =
        during.stream().filter(r -> table(r, topic).path("rewriteSnapshotId").asLong() > 0).count();
    long conflicts =
        during.stream()
            .filter(r -> !"DONE".equals(table(r, topic).path("outcome").asText()))
            .count();
    System.out.println(
        "IcebergMaintenanceIT: "
            + during.size()
            + " maintenance runs during live commits, "
            + rewritesDuring
            + " replace commits, "
            + conflicts
            + " left for the next run; final run "
            + last);
    assertThat(rewritesDuring)
        .as("replace commits that landed while pollers committed")
        .isPositive();
    assertThat(table(last, topic).path("outcome").asText()).isEqualTo("DONE");
    assertThat(table(again, topic).path("filesRewritten").asInt())
        .as("a second run right after finds nothing to do")
        .isZero();

    // Each offset once, and every offset there (offset 0 of partition 0 came twice).
    Map<String, Integer> seen = IcebergTableIT.occurrences(h.rows(topic));
    assertThat(seen).hasSize(pollers * batches * size);
    assertThat(seen.values()).allMatch(n -> n == 1);

    Table table = h.table(topic);
    assertThat(filesPerPartition(table).values()).allMatch(n -> n == 1);
    assertThat(filesPerPartition(table)).hasSize(4);

    // The newest snapshot is the replace commit, and it still names every partition's offset.
    Snapshot current = table.currentSnapshot();
    assertThat(current.operation()).isEqualTo(DataOperations.REPLACE);
    for (int p = 0; p < pollers; p++) {
      assertThat(current.summary())
          .containsEntry(
              "kafka-s3-archiver.offset." + topic + "-" + p, String.valueOf(batches * size - 1));
    }
    // Expiry went as far as allowed: the replace snapshot holds the whole map, so only it stays.
    assertThat(table.snapshots()).hasSize(1);

    // A redelivery of the whole topic stores nothing again: the offsets survived.
    var fn = h.function(Map.of());
    for (int p = 0; p < pollers; p++) {
      fn.invoke(IcebergTableIT.batch(topic, p, 0, (long) batches * size));
    }
    assertThat(IcebergTableIT.occurrences(h.rows(topic))).isEqualTo(seen);

    // Independent readers see the same rows.
    JsonNode read = IndependentReadersIT.read(h, topic);
    List<String> py = IndependentReadersIT.strings(read.get("pyiceberg"));
    assertThat(py).hasSize(pollers * batches * size);
    assertThat(new HashSet<>(py)).hasSize(py.size());
    assertThat(IndependentReadersIT.strings(read.get("duckdb"))).isEqualTo(py);
  }

  /**
   * A replace commit that Iceberg rebased over appends carries older offsets than they do. Expiry
   * must keep the append beneath it, or a redelivery would store its offsets again. Built here by
   * hand: an append of offsets 0..19 (one file), then a replace of that file whose summary says 9.
   */
  @Test
  void shouldKeepTheSnapshotsThatHoldTheOffsetsWhenAReplaceCarriesOlderOnes() throws Exception {
    String topic = "rebased";
    var fn = h.function(Map.of());
    fn.invoke(IcebergTableIT.batch(topic, 0, 0, 20));
    Table table = h.table(topic);
    DataFile original;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      original = tasks.iterator().next().file();
    }
    String copyPath = original.location().replace(".parquet", "-copy.parquet");
    try (var in = table.io().newInputFile(original.location()).newStream();
        var out = table.io().newOutputFile(copyPath).create()) {
      in.transferTo(out);
    }
    DataFile copy = DataFiles.builder(table.spec()).copy(original).withPath(copyPath).build();
    table
        .newRewrite()
        .deleteFile(original)
        .addFile(copy)
        .set(CommittedOffsets.MARKER, CommittedOffsets.MARKER_VERSION)
        .set(CommittedOffsets.PREFIX + topic + "-0", "9")
        .commit();

    JsonNode report = report(h.function(AGGRESSIVE).maintain().response());
    assertThat(table(report, topic).path("filesRewritten").asInt()).isZero();
    assertThat(table(report, topic).path("outcome").asText()).isEqualTo("DONE");

    fn.invoke(IcebergTableIT.batch(topic, 0, 0, 20));
    Map<String, Integer> seen = IcebergTableIT.occurrences(h.rows(topic));
    assertThat(seen).hasSize(20);
    assertThat(seen.values()).allMatch(n -> n == 1);
  }

  static JsonNode report(String response) {
    try {
      return new ObjectMapper().readTree(response);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode table(JsonNode report, String name) {
    for (JsonNode t : report.path("tables")) {
      if (name.equals(t.path("table").asText())) {
        return t;
      }
    }
    throw new AssertionError("no table " + name + " in " + report);
  }

  /** Partition path → data files in the current snapshot. */
  static Map<String, Integer> filesPerPartition(Table table) {
    Map<String, Integer> files = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        files.merge(table.spec().partitionToPath(t.file().partition()), 1, Integer::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
