package io.kafkas3archiver.restore;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The index pass: lists the archive and reads every object once, keeping per object and partition
 * only the offset ranges in the requested range ({@link ArchivePlan}), plus the figures the plan
 * printout, the checks before producing and the verify need. Needs no Kafka.
 */
final class ArchiveIndex {
  ArchivePlan plan = new ArchivePlan(List.of());
  long objects;
  long errorObjects;
  long records;
  long tombstones;
  long bytes;
  long storedBytes;
  long alreadyRestored;
  long errorRows;
  long otherTopicRows;
  long undecodableRows;
  long valuesOnlyObjects;

  /** Records of every listed object, before the range filter (for "nothing in range"). */
  long archivedRecords;

  boolean approximate;
  long minTimestamp = Long.MAX_VALUE;
  long maxTimestamp = Long.MIN_VALUE;
  int maxPartition = -1;

  /** The largest record in range (key + value + headers), for the record-size check. */
  ArchivedRecord largest;

  final Map<Integer, ArchivePlan.Span> partitions = new TreeMap<>();
  final Map<Integer, ArchivePlan.Span> archived = new TreeMap<>();
  final List<String> errorObjectLines = new ArrayList<>();
  final List<String> unrecognised = new ArrayList<>();

  private ArchiveIndex() {}

  /** Reads the archive once; {@code checkpoint} counts what an earlier run already restored. */
  static ArchiveIndex build(
      RestoreOptions options, ArchiveReader reader, Map<Integer, Long> checkpoint)
      throws IOException, InterruptedException {
    ArchiveReader.Listing data = reader.list(options.dataPrefix(), ArchiveObject.Kind.DATA);
    ArchiveReader.Listing errors = reader.list(options.errorPrefix(), ArchiveObject.Kind.ERROR);
    List<ArchiveObject> objects = new ArrayList<>(data.objects());
    objects.addAll(errors.objects());
    Predicate<ArchivedRecord> inRange = options.inRange();
    List<ArchivePlan.Entry> entries = new ArrayList<>();
    ArchiveIndex index = new ArchiveIndex();
    index.unrecognised.addAll(data.skipped());
    index.unrecognised.addAll(errors.skipped());
    int ordinal = 0;
    for (ArchiveObject object : objects) {
      ObjectRows rows = reader.read(object, ordinal);
      boolean error = object.kind() == ArchiveObject.Kind.ERROR;
      if (error) {
        index.errorObject(object, rows);
        if (!options.includeErrors()) {
          ordinal++;
          continue;
        }
      }
      index.otherTopicRows += rows.otherTopicRows();
      if (!rows.metadata()) {
        index.valuesOnlyObjects++;
      }
      Map<Integer, ArchivePlan.Span> spans = new TreeMap<>();
      for (ArchivedRecord r : rows.records()) {
        index.archivedRecords++;
        index.archived.merge(r.partition(), ArchivePlan.Span.of(r), (a, b) -> a.plus(r));
        if (!inRange.test(r)) {
          continue;
        }
        if (r.offset() <= checkpoint.getOrDefault(r.partition(), Long.MIN_VALUE)) {
          index.alreadyRestored++;
        }
        spans.merge(r.partition(), ArchivePlan.Span.of(r), (a, b) -> a.plus(r));
        index.count(r);
      }
      if (!spans.isEmpty()) {
        entries.add(new ArchivePlan.Entry(object, ordinal, spans, rows.metadata()));
        index.objects++;
        index.storedBytes += object.size();
      }
      ordinal++;
    }
    index.plan = new ArchivePlan(entries);
    if (options.dryRun()) {
      // Exact figures: walk once more so an offset stored twice (a redelivery) counts once.
      ArchiveIndex exact = new ArchiveIndex();
      index.plan.walk(
          entry -> reader.read(entry.object(), entry.ordinal()),
          inRange,
          Map.of(),
          (r, from) -> exact.count(r));
      index.records = exact.records;
      index.bytes = exact.bytes;
      index.tombstones = exact.tombstones;
      index.partitions.clear();
      index.partitions.putAll(exact.partitions);
    } else {
      index.approximate = true;
    }
    return index;
  }

  private void count(ArchivedRecord r) {
    records++;
    bytes += r.payloadBytes();
    if (r.isTombstone()) {
      tombstones++;
    }
    if (r.timestamp() >= 0) {
      minTimestamp = Math.min(minTimestamp, r.timestamp());
      maxTimestamp = Math.max(maxTimestamp, r.timestamp());
    }
    maxPartition = Math.max(maxPartition, r.partition());
    if (largest == null || r.payloadBytes() > largest.payloadBytes()) {
      largest = r;
    }
    partitions.merge(r.partition(), ArchivePlan.Span.of(r), (a, b) -> a.plus(r));
  }

  private void errorObject(ArchiveObject object, ObjectRows rows) {
    errorObjects++;
    errorRows += rows.records().size() + rows.undecodableRows();
    undecodableRows += rows.undecodableRows();
    errorObjectLines.add(
        "  "
            + object.key()
            + " ("
            + rows.records().size()
            + " records"
            + (rows.undecodableRows() > 0
                ? ", " + rows.undecodableRows() + " undecodable events, not restorable"
                : "")
            + ")");
  }

