package io.kafkas3archiver.restore;

import io.kafkas3archiver.decode.Header;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The transactional producer: restored records go out in transactions of {@code
 * --transaction-records}, each committed together with the checkpoint of every partition it
 * touched, so a run killed at any moment resumes with no duplicate and no gap. Also the rate limit
 * and the progress line. The checkpoint topic is created when the first record is ready.
 */
final class TransactionalSink implements ArchivePlan.Sink, AutoCloseable {
  /** The producer's own default, when the command line does not set it. */
  static final long DEFAULT_MAX_REQUEST_SIZE = 1_048_576;

  /** Thrown at an object boundary once the caller's time is up. */
  static final class OutOfTime extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OutOfTime() {
      super(null, null, false, false);
    }
  }

  private final RestoreOptions options;
  private final Checkpoint checkpoint;
  private final PrintStream out;
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicReference<Exception> firstSendFailure = new AtomicReference<>();
  private final Map<Integer, Long> lastInTxn = new HashMap<>();
  private final Map<Integer, Long> done = new HashMap<>();
  private final double bytesPerNano;
  private BooleanSupplier outOfTime = () -> false;
  private Progress progress;
  private boolean inTransaction;
  private int inTxn;
  private long records;
  private long bytes;
  private long started;

  /**
   * Creates the producer and fences every earlier producer with the same transactional id (aborting
   * what a killed run left open), before the checkpoint is read.
   */
  TransactionalSink(
      RestoreOptions options, TargetCluster cluster, Checkpoint checkpoint, PrintStream out) {
    this.options = options;
    this.checkpoint = checkpoint;
    this.out = out;
    this.bytesPerNano = options.maxMbPerSec() * 1e6 / 1e9;
    Map<String, Object> props = new HashMap<>(cluster.clientProperties());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 10);
    props.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, options.transactionalId());
    this.producer = new KafkaProducer<>(props);
    try {
      producer.initTransactions();
    } catch (KafkaException e) {
      producer.close();
      throw new RestoreException(
          "the target cluster "
              + cluster.bootstrapServers()
              + " refused the transactional producer ("
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage()
              + "); check the auth settings and the ACLs: Write on the transactional id "
              + options.transactionalId()
              + ", IdempotentWrite on the cluster",
          e);
    }
  }

  /** {@code max.request.size} as the producer runs with it. */
  static long maxRequestSize(RestoreOptions options) {
    Object v = options.producerProperties().get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    return v == null ? DEFAULT_MAX_REQUEST_SIZE : Long.parseLong(v.toString().trim());
  }

  /** Progress lines over {@code toDo} records in {@code objects} objects. */
  TransactionalSink progress(long toDo, long bytesToDo, long objects) {
    this.progress = new Progress(toDo, bytesToDo, objects);
    return this;
  }

  /** Asked after each object: true commits what was produced and stops the walk there. */
  TransactionalSink stopWhen(BooleanSupplier outOfTime) {
    this.outOfTime = outOfTime;
    return this;
  }

  long records() {
    return records;
  }

  long bytes() {
    return bytes;
  }

  /** The last source offset produced per partition in this run. */
  Map<Integer, Long> restoredUpTo() {
    return Map.copyOf(done);
  }

  @Override
  public void accept(ArchivedRecord r, ArchivePlan.Entry from) throws InterruptedException {
    if (!inTransaction) {
      checkpoint.ensureTopic();
      started = started == 0 ? System.nanoTime() : started;
      producer.beginTransaction();
      inTransaction = true;
    }
    Integer partition =
        options.rekey() || r.partition() == ArchivedRecord.NO_PARTITION ? null : r.partition();
    List<org.apache.kafka.common.header.Header> headers = new ArrayList<>(r.headers().size());
    for (Header h : r.headers()) {
      headers.add(new RecordHeader(h.name(), h.value()));
    }
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            options.targetTopic(),
            partition,
            r.timestamp() >= 0 ? r.timestamp() : null,
            r.key(),
            r.value(),
            headers);
    try {
      producer.send(
          record,
          (metadata, e) -> {
            if (e != null) {
              firstSendFailure.compareAndSet(null, e);
            }
          });
    } catch (RecordTooLargeException e) {
      throw tooLarge(r, e);
    }
    lastInTxn.put(r.partition(), r.offset());
    done.put(r.partition(), r.offset());
    records++;
    bytes += r.payloadBytes();
    if (++inTxn >= options.transactionRecords()) {
      commit();
    }
    if (bytesPerNano > 0) {
      long due = started + (long) (bytes / bytesPerNano);
      long ahead = due - System.nanoTime();
      if (ahead > 2_000_000) {
        TimeUnit.NANOSECONDS.sleep(ahead);
      }
    }
  }

  @Override
  public void objectDone(ArchivePlan.Entry entry) {
    if (progress != null) {
      progress.objectDone();
    }
    if (outOfTime.getAsBoolean()) {
      throw new OutOfTime();
    }
  }

  /** Commits the open transaction together with the checkpoint of every partition it touched. */
  void commit() {
    if (!inTransaction) {
      return;
    }
    for (Map.Entry<Integer, Long> e : lastInTxn.entrySet()) {
      producer.send(checkpoint.record(e.getKey(), e.getValue()));
    }
    producer.commitTransaction();
    lastInTxn.clear();
    inTxn = 0;
    inTransaction = false;
  }

  /**
   * What a failure of the producer means for the user: another restore fenced this one, a record
   * was too large for the producer or the topic, or the cluster refused; the last two say what was
   * committed.
   */
  RestoreException failure(KafkaException e) {
    if (e instanceof ProducerFencedException) {
      return new RestoreException(
          "another restore with transactional id "
              + options.transactionalId()
              + " started and fenced this one; run one restore per target topic at a time (the"
              + " other one resumes from the checkpoint)",
          e);
    }
    try {
      producer.abortTransaction();
    } catch (KafkaException ignored) {
      // The producer may be in a state where abort is impossible; the broker aborts on timeout.
    }
    Exception cause = firstSendFailure.get() != null ? firstSendFailure.get() : e;
    if (cause instanceof RecordTooLargeException) {
      return new RestoreException(
          "the target refused a record as too large ("
              + cause.getMessage()
              + "): raise the target topic's max.message.bytes (the broker's message.max.bytes"
              + " is its default) and the producer's max.request.size (--producer-property"
              + " max.request.size=N) above the largest record; then rerun: "
              + RestoreException.RERUN_RESUMES,
          cause);
    }
    return new RestoreException(
        "the target cluster refused the restore ("
            + cause.getClass().getSimpleName()
            + ": "
            + cause.getMessage()
            + "); "
            + RestoreException.RERUN_RESUMES
            + ". Check --bootstrap-servers, the auth settings and the producer's ACLs (Write and"
            + " IdempotentWrite on the topic, Write on the transactional id)",
        cause);
  }

  private RestoreException tooLarge(ArchivedRecord r, RecordTooLargeException e) {
    return new RestoreException(
        "source partition "
            + r.partition()
            + " offset "
            + r.offset()
            + " is "
            + r.payloadBytes()
            + " bytes of key, value and headers, more than the producer's max.request.size ("
            + maxRequestSize(options)
            + "): pass --producer-property max.request.size=N with N above it, and make sure the"
            + " target topic's max.message.bytes allows it too; then rerun: "
            + RestoreException.RERUN_RESUMES,
        e);
  }

  @Override
  public void close() {
    producer.close();
  }

  /** The progress line every {@code --progress-seconds}. */
  private final class Progress {
    private final long toDo;
    private final long bytesToDo;
    private final long objects;
    private long objectsDone;
    private long last = System.nanoTime();

    Progress(long toDo, long bytesToDo, long objects) {
      this.toDo = toDo;
      this.bytesToDo = bytesToDo;
      this.objects = objects;
    }

    void objectDone() {
      objectsDone++;
      long now = System.nanoTime();
      if (now - last < options.progressIntervalMs() * 1_000_000) {
        return;
      }
      last = now;
      double secs = (now - (started == 0 ? now : started)) / 1e9;
      double rate = records / Math.max(1e-3, secs);
      long eta = rate > 0 ? (long) ((toDo - records) / rate) : -1;
      out.printf(
          Locale.ROOT,
          "progress: objects %,d/%,d, records %,d/%,d, %s/%s, %.1f MB/s, ETA %ds%n",
          objectsDone,
          objects,
          records,
          toDo,
          ArchiveIndex.mb(bytes),
          ArchiveIndex.mb(bytesToDo),
          bytes / 1e6 / Math.max(1e-3, secs),
          Math.max(0, eta));
    }
  }
}
