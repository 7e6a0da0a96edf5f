package io.kafkas3archiver.iceberg;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The last committed offset of every topic-partition. Each of our appends writes the whole map into
 * its snapshot summary (carried forward, so expiring old snapshots loses nothing), and the
 * partitions it advanced into the table's properties, in the same commit. Reading takes the highest
 * offset per partition over the properties and every ancestor that carries the map: Iceberg rebases
 * an append onto a newer snapshot when the commit races a writer that added no data files, and such
 * a rebased summary may hold an older offset for that writer's partitions; the maximum never goes
 * back. Snapshots without the map (compactions, other engines) are walked past; when another
 * engine's expiry has removed every snapshot with the map (S3 Tables' own maintenance), the
 * properties still hold the offsets.
 */
final class CommittedOffsets {
  static final String MARKER = "kafka-s3-archiver.offsets";
  static final String MARKER_VERSION = "1";
  static final String PREFIX = "kafka-s3-archiver.offset.";

  private CommittedOffsets() {}

  static Map<String, Long> read(Table table) {
    Map<String, Long> offsets = new HashMap<>();
    table
        .properties()
        .forEach(
            (k, v) -> {
              if (k.startsWith(PREFIX)) {
                offsets.merge(k.substring(PREFIX.length()), Long.parseLong(v), Math::max);
              }
            });
    Snapshot s = table.currentSnapshot();
    while (s != null) {
      of(s).forEach((tp, offset) -> offsets.merge(tp, offset, Math::max));
      Long parent = s.parentId();
      s = parent == null ? null : table.snapshot(parent);
    }
    return offsets;
  }

  /** The offsets one snapshot's own summary holds; empty for snapshots of other writers. */
  static Map<String, Long> of(Snapshot s) {
    Map<String, Long> offsets = new HashMap<>();
    Map<String, String> summary = s.summary();
    if (summary != null && MARKER_VERSION.equals(summary.get(MARKER))) {
      summary.forEach(
          (k, v) -> {
            if (k.startsWith(PREFIX)) {
              offsets.put(k.substring(PREFIX.length()), Long.parseLong(v));
            }
          });
    }
    return offsets;
  }
}
