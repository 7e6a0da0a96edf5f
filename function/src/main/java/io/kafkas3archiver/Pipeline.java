package io.kafkas3archiver;

import io.kafkas3archiver.chain.ChainWriter;
import io.kafkas3archiver.chain.GroupEncoder;
import io.kafkas3archiver.chain.Ledger;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.encode.BodyBuffer;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.CountingOutputStream;
import io.kafkas3archiver.encode.EncodeResult;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.ErrorObjectEncoder;
import io.kafkas3archiver.group.Grouper;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.group.RecordPartitioner;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.TopicOutcome;
import io.kafkas3archiver.report.WrittenObject;
import io.kafkas3archiver.schema.DeclaredSchema;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.table.BatchArchiver;
import io.kafkas3archiver.upload.DeclaredSchemas;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.PersistedSchemas;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * decode → group → encode (+compress) → upload → report, for one batch. Built once at init; holds
 * no per-invocation state.
 */
public final class Pipeline implements BatchArchiver {
  private final ArchiverConfig config;
  private final Grouper grouper;
  private final Encoder encoder;
  private final ErrorObjectEncoder errorEncoder = new ErrorObjectEncoder();
  private final ChainWriter chain;

  public Pipeline(ArchiverConfig config, ObjectStore store, Clock clock) {
    this(config, store, clock, SchemaCatalog.none());
  }

  /** With the schema registry ({@code SCHEMA_REGISTRY_URI}) whose schemas type Parquet columns. */
  public Pipeline(ArchiverConfig config, ObjectStore store, Clock clock, SchemaCatalog schemas) {
    this(config, store, clock, schemas, DeclaredSchemas.inlineOnly(config));
  }

