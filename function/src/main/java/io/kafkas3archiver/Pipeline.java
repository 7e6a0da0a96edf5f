package io.kafkas3archiver;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.encode.EncodeResult;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.ErrorObjectEncoder;
import io.kafkas3archiver.group.Grouper;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.group.RecordPartitioner;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.TopicOutcome;
import io.kafkas3archiver.report.WrittenObject;
import io.kafkas3archiver.upload.Deadline;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.UploadException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * decode → group → encode (+compress) → upload → report, for one batch. Built once at init; holds
 * no per-invocation state.
 */
public final class Pipeline {
  private final ArchiverConfig config;
  private final Grouper grouper;
  private final ObjectKeyTemplate keys;
  private final Encoder encoder;
  private final ErrorObjectEncoder errorEncoder = new ErrorObjectEncoder();
  private final ObjectStore store;

  public Pipeline(ArchiverConfig config, ObjectStore store, Clock clock) {
    this.config = config;
    this.keys = config.keyTemplate();
    RecordPartitioner partitioner =
        keys.recordFields().isEmpty() && config.timeField().isEmpty()
            ? RecordPartitioner.NONE
            : new RecordPartitioner(
                keys.recordFields(), config.timeField().orElse(null), keys.maxValueBytes());
    // The guard defers through batch item failures, so it is only on where the configuration
    // made sure they are reported: when records choose their folders (ArchiverConfig).
    this.grouper =
        new Grouper(
            config.partitionTime(),
            config.timeZone(),
            keys.onePartitionPerObject(),
            clock,
            partitioner,
            partitioner.readsRecords() ? config.maxFoldersPerPartition() : Grouper.UNLIMITED);
    this.encoder =
        Encoder.forFormat(config.format(), config.compression(), config.includeKafkaMetadata());
    if (!config.format().compressesItself()) {
      config.compression().prime(); // Parquet's encoder primes its own codec
    }
    this.store = store;
  }

  public BatchOutcome archive(KafkaBatch batch, Deadline deadline) {
    KafkaBatch guarded = rejectOtherTopics(batch);
    Map<String, TopicTally> tallies = new TreeMap<>();
    List<BatchOutcome.Failure> failures = new ArrayList<>();
    UploadException bucketWide = null;
    // Per topic-partition, the first offset of an object that was not written, and why. The ESM
    // redelivers that partition from there, so no later object may hold records at or after it:
    // they would be written again, under another key, on redelivery.
    Map<String, Long> unwrittenFrom = new HashMap<>();
    Map<String, UploadException> unwrittenBecause = new HashMap<>();
    Grouper.Grouping grouping = grouper.grouping(guarded);
    grouping
        .deferredByTopic()
        .forEach((topic, n) -> tallies.computeIfAbsent(topic, TopicTally::new).deferred(n));
    grouping
        .timeFallbacksByTopic()
        .forEach((topic, n) -> tallies.computeIfAbsent(topic, TopicTally::new).timeFallbacks += n);
    for (ObjectGroup group : grouping.groups()) {
      TopicTally tally = tallies.computeIfAbsent(group.topic(), TopicTally::new);
      tally.add(group);
      UploadException blocked =
          bucketWide != null ? bucketWide : blockedBy(group, unwrittenFrom, unwrittenBecause);
      if (blocked != null) {
        failures.add(failure(group, blocked));
        tally.failed += group.recordCount();
        markUnwritten(group, blocked, unwrittenFrom, unwrittenBecause);
        continue;
      }
      EncodedGroup encoded = encode(group);
      List<WrittenObject> groupObjects = new ArrayList<>(2);
      try {
        if (encoded.data() != null) {
          groupObjects.add(put(encoded.data(), deadline));
        }
        if (encoded.errors() != null) {
          groupObjects.add(put(encoded.errors(), deadline));
        }
      } catch (UploadException e) {
        failures.add(failure(group, e));
        tally.failed += group.recordCount();
        tally.failedRetries += Math.max(0, e.attempts() - 1);
        // An object of this group that did land is not counted: the group will be redelivered.
        groupObjects.forEach(o -> tally.failedRetries += o.attempts() - 1);
        markUnwritten(group, e, unwrittenFrom, unwrittenBecause);
        if (e.type().affectsWholeBucket()) {
          bucketWide = e;
        }
        continue;
      }
      tally.objects.addAll(groupObjects);
      tally.written += encoded.result().rowsWritten();
      tally.tombstones += encoded.result().tombstonesSkipped();
      tally.errored += encoded.rejectedCount();
    }
    return new BatchOutcome(
        tallies.values().stream().map(TopicTally::outcome).toList(),
        failures,
        grouping.deferredFrom());
  }

  /** Per-topic counts while a batch is archived. */
  private static final class TopicTally {
    private final String topic;
    private int in;
    private int written;
    private int errored;
    private int tombstones;
    private int failed;
    private int failedRetries;
    private int deferred;
    private int timeFallbacks;
    private long earliest = Long.MAX_VALUE;
    private final List<WrittenObject> objects = new ArrayList<>();

    TopicTally(String topic) {
      this.topic = topic;
    }

    void deferred(int n) {
      in += n;
      deferred += n;
    }

    void add(ObjectGroup group) {
      in += group.recordCount();
      for (KafkaRecord r : group.records()) {
        if (r.timestamp() >= 0) {
          earliest = Math.min(earliest, r.timestamp());
        }
      }
    }

