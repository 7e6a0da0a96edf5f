package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ArchivePlanTest {

  private static ArchivedRecord rec(int partition, long offset) {
    return new ArchivedRecord(
        partition, offset, offset, null, new byte[] {(byte) offset}, List.of(), false);
  }

  /** Builds a plan from objects given as their records, in listing order. */
  private static List<String> walk(
      List<List<ArchivedRecord>> objects, Map<Integer, Long> checkpoint) throws Exception {
    List<ArchivePlan.Entry> entries = new ArrayList<>();
    Map<Integer, ObjectRows> rows = new HashMap<>();
    for (int i = 0; i < objects.size(); i++) {
      Map<Integer, ArchivePlan.Span> spans = new TreeMap<>();
      for (ArchivedRecord r : objects.get(i)) {
        spans.merge(r.partition(), ArchivePlan.Span.of(r), (a, b) -> a.plus(r));
      }
      entries.add(
          new ArchivePlan.Entry(
              new ArchiveObject(
                  "o" + i, 1, ArchiveObject.Kind.DATA, Format.NDJSON, Compression.NONE),
              i,
              spans,
              true));
      rows.put(i, new ObjectRows(objects.get(i), true, 0, 0));
    }
    List<String> out = new ArrayList<>();
    new ArchivePlan(entries)
        .walk(
            e -> rows.get(e.ordinal()),
            r -> true,
            checkpoint,
            (r, from) -> out.add(r.partition() + "@" + r.offset()));
    return out;
  }

  private static List<String> expected(int partitions, int perPartition, long after) {
    List<String> all = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      for (long o = after + 1; o < perPartition; o++) {
        all.add(p + "@" + o);
      }
    }
    return all;
  }

  private static List<String> perPartitionOrder(List<String> walked, int partition) {
    return walked.stream().filter(s -> s.startsWith(partition + "@")).toList();
  }

  @Test
  void shouldHandOutEachOffsetOnceInOrderWhateverTheBatchesAndDuplicates() throws Exception {
    long seed = System.nanoTime();
    System.out.println("ArchivePlanTest seed " + seed);
    Random random = new Random(seed);
    int partitions = 3;
    int perPartition = 500;
    // Batches: each takes a contiguous run from several partitions (the legacy layout); some are
    // stored twice, some grow on redelivery, and a batch's rejected records go to a second object.
    List<List<ArchivedRecord>> objects = new ArrayList<>();
    long[] next = new long[partitions];
    while (next[0] < perPartition || next[1] < perPartition || next[2] < perPartition) {
      List<ArchivedRecord> data = new ArrayList<>();
      List<ArchivedRecord> errors = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        int n = random.nextInt(40);
        for (int k = 0; k < n && next[p] < perPartition; k++) {
          (random.nextInt(10) == 0 ? errors : data).add(rec(p, next[p]++));
        }
      }
      objects.add(data);
      if (!errors.isEmpty()) {
        objects.add(errors);
      }
      if (random.nextInt(4) == 0) {
        objects.add(new ArrayList<>(data)); // a redelivered duplicate
      }
    }
    Collections.shuffle(objects, random); // uuid names: listing order says nothing
    List<String> walked = walk(objects, Map.of());
    assertThat(walked).containsExactlyInAnyOrderElementsOf(expected(partitions, perPartition, -1));
    for (int p = 0; p < partitions; p++) {
      List<String> expectedP = perPartitionOrder(expected(partitions, perPartition, -1), p);
      assertThat(perPartitionOrder(walked, p)).containsExactlyElementsOf(expectedP);
    }
  }

  @Test
  void shouldSkipWhatTheCheckpointSaysIsRestored() throws Exception {
    List<List<ArchivedRecord>> objects =
        List.of(
            List.of(rec(0, 0), rec(0, 1), rec(1, 0)),
            List.of(rec(0, 2), rec(1, 1), rec(1, 2)),
            List.of(rec(0, 3)));
    assertThat(walk(objects, Map.of(0, 1L, 1, 0L))).containsExactly("0@2", "1@1", "1@2", "0@3");
  }
}
