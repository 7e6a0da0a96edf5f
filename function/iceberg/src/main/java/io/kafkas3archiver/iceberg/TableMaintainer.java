package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.table.MaintenanceReport.Outcome;
import io.kafkas3archiver.table.MaintenanceReport.TableMaintenance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

/**
 * {@code {"action":"maintain"}} for one table, without Spark: each partition's small data files are
 * read with Iceberg's generic Parquet reader and written again as files of about the target size,
 * all in ONE replace commit; then snapshots past the retention are expired.
 *
 * <p>Safe beside live commits. The rewrite only removes files that its starting snapshot holds and
 * validates that they are still there and gained no deletes ({@code validateFromSnapshot}); rows
 * appended meanwhile stay in their own files. The archiver's appends ignore replace commits in
 * their conflict check, so a compaction never makes a batch store an offset twice. A commit that
 * lost to appends is tried again as built; one whose files another compaction replaced deletes what
 * it wrote and plans again; after a few attempts the table is left for the next run.
 *
 * <p>Exactly-once depends on the offsets in the snapshot summaries ({@link CommittedOffsets}): the
 * replace commit carries the offsets the table held when it committed, and the expiry always keeps
 * every snapshot back to the newest whose summary holds the full map (a compaction that Iceberg
 * rebased on top of newer appends carries older offsets than those appends).
 */
final class TableMaintainer {
  /** A file at least this share of the target is left alone: rewriting it gains little. */
  private static final double LARGE_ENOUGH = 0.75;

  private static final int MAX_ATTEMPTS = 5;

  /** Time kept back for the answer and the log line. */
  private static final long DEADLINE_MARGIN_MS = 5_000;

  private static final long HOUR_MS = 3_600_000L;

  private final IcebergSettings.Maintenance settings;
  private final Clock clock;