    TopicOutcome outcome() {
      return new TopicOutcome(
          topic,
          in,
          written,
          errored,
          tombstones,
          failed,
          earliest == Long.MAX_VALUE ? -1 : earliest,
          objects,
          failedRetries,
          deferred,
          timeFallbacks);
    }
  }

  /** The failure that stops this group, if it holds records at or after an unwritten offset. */
  private static UploadException blockedBy(
      ObjectGroup group, Map<String, Long> unwrittenFrom, Map<String, UploadException> because) {
    for (var e : group.offsetRanges().entrySet()) {
      String tp = group.topic() + "-" + e.getKey();
      Long from = unwrittenFrom.get(tp);
      if (from != null && e.getValue().last() >= from) {
        return because.get(tp);
      }
    }
    return null;
  }

  private static void markUnwritten(
      ObjectGroup group,
      UploadException cause,
      Map<String, Long> unwrittenFrom,
      Map<String, UploadException> because) {
    group
        .offsetRanges()
        .forEach(
            (partition, range) -> {
              String tp = group.topic() + "-" + partition;
              unwrittenFrom.merge(tp, range.first(), Math::min);
              because.putIfAbsent(tp, cause);
            });
  }

  /** Records of a topic other than INPUT_TOPIC are an error, not silently written (DESIGN §2). */
  private KafkaBatch rejectOtherTopics(KafkaBatch batch) {
    if (config.inputTopic().isEmpty()) {
      return batch;
    }
    String topic = config.inputTopic().get();
    List<KafkaRecord> kept = new ArrayList<>(batch.records().size());
    List<RejectedRecord> rejected = new ArrayList<>(batch.rejected());
    for (KafkaRecord r : batch.records()) {
      if (r.topic().equals(topic)) {
        kept.add(r);
      } else {
        rejected.add(
            RejectedRecord.of(
                r, "the record's topic '" + r.topic() + "' is not INPUT_TOPIC '" + topic + "'"));
      }
    }
    return new KafkaBatch(batch.eventSource(), kept, rejected);
  }

  private record PendingObject(
      String key,
      WrittenObject.Kind kind,
      int rows,
      long rawBytes,
      byte[] body,
      String contentType) {}

  private record EncodedGroup(
      EncodeResult result, int rejectedCount, PendingObject data, PendingObject errors) {}

  private EncodedGroup encode(ObjectGroup group) {
    var jobId = group.jobId(config.format().configName());
    try {
      ByteArrayOutputStream buffer = new ByteArrayOutputStream(estimate(group));
      CountingOutputStream raw;
      EncodeResult result;
      // Parquet compresses its column chunks itself; text formats are wrapped whole.
      try (OutputStream compressed =
          config.format().compressesItself() ? buffer : config.compression().wrap(buffer)) {
        raw = new CountingOutputStream(compressed);
        result = encoder.encode(group.records(), raw);
      }
      PendingObject data = null;
      if (result.rowsWritten() > 0) {
        data =
            new PendingObject(
                keys.dataKey(group, jobId),
                WrittenObject.Kind.DATA,
                result.rowsWritten(),
                raw.count(),
                buffer.toByteArray(),
                contentType());
      }
      List<RejectedRecord> rejected = new ArrayList<>(group.rejected());
      rejected.addAll(result.rejected());
      PendingObject errors = null;
      if (!rejected.isEmpty()) {
        ByteArrayOutputStream errorBuffer = new ByteArrayOutputStream();
        errorEncoder.encode(rejected, errorBuffer);
        errors =
            new PendingObject(
                keys.errorKey(group, jobId),
                WrittenObject.Kind.ERROR,
                rejected.size(),
                errorBuffer.size(),
                errorBuffer.toByteArray(),
                "application/x-ndjson");
      }
      return new EncodedGroup(result, rejected.size(), data, errors);
    } catch (IOException e) {
      // Encoding writes to memory; an IOException here is a bug, not a data problem.
      throw new UncheckedIOException(e);
    }
  }

  private String contentType() {
    if (config.format().compressesItself()) {
      return config.format().contentType();
    }
    return switch (config.compression()) {
      case NONE -> config.format().contentType();
      case GZIP -> "application/gzip";
      case SNAPPY -> "application/x-snappy-framed";
      case ZSTD -> "application/zstd";
    };
  }

  private static int estimate(ObjectGroup group) {
    long total = 0;
    for (KafkaRecord r : group.records()) {
      total += r.value() == null ? 16 : r.value().length + 2;
    }
    return (int) Math.min(total, 64L * 1024 * 1024);
  }

  private WrittenObject put(PendingObject o, Deadline deadline) throws UploadException {
    var result = store.put(o.key(), o.body(), o.contentType(), deadline);
    return new WrittenObject(
        o.key(),
        o.kind(),
        o.rows(),
        o.rawBytes(),
        o.body().length,
        result.attempts(),
        result.millis());
  }

  private static BatchOutcome.Failure failure(ObjectGroup group, UploadException e) {
    Map<String, Long> firstOffsets = new LinkedHashMap<>();
    group
        .offsetRanges()
        .forEach(
            (partition, range) -> firstOffsets.put(group.topic() + "-" + partition, range.first()));
    return new BatchOutcome.Failure(group.topic(), firstOffsets, e);
  }

  /** Counts the bytes an encoder writes before compression. */
  private static final class CountingOutputStream extends OutputStream {
    private final OutputStream out;
    private long count;

    CountingOutputStream(OutputStream out) {
      this.out = out;
    }

    long count() {
      return count;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }
  }
}
