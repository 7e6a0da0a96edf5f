package io.kafkas3archiver.shapes;

import io.kafkas3archiver.Pipeline;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.EventDecoder;
import io.kafkas3archiver.decode.Invocation;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.WrittenObject;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Runs every hostile shape through decode → group → encode → compress in every accepted format and
 * codec, inside one JVM (started by {@link AnyShapeMemoryIT} with the heap of a 256 MB function),
 * and prints one {@code case} line per run with its counts, output bytes, peak heap and time. The
 * store keeps no bytes (it only counts them), so the heap measured is the pipeline's.
 *
 * <p>Arguments: seed [metadata shapes, comma-separated, run also with INCLUDE_KAFKA_METADATA=true].
 * {@code -Dshapes.only=a,b} runs only those shapes (to reproduce one case by hand).
 */
public final class HostileShapesProbe {
  private HostileShapesProbe() {}

  public static void main(String[] args) throws Exception {
    long seed = Long.parseLong(args[0]);
    List<String> withMetadata = args.length > 1 ? List.of(args[1].split(",")) : List.of();
    List<MemoryPoolMXBean> heap =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP)
            .toList();
    EventDecoder decoder = new EventDecoder();
    String only = System.getProperty("shapes.only", "");
    for (HostileShapes.Shape shape : HostileShapes.all()) {
      if (!only.isEmpty() && !List.of(only.split(",")).contains(shape.name())) {
        continue;
      }
      List<Rec> records = shape.build().apply(new Random(seed ^ shape.name().hashCode()));
      long valueBytes = 0;
      int tombstones = 0;
      for (Rec r : records) {
        valueBytes += r.value() == null ? 0 : r.value().length;
        tombstones += r.value() == null ? 1 : 0;
      }
      int count = records.size();
      byte[] event = KafkaEvents.event(records);
      records = null;
      for (boolean metadata : new boolean[] {false, true}) {
        if (metadata && !withMetadata.contains(shape.name())) {
          continue;
        }
        for (Formats.Variant variant : Formats.variants()) {
          ArchiverConfig config =
              ArchiverConfig.fromEnv(
                  Map.of(
                      "BUCKET_NAME", "shapes",
                      "AWS_REGION", "us-east-1",
                      "OUTPUT_FORMAT", variant.format().configName(),
                      "COMPRESSION", variant.compression().configName(),
                      "INCLUDE_KAFKA_METADATA", Boolean.toString(metadata)));
          Pipeline pipeline = new Pipeline(config, new CountingStore(), Clock.systemUTC());
          System.gc();
          heap.forEach(MemoryPoolMXBean::resetPeakUsage);
          long started = System.nanoTime();
          var batch = (Invocation.KafkaBatch) decoder.decode(new ByteArrayInputStream(event));
          BatchOutcome outcome = pipeline.archive(batch, Deadline.in(600_000, Clock.systemUTC()));
          long millis = (System.nanoTime() - started) / 1_000_000;
          long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
          long raw = outcome.objects().stream().mapToLong(WrittenObject::rawBytes).sum();
          long stored = outcome.objects().stream().mapToLong(WrittenObject::bytes).sum();
          System.out.printf(
              "case %s %s metadata=%s records=%d nulls=%d in=%d written=%d errored=%d tombstones=%d failed=%d"
                  + " valueBytes=%d rawBytes=%d storedBytes=%d peakHeapMb=%.1f ms=%d%n",
              shape.name(),
              variant,
              metadata,
              count,
              tombstones,
              outcome.recordsIn(),
              outcome.recordsWritten(),
              outcome.recordsErrored(),
              outcome.tombstonesSkipped(),
              outcome.recordsFailed(),
              valueBytes,
              raw,
              stored,
              peak / 1048576.0,
              millis);
        }
      }
    }
    System.out.printf("done maxHeapMb %.1f%n", Runtime.getRuntime().maxMemory() / 1048576.0);
  }

  /** Counts what would be uploaded, and keeps none of it. */
  private static final class CountingStore implements ObjectStore {
    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public PutResult putIfAbsent(
        String key, ObjectBody body, String type, java.util.Map<String, String> m, Deadline d) {
      return new PutResult(1, 0);
    }

    @Override
    public java.util.Optional<java.util.Map<String, String>> metadata(String key, Deadline d) {
      return java.util.Optional.empty();
    }
  }
}