  TableMaintainer(IcebergSettings.Maintenance settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /** One partition's small files, rewritten together. */
  private record Group(PartitionSpec spec, StructLike partition, List<DataFile> files) {}

  /** What the rewrite step did. */
  private record Rewrite(
      Outcome outcome, int partitions, int removed, int added, long rows, long snapshotId) {}

  /** Replace commit attempts of the table at hand. */
  private int attempt;

  TableMaintenance run(String name, Table table, Deadline deadline) {
    long started = clock.millis();
    attempt = 1;
    Rewrite rewrite;
    String error = null;
    while (true) {
      try {
        rewrite = rewriteOnce(table, deadline);
        break;
      } catch (CommitFailedException | ValidationException e) {
        // Another compaction replaced files this one replaces (or a writer added deletes): plan
        // again; or the commit kept losing to live appends.
        if (attempt >= MAX_ATTEMPTS || !pause(attempt, deadline)) {
          rewrite = new Rewrite(Outcome.GAVE_UP_ON_CONFLICTS, 0, 0, 0, 0, -1);
          error = conflictMessage(attempt, e);
          break;
        }
        attempt++;
      } catch (CommitStateUnknownException e) {
        return result(
            name,
            new Rewrite(Outcome.COMMIT_STATE_UNKNOWN, 0, 0, 0, 0, -1),
            0,
            attempt,
            started,
            "the catalog did not confirm the replace commit ("
                + e.getMessage()
                + "); the next run sees whether it landed and plans again");
      } catch (RuntimeException e) {
        return result(
            name,
            new Rewrite(Outcome.FAILED, 0, 0, 0, 0, -1),
            0,
            attempt,
            started,
            e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
    int expired = 0;
    for (int expiry = 1; ; expiry++) {
      try {
        expired = expire(table);
        break;
      } catch (CommitFailedException e) {
        if (expiry >= MAX_ATTEMPTS || !pause(expiry, deadline)) {
          return result(
              name,
              withOutcome(rewrite, Outcome.GAVE_UP_ON_CONFLICTS),
              0,
              attempt,
              started,
              "expiring snapshots: " + conflictMessage(expiry, e));
        }
      } catch (RuntimeException e) {
        return result(
            name,
            withOutcome(rewrite, Outcome.FAILED),
            0,
            attempt,
            started,
            "expiring snapshots: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
    return result(name, rewrite, expired, attempt, started, error);
  }

  private static Rewrite withOutcome(Rewrite r, Outcome outcome) {
    return new Rewrite(outcome, r.partitions(), r.removed(), r.added(), r.rows(), r.snapshotId());
  }

  private TableMaintenance result(
      String name, Rewrite r, int expired, int attempts, long started, String error) {
    return new TableMaintenance(
        name,
        r.outcome(),
        r.partitions(),
        r.removed(),
        r.added(),
        r.rows(),
        r.snapshotId(),
        expired,
        attempts,
        clock.millis() - started,
        error);
  }

  private static String conflictMessage(int attempts, RuntimeException e) {
    return "lost to concurrent commits "
        + attempts
        + " times ("
        + e.getMessage()
        + "); nothing was changed, the next scheduled run tries again";
  }

  /** Plans, writes and commits one replace; throws when it gave up (nothing of it stays). */
  private Rewrite rewriteOnce(Table table, Deadline deadline) {
    table.refresh();
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return new Rewrite(Outcome.DONE, 0, 0, 0, 0, -1);
    }
    List<Group> groups = smallFileGroups(table, base);
    if (groups.isEmpty()) {
      return new Rewrite(Outcome.DONE, 0, 0, 0, 0, -1);
    }
    Schema schema = table.schema();
    String codec =
        table
            .properties()
            .getOrDefault(
                TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT);
    List<DataFile> removed = new ArrayList<>();
    List<DataFile> added = new ArrayList<>();
    int partitions = 0;
    long rows = 0;
    try {
      for (Group g : groups) {
        if (deadline.remainingMillis() < DEADLINE_MARGIN_MS * 4) {
          break; // commit what is written; the next run takes the rest
        }
        added.addAll(write(table, schema, g, codec));
        removed.addAll(g.files());
        rows += g.files().stream().mapToLong(DataFile::recordCount).sum();
        partitions++;
      }
      if (removed.isEmpty()) {
        return new Rewrite(Outcome.OUT_OF_TIME, 0, 0, 0, 0, -1);
      }
      commit(table, base, removed, added, deadline);
    } catch (CommitStateUnknownException e) {
      throw e; // the table may reference the new files: keep them
    } catch (RuntimeException e) {
      DataFileWriter.deleteQuietly(table, added);
      throw e;
    }
    long snapshotId = table.currentSnapshot().snapshotId();
    return new Rewrite(Outcome.DONE, partitions, removed.size(), added.size(), rows, snapshotId);
  }

  /**
   * Commits the replace. A commit that lost only to live appends is tried again as built: the
   * appends add files and never touch those replaced, and {@code validateFromSnapshot} still checks
   * that each replaced file is there and gained no deletes. Each try carries the offsets of the
   * table as it refreshed, so the replace snapshot names every partition's last offset.
   */
  private void commit(
      Table table, Snapshot base, List<DataFile> removed, List<DataFile> added, Deadline deadline) {
    while (true) {
      RewriteFiles replace = table.newRewrite().validateFromSnapshot(base.snapshotId());
      removed.forEach(replace::deleteFile);
      added.forEach(replace::addFile);
      Map<String, Long> offsets = CommittedOffsets.read(table);
      if (!offsets.isEmpty()) {
        replace.set(CommittedOffsets.MARKER, CommittedOffsets.MARKER_VERSION);
        offsets.forEach(
            (tp, offset) -> replace.set(CommittedOffsets.PREFIX + tp, offset.toString()));
      }
      try {
        replace.commit();
        return;
      } catch (CommitFailedException e) {
        if (attempt >= MAX_ATTEMPTS || !pause(attempt, deadline)) {
          throw e;
        }
        attempt++;
        table.refresh();
      }
    }
  }

  /**
   * Per partition, the data files smaller than {@link #LARGE_ENOUGH} of the target, where there are
   * at least two. Partitions with delete files (written by other engines) are left out: applying
   * deletes is beyond this compaction.
   */
  private List<Group> smallFileGroups(Table table, Snapshot base) {
    Map<String, Group> groups = new LinkedHashMap<>();
    Set<String> withDeletes = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile f = task.file();
        PartitionSpec spec = table.specs().get(f.specId());
        String key = f.specId() + "/" + spec.partitionToPath(f.partition());
        if (!task.deletes().isEmpty()) {
          withDeletes.add(key);
        }
        if (f.fileSizeInBytes() < LARGE_ENOUGH * settings.targetFileBytes()) {
          groups
              .computeIfAbsent(key, k -> new Group(spec, f.partition(), new ArrayList<>()))
              .files()
              .add(f);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return groups.entrySet().stream()
        .filter(e -> !withDeletes.contains(e.getKey()) && e.getValue().files().size() > 1)
        .map(Map.Entry::getValue)
        .toList();
  }

  /** Streams the group's rows into new files, starting another once one reaches the target. */
  private List<DataFile> write(Table table, Schema schema, Group g, String codec) {
    List<DataFile> out = new ArrayList<>();
    DataWriter<Record> writer = null;
    try {
      for (DataFile f : g.files()) {
        try (CloseableIterable<Record> rows =
            Parquet.read(table.io().newInputFile(f.location(), f.fileSizeInBytes()))
                .project(schema)
                .createReaderFunc(
                    fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .build()) {
          for (Record r : rows) {
            if (writer == null) {
              writer = DataFileWriter.open(table, schema, g.spec(), g.partition(), codec);
            }
            writer.write(r);
            if (writer.length() >= settings.targetFileBytes()) {
              writer.close();
              out.add(writer.toDataFile());
              writer = null;
            }
          }
        }
      }
      if (writer != null) {
        writer.close();
        out.add(writer.toDataFile());
      }
    } catch (IOException e) {
      DataFileWriter.deleteQuietly(table, out);
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * Expires snapshots older than the retention beyond the newest ones kept, but never one between
   * the current snapshot and the newest archiver commit (see the class comment). Returns how many
   * went.
   */
  private int expire(Table table) {
    table.refresh();
    if (table.currentSnapshot() == null) {
      return 0;
    }
    Set<Long> before = new HashSet<>();
    table.snapshots().forEach(s -> before.add(s.snapshotId()));
    int keep = Math.max(settings.snapshotsRetained(), snapshotsHoldingTheOffsets(table));
    table
        .expireSnapshots()
        .expireOlderThan(clock.millis() - settings.retentionHours() * HOUR_MS)
        .retainLast(keep)
        .commit();
    table.refresh();
    table.snapshots().forEach(s -> before.remove(s.snapshotId()));
    return before.size();
  }

  /**
   * Snapshots from the current one back to (and including) the newest whose own summary holds every
   * committed offset. A replace commit rebased over appends carries older offsets than the appends
   * beneath it, so those appends must stay until a summary holds the whole map again.
   */
  static int snapshotsHoldingTheOffsets(Table table) {
    Map<String, Long> all = CommittedOffsets.read(table);
    int count = 0;
    for (Snapshot s = table.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      count++;
      if (CommittedOffsets.of(s).equals(all)) {
        return count;
      }
    }
    return count;
  }

  private static boolean pause(int attempt, Deadline deadline) {
    long pause = ThreadLocalRandom.current().nextLong(50, 200L << Math.min(attempt, 4));
    if (deadline.remainingMillis() - pause < DEADLINE_MARGIN_MS) {
      return false;
    }
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return true;
  }
}