  /** Whether the range holds no object at all (so the restore would do nothing). */
  boolean empty() {
    return objects == 0;
  }

  /**
   * Why there is nothing to restore, with what to change: no object under the listed prefixes (and
   * where objects are instead), only error objects without {@code --include-errors}, or objects but
   * nothing in the requested range.
   */
  String nothingToRestore(RestoreOptions options, ArchiveReader reader) {
    String listed =
        "s3://"
            + options.bucket()
            + "/"
            + options.dataPrefix()
            + " (data) and s3://"
            + options.bucket()
            + "/"
            + options.errorPrefix()
            + " (error objects)";
    if (archivedRecords > 0) {
      StringBuilder held = new StringBuilder();
      archived.forEach(
          (p, s) ->
              held.append(held.isEmpty() ? "" : ", ")
                  .append(
                      p == ArchivedRecord.NO_PARTITION
                          ? "values-only rows"
                          : "partition " + p + " offsets " + s.minOffset() + ".." + s.maxOffset()));
      return "nothing to restore: the archive under "
          + listed
          + " holds "
          + String.format(Locale.ROOT, "%,d", archivedRecords)
          + " records ("
          + held
          + "), none of them in the requested range ("
          + options.rangeText()
          + "); widen --partitions, --from-offset/--to-offset or --from/--to";
    }
    if (errorObjects > 0 && !options.includeErrors()) {
      return "nothing to restore: under "
          + listed
          + " there are only "
          + errorObjects
          + " error objects with "
          + String.format(Locale.ROOT, "%,d", errorRows)
          + " records (a format could not hold them); pass --include-errors to restore them with"
          + " their raw bytes";
    }
    List<String> nearest = reader.nearestPrefixes(options.dataPrefix());
    return "nothing to restore: no archived object under "
        + listed
        + (unrecognised.isEmpty()
            ? ""
            : " (" + unrecognised.size() + " objects there have names the archiver never writes)")
        + (nearest.isEmpty()
            ? "; the bucket "
                + options.bucket()
                + " holds no object at all: check --bucket, --endpoint-url and --region"
            : "; the nearest prefixes that hold objects are "
                + String.join(", ", nearest)
                + ": check --topic and --key-prefix (or --list-prefix)");
  }

  /** The plan, as the command prints it before it produces anything. */
  void print(PrintStream out, RestoreOptions options, Map<Integer, Long> checkpoint) {
    out.printf(
        Locale.ROOT,
        "archive s3://%s/%s: %,d objects (%s stored), %,d records%s, %s of keys, values and"
            + " headers, %,d tombstones%n",
        options.bucket(),
        options.dataPrefix(),
        objects,
        mb(storedBytes),
        records,
        approximate ? " (rows, before duplicates are dropped)" : "",
        mb(bytes),
        tombstones);
    if (minTimestamp <= maxTimestamp) {
      out.printf(
          "time span: %s .. %s%n",
          Instant.ofEpochMilli(minTimestamp), Instant.ofEpochMilli(maxTimestamp));
    }
    partitions.forEach(
        (p, s) ->
            out.printf(
                Locale.ROOT,
                "  partition %s: offsets %d..%d, %,d records%s%n",
                p == ArchivedRecord.NO_PARTITION ? "(none, values only)" : p,
                s.minOffset(),
                s.maxOffset(),
                s.records(),
                checkpoint.containsKey(p) ? ", restored up to offset " + checkpoint.get(p) : ""));
    if (valuesOnlyObjects > 0) {
      out.printf(
          "WARNING: %d objects were written without Kafka metadata (INCLUDE_KAFKA_METADATA=false):"
              + " only their values are restored. Keys, headers, timestamps and partition numbers"
              + " were never archived, tombstones were skipped by the archiver, and values are"
              + " produced in object-key order through the target's partitioner.%n",
          valuesOnlyObjects);
      if (options.hasRange()) {
        out.println(
            "WARNING: the partition, offset and time filters cannot apply to values-only rows;"
                + " narrow such a restore with --list-prefix (e.g. one day folder).");
      }
    }
    if (errorObjects > 0) {
      out.printf(
          "error objects: %d with %,d records (%s)%n",
          errorObjects,
          errorRows,
          options.includeErrors()
              ? "restored with their raw bytes (--include-errors)"
              : "NOT restored; pass --include-errors to restore them with their raw bytes");
      errorObjectLines.forEach(out::println);
    }
    if (otherTopicRows > 0) {
      out.printf("skipped %,d rows of other topics%n", otherTopicRows);
    }
    if (!unrecognised.isEmpty()) {
      out.printf(
          "skipped %d objects whose names are not archive objects, e.g. %s%n",
          unrecognised.size(), unrecognised.get(0));
    }
    if (alreadyRestored > 0) {
      out.printf(
          "checkpoint: %,d records already restored; resuming after them (--restart to redo)%n",
          alreadyRestored);
    }
  }

  /** Whether some record's rows carry no partition (a values-only archive). */
  boolean valuesOnly() {
    return partitions.containsKey(ArchivedRecord.NO_PARTITION);
  }

  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }
}
