package io.kafkas3archiver;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.decode.TopicPartition;
import io.kafkas3archiver.encode.CountingOutputStream;
import io.kafkas3archiver.encode.EncodeResult;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.ErrorObjectEncoder;
import io.kafkas3archiver.group.Claim;
import io.kafkas3archiver.group.Grouper;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.group.RecordPartitioner;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.TopicOutcome;
import io.kafkas3archiver.report.WrittenObject;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.table.BatchArchiver;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.PersistedSchemas;
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
public final class Pipeline implements BatchArchiver {
  private final ArchiverConfig config;
  private final Grouper grouper;
  private final ObjectKeyTemplate keys;
  private final Encoder encoder;
  private final ErrorObjectEncoder errorEncoder = new ErrorObjectEncoder();
  private final ObjectStore store;

  public Pipeline(ArchiverConfig config, ObjectStore store, Clock clock) {
    this(config, store, clock, SchemaCatalog.none());
  }

  /** With the schema registry ({@code SCHEMA_REGISTRY_URI}) whose schemas type Parquet columns. */
  public Pipeline(ArchiverConfig config, ObjectStore store, Clock clock, SchemaCatalog schemas) {
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
            clock,
            partitioner,
            partitioner.readsRecords() ? config.maxFoldersPerPartition() : Grouper.UNLIMITED);
    this.encoder =
        Encoder.forFormat(
            config.format(),
            config.compression(),
            config.includeKafkaMetadata(),
            config.parquetSchema(),
            schemas,
            new PersistedSchemas(store, config.keyPrefix()));
    if (!config.format().compressesItself()) {
      config.compression().prime(); // Parquet's encoder primes its own codec
    }
    this.store = store;
  }

  /**
   * Archives a batch exactly once by (topic, partition, offset), whatever earlier deliveries of the
   * same records wrote (DESIGN §1, §3).
   *
   * <p>Each partition's objects form a chain: an object named from offset {@code a} claims the
   * offsets {@code [a, b]} in its user metadata, and is written with {@code If-None-Match: *}. A
   * delivery that meets an existing object (412) reads its claim and writes only the records past
   * {@code b}, as a new object named from the first of them: the same protocol, so the chain does
   * not depend on who wrote first. The data object is the claim for its error object too (it is
   * written first, with zero rows if need be), so error rows follow the same chain and are never
   * written twice.
   *
   * <p>A delivery that ends inside a stored claim ({@code b} past its last offset) leaves a
   * zero-row pointer object where the mapping will restart, named as that restart will name its
   * object and claiming the rest of {@code [.., b]}; the restart then meets it instead of writing
   * those records again.
   */
  @Override
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
    // The mapping restarts a partition after its last offset, or at the offset the fan-out guard
    // deferred from: either way that is where this delivery ends, and where pointers go.
    Map<String, Long> partitionEnds = partitionEnds(guarded);
    grouping.deferredFrom().forEach((tp, from) -> partitionEnds.merge(tp, from - 1, Math::min));
    Map<String, List<long[]>> claims = new HashMap<>();
    for (ObjectGroup group : grouping.groups()) {
      TopicTally tally = tallies.computeIfAbsent(group.topic(), TopicTally::new);
      tally.add(group);
      UploadException blocked =
          bucketWide != null ? bucketWide : blockedBy(group, unwrittenFrom, unwrittenBecause);
      if (blocked != null) {
        tally.failed += group.recordCount();
        markUnwritten(group, group.start(), blocked, failures, unwrittenFrom, unwrittenBecause);
        continue;
      }
      try {
        if (group.placed()) {
          archiveChain(group, partitionEnds.get(tp(group)), deadline, tally, claims);
        } else {
          archiveUnplaced(group, deadline, tally);
        }
      } catch (ChainFailure f) {
        tally.failed += f.unwritten().recordCount();
        tally.failedRetries += Math.max(0, f.cause().attempts() - 1);
        markUnwritten(
            group, f.unwritten().start(), f.cause(), failures, unwrittenFrom, unwrittenBecause);
        if (f.cause().type().affectsWholeBucket()) {
          bucketWide = f.cause();
        }
      }
    }
    // Deferred offsets are not moved back like failures: no group of this invocation reaches them,
    // and a claim met there got a pointer at them, so the restart meets a key; moving them back to
    // that claim's start would replay the same batch and defer at the same place again.
    return new BatchOutcome(
        tallies.values().stream().map(TopicTally::outcome).toList(),
        restartOutsideClaims(failures, claims),
        List.of(),
        grouping.deferredFrom());
  }

  /** Writes a placed group as one or more links of its partition's chain. */
  private void archiveChain(
      ObjectGroup group,
      long partitionEnd,
      Deadline deadline,
      TopicTally tally,
      Map<String, List<long[]>> claims)
      throws ChainFailure {
    List<long[]> seen = claims.computeIfAbsent(tp(group), k -> new ArrayList<>());
    ObjectGroup rest = group;
    while (true) {
      // Cut only where the claim would outgrow S3's 2 KB of user metadata.
      Claim fitted = grouper.claim(rest).fitted();
      ObjectGroup piece = fitted.last() < rest.last() ? rest.through(fitted.last()) : rest;
      EncodedGroup encoded;
      try {
        encoded = encode(piece, deadline);
      } catch (UploadException e) {
        throw new ChainFailure(rest, e);
      }
      Claim claim = fitted.withErrorRows(encoded.rejected().size());
      long storedLast;
      try {
        WrittenObject data = putIfAbsent(encoded.data(), claim, deadline, tally);
        if (data != null) {
          tally.objects.add(data);
          if (encoded.errors() != null) {
            WrittenObject errors = putIfAbsent(encoded.errors(), claim, deadline, tally);
            if (errors != null) {
              tally.objects.add(errors);
            }
          }
          tally.written += encoded.result().rowsWritten();
          tally.overflowed += encoded.result().valuesOverflowed();
          tally.tombstones += encoded.result().tombstonesSkipped();
          tally.errored += encoded.rejected().size();
          tally.rejected.addAll(encoded.rejected());
          storedLast = piece.last();
        } else {
          Claim stored = storedClaim(encoded.data().key(), deadline);
          storedLast = stored.last();
          ObjectGroup covered = rest.through(storedLast);
          tally.alreadyArchived += covered.recordCount();
          if (stored.errorRows() > 0 && storedLast <= group.last()) {
            // The claim's writer may have stopped before its error object: this delivery holds
            // every record of the claim, so it can write that object, the same bytes, once.
            EncodedGroup again = encode(covered, deadline);
            if (again.errors() != null) {
              WrittenObject errors = putIfAbsent(again.errors(), stored, deadline, tally);
              if (errors != null) {
                tally.objects.add(errors);
              }
            }
          } else if (stored.errorRows() > 0) {
            requireErrorObject(rest, stored, deadline);
          }
          if (storedLast > partitionEnd) {
            leavePointer(group, stored, partitionEnd + 1, deadline, tally);
          }
        }
      } catch (UploadException e) {
        throw new ChainFailure(rest, e);
      }
      seen.add(new long[] {piece.start(), storedLast});
      ObjectGroup next = rest.from(storedLast + 1);
      if (next.recordCount() == 0) {
        return;
      }
      rest = grouper.restartAt(next, firstOffset(next));
    }
  }

  /**
   * A claim with error rows whose error object is missing (its writer stopped in between), met by a
   * delivery that does not hold the claim's whole range, so it cannot write that object. Moving on
   * would lose those error rows for good: the partition is reported (or the batch failed) from the
   * claim's start instead, until a delivery that holds the whole range comes.
   */
  private void requireErrorObject(ObjectGroup rest, Claim stored, Deadline deadline)
      throws UploadException {
    String key = keys.errorKey(rest, rest.jobId(config.format().configName()));
    if (store.metadata(key, deadline).isPresent()) {
      return;
    }
    throw new UploadException(
        ErrorType.SERVER_ERROR,
        "the error object s3://"
            + config.bucketName()
            + "/"
            + config.shownKey(key)
            + " of offsets "
            + stored.first()
            + "-"
            + stored.last()
            + " is missing (an earlier invocation stopped after its data object), and this batch"
            + " ends at "
            + rest.last()
            + ", so it cannot write it; the partition will be redelivered from "
            + stored.first(),
        1,
        null);
  }

  /**
   * The mapping will restart this partition at {@code cut}, inside {@code stored}'s range: leave a
   * claim-only object where that restart will name its first object.
   */
  private void leavePointer(
      ObjectGroup group, Claim stored, long cut, Deadline deadline, TopicTally tally)
      throws UploadException {
    var pointer = stored.pointerAt(cut, grouper.zone());
    if (pointer.isEmpty()) {
      return;
    }
    Claim claim = pointer.get().claim();
    ObjectGroup empty =
        new ObjectGroup(
            group.topic(),
            group.partition(),
            claim.first(),
            pointer.get().folder(),
            List.of(),
            List.of(),
            // The claim met is this group's key, so its record-variable values are the group's.
            group.folderValues());
    EncodedGroup encoded = encode(empty, deadline);
    WrittenObject written = putIfAbsent(encoded.data(), claim, deadline, tally);
    if (written != null) {
      tally.objects.add(written);
    }
  }

  private Claim storedClaim(String key, Deadline deadline) throws UploadException {
    var metadata = store.metadata(key, deadline);
    if (metadata.isEmpty()) {
      // Deleted between our put and our read: not ours to recreate in this invocation.
      throw new UploadException(
          ErrorType.SERVER_ERROR,
          "s3://"
              + config.bucketName()
              + "/"
              + config.shownKey(key)
              + " existed when it was written and was gone when its offset range was read; the"
              + " batch will be retried",
          1,
          null);
    }
    return Claim.fromMetadata(metadata.get())
        .orElseThrow(
            () ->
                new UploadException(
                    ErrorType.INVALID_REQUEST,
                    "s3://"
                        + config.bucketName()
                        + "/"
                        + config.shownKey(key)
                        + " exists but carries no offset range (x-amz-meta-"
                        + Claim.OFFSETS
                        + "), so it was not written by this version of the archiver; move it"
                        + " out of KEY_PREFIX '"
                        + config.keyPrefix()
                        + "' or choose another KEY_PREFIX",
                    1,
                    null));
  }

  /** Records rejected without partition or offset: one error object, named by their content. */
  private void archiveUnplaced(ObjectGroup group, Deadline deadline, TopicTally tally)
      throws ChainFailure {
    EncodedGroup encoded;
    try {
      encoded = encode(group, deadline);
    } catch (UploadException e) {
      throw new ChainFailure(group, e);
    }
    try {
      if (encoded.errors() != null) {
        var r =
            store.putIfAbsent(
                encoded.errors().key(),
                encoded.errors().body(),
                encoded.errors().contentType(),
                Map.of(),
                deadline);
        if (r.created()) {
          tally.objects.add(written(encoded.errors(), r)); // else: the same bytes, written before
        } else {
          tally.failedRetries += r.attempts() - 1;
        }
      }
    } catch (UploadException e) {
      throw new ChainFailure(group, e);
    }
    tally.errored += encoded.rejected().size();
    tally.rejected.addAll(encoded.rejected());
  }

  /** The put's object, or null when the key existed and nothing was written. */
  private WrittenObject putIfAbsent(
      PendingObject o, Claim claim, Deadline deadline, TopicTally tally) throws UploadException {
    var result =
        store.putIfAbsent(o.key(), o.body(), o.contentType(), claim.toMetadata(), deadline);
    if (!result.created()) {
      // Retries spent before meeting the key (often this put's own first write, its answer lost)
      // are still retries: without this, uploadRetries reads 0 after a burst of lost answers.
      tally.failedRetries += result.attempts() - 1;
    }
    return result.created() ? written(o, result) : null;
  }

  /**
   * A reported offset inside a claim of this invocation (possible when a partition's records fall
   * into several folders whose offsets interleave) moves back to that claim's start: the restart
   * then meets the claim instead of naming a new object inside it.
   */
  private static List<BatchOutcome.Failure> restartOutsideClaims(
      List<BatchOutcome.Failure> failures, Map<String, List<long[]>> claims) {
    List<BatchOutcome.Failure> out = new ArrayList<>(failures.size());
    for (BatchOutcome.Failure f : failures) {
      Map<String, Long> offsets = new LinkedHashMap<>();
      f.firstOffsets()
          .forEach(
              (tp, offset) -> {
                long at = offset;
                boolean moved = true;
                while (moved) {
                  moved = false;
                  for (long[] c : claims.getOrDefault(tp, List.of())) {
                    if (c[0] < at && at <= c[1]) {
                      at = c[0];
                      moved = true;
                    }
                  }
                }
                offsets.put(tp, at);
              });
      out.add(new BatchOutcome.Failure(f.topic(), offsets, f.error()));
    }
    return out;
  }

  private static long firstOffset(ObjectGroup g) {
    long first = Long.MAX_VALUE;
    for (KafkaRecord r : g.records()) {
      first = Math.min(first, r.offset());
    }
    for (RejectedRecord r : g.rejected()) {
      if (r.offset() != null) {
        first = Math.min(first, r.offset());
      }
    }
    return first;
  }

  private static String tp(ObjectGroup g) {
    return new TopicPartition(g.topic(), g.partition()).id();
  }

  /** The last offset of each topic-partition in the batch: where the mapping resumes after it. */
  private static Map<String, Long> partitionEnds(KafkaBatch batch) {
    Map<String, Long> ends = new HashMap<>();
    for (KafkaRecord r : batch.records()) {
      ends.merge(r.topicPartition(), r.offset(), Math::max);
    }
    for (RejectedRecord r : batch.rejected()) {
      if (r.partition() != null && r.offset() != null) {
        ends.merge(r.topic() + "-" + r.partition(), r.offset(), Math::max);
      }
    }
    return ends;
  }

  /** The rest of a group, from where its chain could not be written, and why. */
  private static final class ChainFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient ObjectGroup unwritten;
    private final UploadException cause;

    ChainFailure(ObjectGroup unwritten, UploadException cause) {
      super(cause.getMessage(), cause, false, false);
      this.unwritten = unwritten;
      this.cause = cause;
    }

    ObjectGroup unwritten() {
      return unwritten;
    }

    UploadException cause() {
      return cause;
    }
  }

  /** Per-topic counts while a batch is archived. */
  private static final class TopicTally {
    private final String topic;
    private int in;
    private int written;
    private int errored;
    private int tombstones;
    private int failed;
    private int alreadyArchived;
    private int failedRetries;
    private int deferred;
    private int timeFallbacks;
    private int overflowed;
    private long earliest = Long.MAX_VALUE;
    private final List<WrittenObject> objects = new ArrayList<>();
    private final List<RejectedRecord> rejected = new ArrayList<>();

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
          alreadyArchived,
          earliest == Long.MAX_VALUE ? -1 : earliest,
          objects,
          failedRetries,
          rejected,
          deferred,
          timeFallbacks,
          overflowed);
    }
  }

  /** The failure that stops this group, if it holds records at or after an unwritten offset. */
  private static UploadException blockedBy(
      ObjectGroup group, Map<String, Long> unwrittenFrom, Map<String, UploadException> because) {
    if (!group.placed()) {
      return null;
    }
    Long from = unwrittenFrom.get(tp(group));
    if (from != null && group.last() >= from) {
      return because.get(tp(group));
    }
    return null;
  }

  private static void markUnwritten(
      ObjectGroup group,
      long from,
      UploadException cause,
      List<BatchOutcome.Failure> failures,
      Map<String, Long> unwrittenFrom,
      Map<String, UploadException> because) {
    Map<String, Long> firstOffsets = new LinkedHashMap<>();
    if (group.placed()) {
      String tp = tp(group);
      firstOffsets.put(tp, from);
      unwrittenFrom.merge(tp, from, Math::min);
      because.putIfAbsent(tp, cause);
    }
    failures.add(new BatchOutcome.Failure(group.topic(), firstOffsets, cause));
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
      EncodeResult result,
      List<RejectedRecord> rejected,
      PendingObject data,
      PendingObject errors) {}

  private EncodedGroup encode(ObjectGroup group, Deadline deadline) throws UploadException {
    var jobId = group.jobId(config.format().configName());
    try {
      ByteArrayOutputStream buffer = new ByteArrayOutputStream(estimate(group));
      CountingOutputStream raw;
      EncodeResult result;
      // Parquet compresses its column chunks itself; text formats are wrapped whole.
      try (OutputStream compressed =
          config.format().compressesItself() ? buffer : config.compression().wrap(buffer)) {
        raw = new CountingOutputStream(compressed);
        result = encoder.encode(group.topic(), group.records(), raw, deadline);
      }
      // Written even with zero rows (only tombstones or error rows, or a pointer): the data
      // object is what claims the group's offsets in its partition's chain.
      PendingObject data =
          new PendingObject(
              keys.dataKey(group, jobId),
              WrittenObject.Kind.DATA,
              result.rowsWritten(),
              raw.count(),
              // Zero rows: an empty file of the format ("[]", an empty ndjson or csv, a zero-row
              // Parquet file), so a glob over the folder reads in every tool; DuckDB refuses a
              // zero-byte .parquet.
              buffer.toByteArray(),
              contentType());
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
      return new EncodedGroup(result, rejected, data, errors);
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

  private static WrittenObject written(PendingObject o, ObjectStore.PutResult result) {
    return new WrittenObject(
        o.key(),
        o.kind(),
        o.rows(),
        o.rawBytes(),
        o.body().length,
        result.attempts(),
        result.millis());
  }
}
