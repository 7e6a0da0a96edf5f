package io.kafkas3archiver.restore;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.KafkaException;

/**
 * Restores an archived range into a Kafka topic, in this order: check the target, fence earlier
 * runs and read the checkpoint, index the archive ({@link ArchiveIndex}: one read per object),
 * print the plan, refuse what cannot work (nothing in range, too few target partitions, records
 * larger than the producer or topic allow), then produce in per-partition offset order through the
 * {@link TransactionalSink}, and compare with the {@link Verifier} when asked. Each part has one
 * job; this class only sequences them.
 */
public final class Restorer {
  private final RestoreOptions options;
  private final ArchiveReader reader;
  private final PrintStream out;

  /** What a run did, for the caller and the tests. */
  public record Result(
      long objects,
      long records,
      long bytes,
      long skippedByCheckpoint,
      long duplicatesDropped,
      long errorRows,
      double seconds,
      boolean verified) {}

  public Restorer(RestoreOptions options, ArchiveReader reader, PrintStream out) {
    this.options = options;
    this.reader = reader;
    this.out = out;
  }

  public Result run() throws IOException, InterruptedException {
    long started = System.nanoTime();
    if (options.dryRun()) {
      ArchiveIndex index = indexOrRefuse(Map.of());
      return new Result(
          index.objects,
          index.records,
          index.bytes,
          0,
          0,
          index.errorRows,
          seconds(started),
          false);
    }
    try (TargetCluster cluster = new TargetCluster(options)) {
      int targetPartitions = cluster.targetPartitions();
      Checkpoint checkpoint = new Checkpoint(options, cluster);
      if (options.verifyOnly()) {
        ArchiveIndex index = indexOrRefuse(Map.of());
        checkTarget(cluster, index, targetPartitions);
        boolean verified = new Verifier(options, reader, cluster, out).verify(index);
        return new Result(index.objects, 0, 0, 0, 0, index.errorRows, seconds(started), verified);
      }
      try (TransactionalSink sink = new TransactionalSink(options, cluster, checkpoint, out)) {
        Map<Integer, Long> restored = options.restart() ? Map.of() : checkpoint.load();
        ArchiveIndex index = indexOrRefuse(restored);
        checkTarget(cluster, index, targetPartitions);
        sink.progress(index.records - index.alreadyRestored, index.bytes, index.objects);
        long duplicates = produce(index.plan, restored, sink);
        out.printf(
            Locale.ROOT,
            "restored %,d records (%s) from %,d objects into %s in %.1f s (%.1f MB/s, %,.0f"
                + " records/s); %,d already restored, %,d duplicate rows dropped%n",
            sink.records(),
            ArchiveIndex.mb(sink.bytes()),
            index.objects,
            options.targetTopic(),
            seconds(started),
            sink.bytes() / 1e6 / Math.max(1e-3, seconds(started)),
            sink.records() / Math.max(1e-3, seconds(started)),
            index.alreadyRestored,
            duplicates);
        boolean verified =
            options.verify() && new Verifier(options, reader, cluster, out).verify(index);
        return new Result(
            index.objects,
            sink.records(),
            sink.bytes(),
            index.alreadyRestored,
            duplicates,
            index.errorRows,
            seconds(started),
            verified);
      }
    }
  }

  /** The index pass alone, for the restore Lambda's plan step: figures and the ordered objects. */
  record Planned(ArchivePlan plan, long objects, long records, long bytes, long errorRows) {}

  /** Lists and reads the archive once, prints the plan, and returns it. Needs no Kafka. */
  Planned plan() throws IOException, InterruptedException {
    ArchiveIndex index = indexOrRefuse(Map.of());
    return new Planned(index.plan, index.objects, index.records, index.bytes, index.errorRows);
  }

  /** What one time-boxed call of {@link #restoreSlice} did. */
  record Slice(long records, long bytes, boolean complete, Map<Integer, Long> restoredUpTo) {}

  /**
   * Restores {@code plan} (an earlier {@link #plan()}, typically cut to one partition) after the
   * target's checkpoint until it ends or {@code outOfTime} says stop at an object boundary. Each
   * call commits what it produced with the checkpoint, so calls can follow one another in different
   * processes: the restore Lambda's loop.
   */
  Slice restoreSlice(ArchivePlan plan, BooleanSupplier outOfTime)
      throws IOException, InterruptedException {
    try (TargetCluster cluster = new TargetCluster(options)) {
      int maxPartition =
          plan.entries().stream()
              .flatMap(e -> e.spans().keySet().stream())
              .mapToInt(Integer::intValue)
              .max()
              .orElse(-1);
      checkPartitions(maxPartition, cluster.targetPartitions());
      Checkpoint checkpoint = new Checkpoint(options, cluster);
      try (TransactionalSink sink = new TransactionalSink(options, cluster, checkpoint, out)) {
        Map<Integer, Long> restored = checkpoint.load();
        sink.stopWhen(outOfTime);
        boolean complete = produce(plan, restored, sink) >= 0;
        Map<Integer, Long> upTo = new TreeMap<>(restored);
        upTo.putAll(sink.restoredUpTo());
        // Time ran out right after the last object: the plan is done all the same, and saying so
        // spares the state machine one more invocation.
        complete |=
            plan.entries().stream()
                .allMatch(
                    e ->
                        e.spans().entrySet().stream()
                            .allMatch(
                                s ->
                                    s.getValue().maxOffset()
                                        <= upTo.getOrDefault(s.getKey(), -1L)));
        return new Slice(sink.records(), sink.bytes(), complete, upTo);
      }
    }
  }

