package io.kafkas3archiver.restore;

import io.kafkas3archiver.decode.Header;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Restores an archived range into a Kafka topic: index the archive (one read per object), print the
 * plan, then produce in per-partition offset order inside transactions that also write the
 * checkpoint, so an interrupted run resumes with no duplicate and no gap.
 *
 * <p>The checkpoint lives in the target cluster: a compacted topic holding, per source partition,
 * the last source offset restored. It is written in the same Kafka transaction as the records, so
 * the two cannot disagree. Readers of the target see only committed records when they read with
 * {@code isolation.level=read_committed}; a run killed mid-transaction leaves aborted records that
 * such readers skip.
 */
public final class Restorer {
  private final RestoreOptions options;
  private final ArchiveReader reader;
  private final PrintStream out;
  private final Map<String, Object> clientProperties;

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
    this.clientProperties = clientProperties(options);
  }

  static Map<String, Object> clientProperties(RestoreOptions options) {
    Map<String, Object> p = new LinkedHashMap<>();
    options.bootstrapServers().ifPresent(b -> p.put("bootstrap.servers", b));
    if (options.mskIam()) {
      p.put("security.protocol", "SASL_SSL");
      p.put("sasl.mechanism", "AWS_MSK_IAM");
      p.put("sasl.jaas.config", "software.amazon.msk.auth.iam.IAMLoginModule required;");
      p.put(
          "sasl.client.callback.handler.class",
          "software.amazon.msk.auth.iam.IAMClientCallbackHandler");
    }
    p.putAll(options.producerProperties());
    return p;
  }

  public Result run() throws IOException, InterruptedException {
    long started = System.nanoTime();
    Map<Integer, Long> checkpoint = Map.of();
    int targetPartitions = -1;
    Admin admin = null;
    try {
      if (!options.dryRun()) {
        admin = Admin.create(adminProperties());
        targetPartitions = targetPartitions(admin);
        if (!options.verifyOnly()) {
          ensureCheckpointTopic(admin);
          checkpoint = options.restart() ? Map.of() : loadCheckpoint();
        }
      }
      Index index = index(checkpoint);
      printPlan(index, checkpoint);
      if (options.dryRun()) {
        return new Result(
            index.objects,
            index.records,
            index.bytes,
            index.alreadyRestored,
            0,
            index.errorRows,
            seconds(started),
            false);
      }
      checkTargetPartitions(index.maxPartition, targetPartitions);
      warnAboutRetention(admin, index);
      Counters produced = new Counters();
      long duplicates = 0;
      if (!options.verifyOnly()) {
        duplicates =
            produce(
                    index.plan,
                    checkpoint,
                    produced,
                    index.records - index.alreadyRestored,
                    index.bytes,
                    index.objects,
                    () -> false)
                .duplicates();
        out.printf(
            Locale.ROOT,
            "restored %,d records (%s) from %,d objects into %s in %.1f s (%.1f MB/s, %,.0f"
                + " records/s); %,d already restored, %,d duplicate rows dropped%n",
            produced.records,
            mb(produced.bytes),
            index.objects,
            options.targetTopic(),
            seconds(started),
            produced.bytes / 1e6 / Math.max(1e-3, seconds(started)),
            produced.records / Math.max(1e-3, seconds(started)),
            index.alreadyRestored,
            duplicates);
      }
      boolean verified = false;
      if (options.verify()) {
        verified = verify(index, admin);
      }
      return new Result(
          index.objects,
          produced.records,
          produced.bytes,
          index.alreadyRestored,
          duplicates,
          index.errorRows,
          seconds(started),
          verified);
    } finally {
      if (admin != null) {
        admin.close(Duration.ofSeconds(5));
      }
    }
  }

  private void checkTargetPartitions(int maxPartition, int targetPartitions) {
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

  /** The index pass alone, for the restore Lambda's plan step: figures and the ordered objects. */
  record Planned(ArchivePlan plan, long objects, long records, long bytes, long errorRows) {}

  /** Lists and reads the archive once, prints the plan, and returns it. Needs no Kafka. */
  Planned plan() throws IOException, InterruptedException {
    Index index = index(Map.of());
    printPlan(index, Map.of());
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
    try (Admin admin = Admin.create(adminProperties())) {
      int maxPartition =
          plan.entries().stream()
              .flatMap(e -> e.spans().keySet().stream())
              .mapToInt(Integer::intValue)
              .max()
              .orElse(-1);
      checkTargetPartitions(maxPartition, targetPartitions(admin));
      ensureCheckpointTopic(admin);
      Map<Integer, Long> checkpoint = loadCheckpoint();
      long records = 0;
      long bytes = 0;
      for (ArchivePlan.Entry e : plan.entries()) {
        for (var span : e.spans().entrySet()) {
          if (span.getValue().maxOffset() > checkpoint.getOrDefault(span.getKey(), -1L)) {
            records += span.getValue().records();
            bytes += span.getValue().bytes();
          }
        }
      }
      Counters done = new Counters();
      Produced produced =
          produce(plan, checkpoint, done, records, bytes, plan.entries().size(), outOfTime);
      Map<Integer, Long> upTo = new TreeMap<>(checkpoint);
      upTo.putAll(done.last);
      // Time ran out right after the last object: the plan is done all the same, and saying so
      // spares the state machine one more invocation.
      boolean complete =
          produced.complete()
              || plan.entries().stream()
                  .allMatch(
                      e ->
                          e.spans().entrySet().stream()
                              .allMatch(
                                  s ->
                                      s.getValue().maxOffset()
                                          <= upTo.getOrDefault(s.getKey(), -1L)));
      return new Slice(done.records, done.bytes, complete, upTo);
    }
  }

  /** Thrown with a message that says what is wrong and what to do. */
  public static final class RestoreException extends RuntimeException {
    public RestoreException(String message) {
      super(message);
    }

    public RestoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  // ---- index ----

  private static final class Index {
    ArchivePlan plan;
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
    boolean approximate;
    long minTimestamp = Long.MAX_VALUE;
    long maxTimestamp = Long.MIN_VALUE;
    int maxPartition = -1;
    final Map<Integer, ArchivePlan.Span> partitions = new TreeMap<>();
    final List<String> errorObjectLines = new ArrayList<>();
    final List<String> unrecognised = new ArrayList<>();
  }

  private Predicate<ArchivedRecord> inRange() {
    return r -> {
      if (r.partition() == ArchivedRecord.NO_PARTITION) {
        return true;
      }
      if (!options.partitions().isEmpty() && !options.partitions().contains(r.partition())) {
        return false;
      }
      if (r.offset() < options.fromOffset() || r.offset() > options.toOffset()) {
        return false;
      }
      if (options.from().isPresent() && r.timestamp() < options.from().get().toEpochMilli()) {
        return false;
      }
      return options.to().isEmpty() || r.timestamp() < options.to().get().toEpochMilli();
    };
  }

  private Index index(Map<Integer, Long> checkpoint) throws IOException, InterruptedException {
    Index index = new Index();
    ArchiveReader.Listing data = reader.list(options.dataPrefix(), ArchiveObject.Kind.DATA);
    ArchiveReader.Listing errors = reader.list(options.errorPrefix(), ArchiveObject.Kind.ERROR);
    index.unrecognised.addAll(data.skipped());
    index.unrecognised.addAll(errors.skipped());
    List<ArchiveObject> objects = new ArrayList<>(data.objects());
    objects.addAll(errors.objects());
    Predicate<ArchivedRecord> inRange = inRange();
    List<ArchivePlan.Entry> entries = new ArrayList<>();
    int ordinal = 0;
    for (ArchiveObject object : objects) {
      ObjectRows rows = reader.read(object, ordinal);
      boolean error = object.kind() == ArchiveObject.Kind.ERROR;
      if (error) {
        index.errorObjects++;
        index.errorRows += rows.records().size() + rows.undecodableRows();
        index.undecodableRows += rows.undecodableRows();
        index.errorObjectLines.add(
            "  "
                + object.key()
                + " ("
                + rows.records().size()
                + " records"
                + (rows.undecodableRows() > 0
                    ? ", " + rows.undecodableRows() + " undecodable events, not restorable"
                    : "")
                + ")");
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
        if (!inRange.test(r)) {
          continue;
        }
        if (r.offset() <= checkpoint.getOrDefault(r.partition(), Long.MIN_VALUE)) {
          index.alreadyRestored++;
        }
        spans.merge(r.partition(), ArchivePlan.Span.of(r), (a, b) -> a.plus(r));
        count(index, r);
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
      index.records = 0;
      index.bytes = 0;
      index.tombstones = 0;
      index.partitions.clear();
      index.plan.walk(
          entry -> reader.read(entry.object(), entry.ordinal()),
          inRange,
          Map.of(),
          (r, from) -> count(index, r));
    } else {
      index.approximate = true;
    }
    return index;
  }

  private static void count(Index index, ArchivedRecord r) {
    index.records++;
    index.bytes += r.payloadBytes();
    if (r.isTombstone()) {
      index.tombstones++;
    }
    if (r.timestamp() >= 0) {
      index.minTimestamp = Math.min(index.minTimestamp, r.timestamp());
      index.maxTimestamp = Math.max(index.maxTimestamp, r.timestamp());
    }
    index.maxPartition = Math.max(index.maxPartition, r.partition());
    index.partitions.merge(r.partition(), ArchivePlan.Span.of(r), (a, b) -> a.plus(r));
  }

  private void printPlan(Index index, Map<Integer, Long> checkpoint) {
    out.printf(
        Locale.ROOT,
        "archive s3://%s/%s: %,d objects (%s stored), %,d records%s, %s of keys, values and"
            + " headers, %,d tombstones%n",
        options.bucket(),
        options.dataPrefix(),
        index.objects,
        mb(index.storedBytes),
        index.records,
        index.approximate ? " (rows, before duplicates are dropped)" : "",
        mb(index.bytes),
        index.tombstones);
    if (index.minTimestamp <= index.maxTimestamp) {
      out.printf(
          "time span: %s .. %s%n",
          Instant.ofEpochMilli(index.minTimestamp), Instant.ofEpochMilli(index.maxTimestamp));
    }
    index.partitions.forEach(
        (p, s) ->
            out.printf(
                Locale.ROOT,
                "  partition %s: offsets %d..%d, %,d records%s%n",
                p == ArchivedRecord.NO_PARTITION ? "(none, values only)" : p,
                s.minOffset(),
                s.maxOffset(),
                s.records(),
                checkpoint.containsKey(p) ? ", restored up to offset " + checkpoint.get(p) : ""));
    if (index.valuesOnlyObjects > 0) {
      out.printf(
          "WARNING: %d objects were written without Kafka metadata (INCLUDE_KAFKA_METADATA=false):"
              + " only their values are restored. Keys, headers, timestamps and partition numbers"
              + " were never archived, tombstones were skipped by the archiver, and values are"
              + " produced in object-key order through the target's partitioner.%n",
          index.valuesOnlyObjects);
      if (!options.partitions().isEmpty()
          || options.from().isPresent()
          || options.to().isPresent()
          || options.fromOffset() > 0
          || options.toOffset() < Long.MAX_VALUE) {
        out.println(
            "WARNING: the partition, offset and time filters cannot apply to values-only rows;"
                + " narrow such a restore with --list-prefix (e.g. one day folder).");
      }
    }
    if (index.errorObjects > 0) {
      out.printf(
          "error objects: %d with %,d records (%s)%n",
          index.errorObjects,
          index.errorRows,
          options.includeErrors()
              ? "restored with their raw bytes (--include-errors)"
              : "NOT restored; pass --include-errors to restore them with their raw bytes");
      index.errorObjectLines.forEach(out::println);
    }
    if (index.otherTopicRows > 0) {
      out.printf("skipped %,d rows of other topics%n", index.otherTopicRows);
    }
    if (!index.unrecognised.isEmpty()) {
      out.printf(
          "skipped %d objects whose names are not archive objects, e.g. %s%n",
          index.unrecognised.size(), index.unrecognised.get(0));
    }
    if (index.alreadyRestored > 0) {
      out.printf(
          "checkpoint: %,d records already restored; resuming after them (--restart to redo)%n",
          index.alreadyRestored);
    }
  }

  // ---- produce ----

  private static final class Counters {
    long records;
    long bytes;
    final Map<Integer, Long> last = new HashMap<>();
  }

  /** What one produce pass did: duplicates dropped, and whether it reached the plan's end. */
  private record Produced(long duplicates, boolean complete) {}

  /** Thrown by the sink at an object boundary once the caller's time is up. */
  private static final class OutOfTime extends RuntimeException {
    OutOfTime() {
      super(null, null, false, false);
    }
  }

  /**
   * Produces {@code plan} after {@code checkpoint}. {@code outOfTime} is asked after each object: a
   * true answer commits what was produced (records and checkpoint together) and stops, so the next
   * call resumes exactly there.
   */
  private Produced produce(
      ArchivePlan plan,
      Map<Integer, Long> checkpoint,
      Counters done,
      long toDo,
      long bytesToDo,
      long objectsToDo,
      BooleanSupplier outOfTime)
      throws IOException, InterruptedException {
    Map<String, Object> props = new HashMap<>(clientProperties);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 10);
    props.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, options.transactionalId());
    long started = System.nanoTime();
    long[] lastProgress = {started};
    long[] objectsDone = {0};
    Map<Integer, Long> lastInTxn = new HashMap<>();
    int[] inTxn = {0};
    double bytesPerNano = options.maxMbPerSec() * 1e6 / 1e9;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      try {
        producer.initTransactions();
        producer.beginTransaction();
        ArchivePlan.Sink sink =
            new ArchivePlan.Sink() {
              @Override
              public void accept(ArchivedRecord r, ArchivePlan.Entry from)
                  throws InterruptedException {
                Integer partition =
                    options.rekey() || r.partition() == ArchivedRecord.NO_PARTITION
                        ? null
                        : r.partition();
                List<org.apache.kafka.common.header.Header> headers =
                    new ArrayList<>(r.headers().size());
                for (Header h : r.headers()) {
                  headers.add(new RecordHeader(h.name(), h.value()));
                }
                producer.send(
                    new ProducerRecord<>(
                        options.targetTopic(),
                        partition,
                        r.timestamp() >= 0 ? r.timestamp() : null,
                        r.key(),
                        r.value(),
                        headers));
                lastInTxn.put(r.partition(), r.offset());
                done.last.put(r.partition(), r.offset());
                done.records++;
                done.bytes += r.payloadBytes();
                if (++inTxn[0] >= options.transactionRecords()) {
                  commit(producer, lastInTxn);
                  inTxn[0] = 0;
                  producer.beginTransaction();
                }
                if (bytesPerNano > 0) {
                  long due = started + (long) (done.bytes / bytesPerNano);
                  long ahead = due - System.nanoTime();
                  if (ahead > 2_000_000) {
                    TimeUnit.NANOSECONDS.sleep(ahead);
                  }
                }
              }

              @Override
              public void objectDone(ArchivePlan.Entry entry) {
                objectsDone[0]++;
                long now = System.nanoTime();
                if (now - lastProgress[0] >= options.progressIntervalMs() * 1_000_000) {
                  lastProgress[0] = now;
                  double secs = (now - started) / 1e9;
                  double rate = done.records / Math.max(1e-3, secs);
                  long eta = rate > 0 ? (long) ((toDo - done.records) / rate) : -1;
                  out.printf(
                      Locale.ROOT,
                      "progress: objects %,d/%,d, records %,d/%,d, %s/%s, %.1f MB/s, ETA %ds%n",
                      objectsDone[0],
                      objectsToDo,
                      done.records,
                      toDo,
                      mb(done.bytes),
                      mb(bytesToDo),
                      done.bytes / 1e6 / Math.max(1e-3, secs),
                      Math.max(0, eta));
                }
                if (outOfTime.getAsBoolean()) {
                  throw new OutOfTime();
                }
              }
            };
        long duplicates;
        boolean complete = true;
        try {
          duplicates =
              plan.walk(
                  entry -> reader.read(entry.object(), entry.ordinal()),
                  inRange(),
                  checkpoint,
                  sink);
        } catch (OutOfTime e) {
          duplicates = 0;
          complete = false;
        }
        commit(producer, lastInTxn);
        return new Produced(duplicates, complete);
      } catch (ProducerFencedException e) {
        throw new RestoreException(
            "another restore with transactional id "
                + options.transactionalId()
                + " started and fenced this one; run one restore per target topic at a time",
            e);
      } catch (KafkaException e) {
        try {
          producer.abortTransaction();
        } catch (KafkaException ignored) {
          // The producer may be in a state where abort is impossible; the broker aborts on timeout.
        }
        throw new RestoreException(
            "the target cluster refused the restore ("
                + e.getClass().getSimpleName()
                + ": "
                + e.getMessage()
                + "); nothing after the last checkpoint was committed, so rerunning resumes there."
                + " Check --bootstrap-servers, the auth settings and the producer's ACLs"
                + " (Write and IdempotentWrite on the topic, Write on the transactional id)",
            e);
      }
    }
  }

  /** Commits the open transaction together with the checkpoint of every partition it touched. */
  private void commit(KafkaProducer<byte[], byte[]> producer, Map<Integer, Long> lastInTxn) {
    for (Map.Entry<Integer, Long> e : lastInTxn.entrySet()) {
      producer.send(
          new ProducerRecord<>(
              options.checkpointTopic(),
              0,
              checkpointKey(e.getKey()).getBytes(StandardCharsets.UTF_8),
              Long.toString(e.getValue()).getBytes(StandardCharsets.UTF_8)));
    }
    producer.commitTransaction();
    lastInTxn.clear();
  }

  private String checkpointKey(int partition) {
    return "s3://"
        + options.bucket()
        + "/"
        + options.dataPrefix()
        + "|"
        + options.topic()
        + "|"
        + partition;
  }

  // ---- target cluster ----

  private Map<String, Object> adminProperties() {
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.putIfAbsent("request.timeout.ms", 15_000);
    p.putIfAbsent("default.api.timeout.ms", 30_000);
    return p;
  }

  private int targetPartitions(Admin admin) throws InterruptedException {
    try {
      TopicDescription d =
          admin
              .describeTopics(List.of(options.targetTopic()))
              .topicNameValues()
              .get(options.targetTopic())
              .get(30, TimeUnit.SECONDS);
      return d.partitions().size();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw new RestoreException(
            "the target topic "
                + options.targetTopic()
                + " does not exist; create it first (the restore never creates it, so its"
                + " partitions, replication and retention stay your choice), e.g. kafka-topics.sh"
                + " --create --topic "
                + options.targetTopic()
                + " --partitions <the source's count> --config retention.ms=-1");
      }
      throw new RestoreException(
          "could not describe the target topic on "
              + options.bootstrapServers().orElse("?")
              + ": "
              + e.getCause().getMessage()
              + "; check --bootstrap-servers and the auth settings",
          e.getCause());
    } catch (TimeoutException e) {
      throw new RestoreException(
          "the target cluster "
              + options.bootstrapServers().orElse("?")
              + " did not answer within 30 s; check --bootstrap-servers, security.protocol and"
              + " network access",
          e);
    }
  }

  /**
   * Restored records keep their old create times, and a broker deletes by time: a record older than
   * the target's retention.ms is deleted at the next retention check.
   */
  private void warnAboutRetention(Admin admin, Index index) throws InterruptedException {
    if (index.minTimestamp == Long.MAX_VALUE) {
      return;
    }
    try {
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, options.targetTopic());
      Config config =
          admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
      ConfigEntry retention = config.get("retention.ms");
      if (retention != null && retention.value() != null) {
        long ms = Long.parseLong(retention.value());
        if (ms >= 0 && index.minTimestamp < System.currentTimeMillis() - ms) {
          out.printf(
              "WARNING: the oldest record (%s) is older than the target's retention.ms=%d: the"
                  + " broker will delete such records soon after they are restored. Set"
                  + " retention.ms=-1 (or long enough) on %s first.%n",
              Instant.ofEpochMilli(index.minTimestamp), ms, options.targetTopic());
        }
      }
    } catch (ExecutionException | TimeoutException | NumberFormatException e) {
      out.println("note: could not read the target's retention.ms (" + e.getMessage() + ")");
    }
  }

  private void ensureCheckpointTopic(Admin admin) throws InterruptedException {
    try {
      admin
          .createTopics(
              List.of(
                  new NewTopic(
                          options.checkpointTopic(),
                          java.util.Optional.of(1),
                          java.util.Optional.empty())
                      .configs(Map.of("cleanup.policy", "compact"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new RestoreException(
            "could not create the checkpoint topic "
                + options.checkpointTopic()
                + ": "
                + e.getCause().getMessage()
                + "; create it (1 partition, cleanup.policy=compact) or name another with"
                + " --checkpoint-topic",
            e.getCause());
      }
    } catch (TimeoutException e) {
      throw new RestoreException("creating the checkpoint topic timed out after 30 s", e);
    }
  }

  /** The last restored source offset per partition, from committed checkpoint records. */
  private Map<Integer, Long> loadCheckpoint() {
    String prefix = checkpointKey(0);
    prefix = prefix.substring(0, prefix.length() - 1);
    Map<Integer, Long> restored = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      for (ConsumerRecord<byte[], byte[]> r : readAll(consumer, options.checkpointTopic())) {
        String key = new String(r.key(), StandardCharsets.UTF_8);
        if (key.startsWith(prefix) && r.value() != null) {
          restored.put(
              Integer.parseInt(key.substring(prefix.length())),
              Long.parseLong(new String(r.value(), StandardCharsets.UTF_8)));
        }
      }
    }
    return restored;
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    return new KafkaConsumer<>(p);
  }

  /**
   * Every committed record of {@code topic}, partition by partition in offset order. Held in memory
   * only for the checkpoint topic; {@link #forEachTargetRecord} streams.
   */
  private static List<ConsumerRecord<byte[], byte[]>> readAll(
      KafkaConsumer<byte[], byte[]> consumer, String topic) {
    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
    forEachTargetRecord(consumer, topic, all::add);
    return all;
  }

  /**
   * Waits, at most {@code max}, until no transaction is open on {@code topic}. A commit returns
   * before the broker has written its markers; until they are written, a read_committed reader's
   * end (the last stable offset) stops short of the last transaction, and a verify or a test that
   * reads the target right after a restore would see it short. Returns whether it settled.
   */
  public static boolean awaitSettledTransactions(Admin admin, String topic, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    try {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      while (true) {
        var stable =
            admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(30, TimeUnit.SECONDS);
        var high =
            admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                .all()
                .get(30, TimeUnit.SECONDS);
        if (latest.keySet().stream()
            .allMatch(tp -> stable.get(tp).offset() == high.get(tp).offset())) {
          return true;
        }
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(100);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new RestoreException("could not read the end offsets of " + topic, e);
    }
  }

  static void forEachTargetRecord(
      KafkaConsumer<byte[], byte[]> consumer,
      String topic,
      java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> action) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(i -> new TopicPartition(topic, i.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
    Set<TopicPartition> open = new HashSet<>();
    for (TopicPartition tp : partitions) {
      if (consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp)) {
        open.add(tp);
      }
    }
    long idleUntil = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!open.isEmpty()) {
      var records = consumer.poll(Duration.ofMillis(200));
      if (!records.isEmpty()) {
        idleUntil = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      }
      records.forEach(action);
      open.removeIf(tp -> consumer.position(tp, Duration.ofSeconds(30)) >= end.get(tp));
      if (System.nanoTime() > idleUntil) {
        throw new RestoreException(
            "reading " + topic + " stalled for 60 s before its end offsets " + end);
      }
    }
  }

  // ---- verify ----

  private boolean verify(Index index, Admin admin) throws IOException, InterruptedException {
    if (!awaitSettledTransactions(admin, options.targetTopic(), Duration.ofSeconds(60))) {
      out.println(
          "WARNING: a transaction is still open on "
              + options.targetTopic()
              + " after 60 s; verify compares only what is committed");
    }
    boolean byPartition =
        !options.rekey() && !index.partitions.containsKey(ArchivedRecord.NO_PARTITION);
    Map<Integer, RecordDigest> archive = new TreeMap<>();
    index.plan.walk(
        entry -> reader.read(entry.object(), entry.ordinal()),
        inRange(),
        Map.of(),
        (r, from) ->
            archive
                .computeIfAbsent(
                    byPartition ? r.partition() : -1, k -> new RecordDigest(byPartition))
                .add(r.timestamp(), r.key(), r.value(), r.headers()));
    Map<Integer, RecordDigest> target = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      forEachTargetRecord(
          consumer,
          options.targetTopic(),
          r -> {
            List<Header> headers = new ArrayList<>();
            r.headers().forEach(h -> headers.add(new Header(h.key(), h.value())));
            target
                .computeIfAbsent(
                    byPartition ? r.partition() : -1, k -> new RecordDigest(byPartition))
                .add(r.timestamp(), r.key(), r.value(), headers);
          });
    }
    Set<Integer> all = new java.util.TreeSet<>(archive.keySet());
    all.addAll(target.keySet());
    boolean ok = true;
    out.println(
        byPartition
            ? "verify (per partition, in order):"
            : "verify (whole topic, order-independent: --rekey or values-only):");
    for (int p : all) {
      RecordDigest a = archive.getOrDefault(p, new RecordDigest(byPartition));
      RecordDigest t = target.getOrDefault(p, new RecordDigest(byPartition));
      boolean same = a.count() == t.count() && a.hex().equals(t.hex());
      ok &= same;
      out.printf(
          Locale.ROOT,
          "  %s: archive %,d records %s, target %,d records %s  %s%n",
          byPartition ? "partition " + p : "topic",
          a.count(),
          a.hex(),
          t.count(),
          t.hex(),
          same ? "OK" : "MISMATCH");
    }
    out.println(
        ok
            ? "verify: OK"
            : "verify: MISMATCH (the target holds other records too, or the restore is"
                + " incomplete; rerun the restore, then --verify-only)");
    return ok;
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }
}