  /**
   * With the loader of the declared schema ({@code PARQUET_SCHEMA}: {@link DeclaredSchemas}; null
   * when none), called on the first batch that needs it. The constructors above take only an inline
   * schema: they serve priming and tests, which must not read a Glue table or S3 document.
   */
  public Pipeline(
      ArchiverConfig config,
      ObjectStore store,
      Clock clock,
      SchemaCatalog schemas,
      Supplier<DeclaredSchema> declared) {
    this.config = config;
    ObjectKeyTemplate keys = config.keyTemplate();
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
            schemas,
            SchemaSource.declaring(new PersistedSchemas(store, config.keyPrefix()), declared));
    if (!config.format().compressesItself()) {
      config.compression().prime(); // Parquet's encoder primes its own codec
    }
    this.chain = new ChainWriter(config, this::encode, store);
  }

  /**
   * Archives a batch exactly once by (topic, partition, offset), whatever earlier deliveries of the
   * same records wrote (DESIGN §1, §3): the groups go to the chain writer, which holds the protocol
   * ({@link ChainWriter}); this method only orchestrates and counts.
   */
  @Override
  public BatchOutcome archive(KafkaBatch batch, Deadline deadline) {
    KafkaBatch guarded = rejectOtherTopics(batch);
    Map<String, TopicTally> tallies = new TreeMap<>();
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
    ChainWriter.Session session = chain.session(partitionEnds);
    for (ObjectGroup group : grouping.groups()) {
      TopicTally tally = tallies.computeIfAbsent(group.topic(), TopicTally::new);
      tally.add(group);
      session.write(group, deadline, tally);
    }
    // Deferred offsets are not moved back like failures: no group of this invocation reaches them,
    // and a claim met there got a pointer at them, so the restart meets a key; moving them back to
    // that claim's start would replay the same batch and defer at the same place again.
    return new BatchOutcome(
        tallies.values().stream().map(TopicTally::outcome).toList(),
        session.failures(),
        List.of(),
        grouping.deferredFrom());
  }

  /** The last offset of each topic-partition in the batch: where the mapping resumes after it. */
  private static Map<String, Long> partitionEnds(KafkaBatch batch) {
    Map<String, Long> ends = new HashMap<>();
    // Once per run of one partition's records (a batch lists them together), not per record.
    KafkaRecord runStart = null;
    long max = 0;
    for (KafkaRecord r : batch.records()) {
      if (runStart != null
          && runStart.partition() == r.partition()
          && runStart.topic().equals(r.topic())) {
        max = Math.max(max, r.offset());
        continue;
      }
      if (runStart != null) {
        ends.merge(runStart.topicPartition(), max, Math::max);
      }
      runStart = r;
      max = r.offset();
    }
    if (runStart != null) {
      ends.merge(runStart.topicPartition(), max, Math::max);
    }
    for (RejectedRecord r : batch.rejected()) {
      if (r.chained()) {
        ends.merge(r.topic() + "-" + r.partition(), r.offset(), Math::max);
      }
    }
    return ends;
  }

  /** Per-topic counts while a batch is archived. */
  private static final class TopicTally implements Ledger {
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

    @Override
    public void written(WrittenObject object) {
      objects.add(object);
    }

    @Override
    public void stored(
        int rows, int tombstonesSkipped, int valuesOverflowed, List<RejectedRecord> errors) {
      written += rows;
      overflowed += valuesOverflowed;
      tombstones += tombstonesSkipped;
      errored += errors.size();
      rejected.addAll(errors);
    }

    @Override
    public void alreadyArchived(int records) {
      alreadyArchived += records;
    }

    @Override
    public void retries(int retries) {
      failedRetries += retries;
    }

    @Override
    public void failed(int records, int retries) {
      failed += records;
      failedRetries += retries;
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
            RejectedRecord.misrouted(
                r, "the record's topic '" + r.topic() + "' is not INPUT_TOPIC '" + topic + "'"));
      }
    }
    return new KafkaBatch(batch.eventSource(), kept, rejected);
  }

  /** The bodies of a group's objects; the chain writer names and writes them. */
  private GroupEncoder.Bodies encode(ObjectGroup group, Deadline deadline) throws UploadException {
    try {
      // A body stored as written gets the buffer itself: json and ndjson values are then shared
      // into it, not copied (two ranges a record: the value and its separator).
      boolean asWritten = asWritten();
      BodyBuffer buffer = new BodyBuffer(firstChunk(group), 2 * group.records().size() + 4);
      long rawBytes;
      EncodeResult result;
      if (asWritten) {
        result = encoder.encode(group.topic(), group.records(), buffer, deadline);
        buffer.close();
        rawBytes = buffer.size();
      } else {
        // Parquet compresses its column chunks itself; text formats are wrapped whole.
        CountingOutputStream raw;
        try (OutputStream compressed =
            config.format().compressesItself() ? buffer : config.compression().wrap(buffer)) {
          raw = new CountingOutputStream(compressed);
          result = encoder.encode(group.topic(), group.records(), raw, deadline);
        }
        rawBytes = raw.count();
      }
      List<RejectedRecord> rejected = new ArrayList<>(group.rejected());
      rejected.addAll(result.rejected());
      byte[] errorLines = null;
      if (!rejected.isEmpty()) {
        ByteArrayOutputStream errorBuffer = new ByteArrayOutputStream();
        errorEncoder.encode(rejected, errorBuffer);
        errorLines = errorBuffer.toByteArray();
      }
      // Zero rows: an empty file of the format ("[]", an empty ndjson or csv, a zero-row Parquet
      // file), so a glob over the folder reads in every tool; DuckDB refuses a zero-byte .parquet.
      return new GroupEncoder.Bodies(
          result, rejected, buffer.toBody(), rawBytes, contentType(), errorLines);
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

  /**
   * The body's expected size when it is stored as written (a json or ndjson body of values shares
   * them and allocates no chunk); a quarter of it when compressed, since the buffer grows in
   * chunks.
   */
  private int firstChunk(ObjectGroup group) {
    long expected = encoder.expectedSize(group.records());
    return (int) Math.min(asWritten() ? expected : expected / 4, 64L * 1024 * 1024);
  }

  /** Whether the body is stored as the encoder writes it: neither compressed nor Parquet. */
  private boolean asWritten() {
    return !config.format().compressesItself() && config.compression() == Compression.NONE;
  }
}