  /**
   * Walks {@code plan} after {@code restored} into {@code sink} and commits. Returns the duplicate
   * rows dropped, or -1 when the sink stopped early (out of time) after committing.
   */
  private long produce(ArchivePlan plan, Map<Integer, Long> restored, TransactionalSink sink)
      throws IOException, InterruptedException {
    long duplicates;
    try {
      duplicates =
          plan.walk(
              entry -> reader.read(entry.object(), entry.ordinal()),
              options.inRange(),
              restored,
              sink);
    } catch (TransactionalSink.OutOfTime e) {
      duplicates = -1;
    } catch (KafkaException e) {
      throw sink.failure(e);
    } catch (IOException e) {
      throw new RestoreException(e.getMessage() + "; " + RestoreException.RERUN_RESUMES, e);
    }
    try {
      sink.commit();
    } catch (KafkaException e) {
      throw sink.failure(e);
    }
    return duplicates;
  }

  private ArchiveIndex indexOrRefuse(Map<Integer, Long> checkpoint)
      throws IOException, InterruptedException {
    ArchiveIndex index = ArchiveIndex.build(options, reader, checkpoint);
    index.print(out, options, checkpoint);
    if (index.empty()) {
      throw new RestoreException(index.nothingToRestore(options, reader));
    }
    return index;
  }

  /**
   * Refuses, before anything is produced, what cannot work: too few target partitions, a record
   * larger than the producer or the topic accept. Warns when retention would delete old records.
   */
  private void checkTarget(TargetCluster cluster, ArchiveIndex index, int targetPartitions)
      throws InterruptedException {
    checkPartitions(index.maxPartition, targetPartitions);
    TargetCluster.TopicSettings settings = cluster.targetSettings();
    if (settings.unreadable() != null) {
      out.println(
          "note: could not read the target's retention.ms and max.message.bytes ("
              + settings.unreadable()
              + ")");
    }
    if (index.largest != null && !options.verifyOnly()) {
      checkRecordSize(index.largest, settings);
    }
    settings
        .retentionMs()
        .filter(
            ms ->
                ms >= 0
                    && index.minTimestamp != Long.MAX_VALUE
                    && index.minTimestamp < System.currentTimeMillis() - ms)
        .ifPresent(
            ms ->
                out.printf(
                    "WARNING: the oldest record (%s) is older than the target's retention.ms=%d:"
                        + " the broker will delete such records soon after they are restored. Set"
                        + " retention.ms=-1 (or long enough) on %s first.%n",
                    Instant.ofEpochMilli(index.minTimestamp), ms, options.targetTopic()));
  }

  /**
   * A record travels in a batch of its own at worst: its bytes plus the batch and record headers
   * must fit the producer's {@code max.request.size} and the topic's {@code max.message.bytes}.
   */
  private void checkRecordSize(ArchivedRecord largest, TargetCluster.TopicSettings settings) {
    long needed = largest.payloadBytes() + 1024;
    long request = TransactionalSink.maxRequestSize(options);
    long topic = settings.maxMessageBytes().orElse(Long.MAX_VALUE);
    if (needed <= request && needed <= topic) {
      return;
    }
    StringBuilder fix = new StringBuilder();
    if (needed > request) {
      fix.append("pass --producer-property max.request.size=").append(needed);
    }
    if (needed > topic) {
      fix.append(fix.isEmpty() ? "" : ", and ")
          .append("raise the target topic's max.message.bytes to at least ")
          .append(needed)
          .append(" (kafka-configs.sh --alter --entity-type topics --entity-name ")
          .append(options.targetTopic())
          .append(" --add-config max.message.bytes=")
          .append(needed)
          .append("; the broker's message.max.bytes is its default)");
    }
    throw new RestoreException(
        "record too large: source partition "
            + largest.partition()
            + " offset "
            + largest.offset()
            + " holds "
            + String.format(Locale.ROOT, "%,d", largest.payloadBytes())
            + " bytes of key, value and headers, but the producer's max.request.size is "
            + String.format(Locale.ROOT, "%,d", request)
            + " and the target topic's max.message.bytes is "
            + settings
                .maxMessageBytes()
                .map(v -> String.format(Locale.ROOT, "%,d", v))
                .orElse("unknown")
            + ": "
            + fix
            + ". Nothing was produced.");
  }

  private void checkPartitions(int maxPartition, int targetPartitions) {
    if (!options.rekey() && maxPartition >= targetPartitions) {
      throw new RestoreException(
          "the target topic "
              + options.targetTopic()
              + " has "
              + targetPartitions
              + " partitions but the archive holds partition "
              + maxPartition
              + "; create the target with at least "
              + (maxPartition + 1)
              + " partitions, or pass --rekey to route by key hash");
    }
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
