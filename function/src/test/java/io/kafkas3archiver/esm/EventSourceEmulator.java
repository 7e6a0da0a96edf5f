package io.kafkas3archiver.esm;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.esm.EsmEventWriter.Flavour;
import io.kafkas3archiver.esm.EsmEventWriter.SerializedRecord;
import io.kafkas3archiver.testing.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A local stand-in for a Lambda Kafka event source mapping (ESM). It polls a real Kafka cluster as
 * a member of a consumer group and invokes a {@link RequestStreamHandler} (the real {@code
 * ArchiverHandler}) with the exact event JSON the mapping sends, the way the mapping does:
 *
 * <ul>
 *   <li>A batch closes when it holds {@code BatchSize} records, when the next record would take the
 *       event past the payload cap (6 MB), or when {@code MaximumBatchingWindowInSeconds} has
 *       passed since its first record. One batch may span several partitions; within a partition
 *       the records are contiguous, and records that did not fit are fetched again for the next
 *       batch.
 *   <li>Offsets are committed only after the handler returned. Auto-commit is off.
 *   <li>When the handler throws, the same batch (the same bytes) is invoked again, with backoff, at
 *       most {@code maxRetryAttempts} more times; if it still fails, nothing is committed and the
 *       consumer is sent back to the batch's first offsets, so the next poll redelivers them (the
 *       real mapping retries until the records expire, stalling the partition).
 *   <li>With {@code ReportBatchItemFailures} on, a response {@code {"batchItemFailures":[{
 *       "itemIdentifier":{"topic-partition":"t-0","offset":N}}]}} commits every other partition of
 *       the batch, commits {@code N} for the failed one and redelivers it from {@code N}. A
 *       response naming a partition or offset outside the batch fails the whole batch. With it off,
 *       the body is ignored, as the real mapping ignores it.
 *   <li>An emulator that stops without committing (a crash) leaves the group's offsets where they
 *       were: a new emulator with the same group id redelivers from there.
 *   <li>{@link #splitBatchOnError} (the mapping's BisectBatchOnError): a failed batch is not
 *       retried whole but halved, and each half is invoked (and halved again when it fails).
 *   <li>{@link #loseResponses}: after the handler returned (so everything was written), the mapping
 *       sees a failure anyway, as when the response is lost to a timeout. The batch comes again,
 *       either as the same bytes or re-polled from its first offsets with other boundaries (a
 *       random BatchSize for that one batch, and whatever has arrived meanwhile). Seeded; the seed
 *       is printed.
 *   <li>{@link #onFailure}: with an on-failure destination, a batch whose attempts are all used up
 *       is recorded there in the invocation record the real mapping writes ({@link
 *       OnFailureRecord}) and skipped: its offsets are committed and the mapping moves on, as the
 *       real one does after {@code MaximumRetryAttempts}. Without one, the batch is not committed
 *       (the mapping retries until the records expire, stalling the partition).
 *   <li>Several emulators with one group id are several pollers: Kafka moves partitions between
 *       them mid-stream. A poller commits only partitions it still owns; a batch it delivered for a
 *       partition it lost is redelivered by the new owner from the committed offset, with that
 *       poller's partition mix.
 * </ul>
 *
 * Not thread-safe: one emulator is one poller, used from one thread; run several pollers from
 * several threads. Every loop is bounded in time.
 */
public final class EventSourceEmulator implements AutoCloseable {
  /** Where a group without committed offsets starts. */
  public enum StartingPosition {
    TRIM_HORIZON("earliest"),
    LATEST("latest");

    private final String autoOffsetReset;

    StartingPosition(String autoOffsetReset) {
      this.autoOffsetReset = autoOffsetReset;
    }
  }

  /** The mapping's settings, with the names and defaults of the real one where it has them. */
  public record Settings(
      String bootstrapServers,
      String topic,
      String groupId,
      StartingPosition startingPosition,
      int batchSize,
      Duration batchingWindow,
      int maxPayloadBytes,
      Flavour flavour,
      boolean reportBatchItemFailures,
      int maxRetryAttempts,
      Duration retryBackoff,
      Duration functionTimeout) {

    /** Lambda's synchronous invocation payload limit, which caps a Kafka batch. */
    public static final int SIX_MB = 6 * 1024 * 1024;

    public static final int MAX_BATCH_SIZE = 10_000;

    public Settings {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(groupId, "groupId");
      if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
        throw new IllegalArgumentException("BatchSize must be 1.." + MAX_BATCH_SIZE);
      }
      if (batchingWindow.isNegative() || batchingWindow.compareTo(Duration.ofSeconds(300)) > 0) {
        throw new IllegalArgumentException("MaximumBatchingWindowInSeconds must be 0..300");
      }
      if (maxPayloadBytes < 1 || maxPayloadBytes > SIX_MB) {
        throw new IllegalArgumentException("the payload cap must be 1.." + SIX_MB + " bytes");
      }
      if (maxRetryAttempts < 0 || maxRetryAttempts > 100) {
        throw new IllegalArgumentException("maxRetryAttempts must be 0..100");
      }
    }

    /**
     * A self-managed mapping from the oldest record, BatchSize 100, a 500 ms window (the real
     * defaults), the 6 MB cap, ReportBatchItemFailures off, and up to 5 in-place retries.
     */
    public static Settings of(String bootstrapServers, String topic, String groupId) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          StartingPosition.TRIM_HORIZON,
          100,
          Duration.ofMillis(500),
          SIX_MB,
          Flavour.selfManaged(),
          false,
          5,
          Duration.ofMillis(50),
          Duration.ofSeconds(60));
    }

    public Settings withBatchSize(int size) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          size,
          batchingWindow,
          maxPayloadBytes,
          flavour,
          reportBatchItemFailures,
          maxRetryAttempts,
          retryBackoff,
          functionTimeout);
    }

    public Settings withBatchingWindow(Duration window) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          batchSize,
          window,
          maxPayloadBytes,
          flavour,
          reportBatchItemFailures,
          maxRetryAttempts,
          retryBackoff,
          functionTimeout);
    }

    public Settings withMaxPayloadBytes(int bytes) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          batchSize,
          batchingWindow,
          bytes,
          flavour,
          reportBatchItemFailures,
          maxRetryAttempts,
          retryBackoff,
          functionTimeout);
    }

    public Settings withFlavour(Flavour f) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          batchSize,
          batchingWindow,
          maxPayloadBytes,
          f,
          reportBatchItemFailures,
          maxRetryAttempts,
          retryBackoff,
          functionTimeout);
    }

    public Settings withReportBatchItemFailures(boolean on) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          batchSize,
          batchingWindow,
          maxPayloadBytes,
          flavour,
          on,
          maxRetryAttempts,
          retryBackoff,
          functionTimeout);
    }

    public Settings withStartingPosition(StartingPosition position) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          position,
          batchSize,
          batchingWindow,
          maxPayloadBytes,
          flavour,
          reportBatchItemFailures,
          maxRetryAttempts,
          retryBackoff,
          functionTimeout);
    }

    public Settings withFunctionTimeout(Duration timeout) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          batchSize,
          batchingWindow,
          maxPayloadBytes,
          flavour,
          reportBatchItemFailures,
          maxRetryAttempts,
          retryBackoff,
          timeout);
    }

    public Settings withMaxRetryAttempts(int attempts) {
      return new Settings(
          bootstrapServers,
          topic,
          groupId,
          startingPosition,
          batchSize,
          batchingWindow,
          maxPayloadBytes,
          flavour,
          reportBatchItemFailures,
          attempts,
          retryBackoff,
          functionTimeout);
    }
  }

  /** The first and last offset of one topic-partition in a batch. */
  public record Range(long first, long last) {
    public int count() {
      return (int) (last - first + 1);
    }
  }

  /** What one invocation of the handler returned. */
  public sealed interface Outcome {
    /** The handler returned and reported no failed item: the whole batch is committed. */
    record Succeeded() implements Outcome {}

    /** The handler reported these topic-partitions as failed, each from this offset. */
    record PartiallyFailed(Map<String, Long> failedFrom) implements Outcome {}

    /** The handler threw, or answered with a response the mapping cannot accept. */
    record Failed(String error) implements Outcome {}
  }

  /** One invocation: which batch, which attempt at it, what it held, how it went. */
  public record Invocation(
      int batch, int attempt, Map<String, Range> ranges, int eventBytes, Outcome outcome) {
    public int records() {
      return ranges.values().stream().mapToInt(Range::count).sum();
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

  private final Settings settings;
  private final RequestStreamHandler handler;
  private final Supplier<Context> context;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final EsmEventWriter writer;
  private final List<Invocation> invocations = Collections.synchronizedList(new ArrayList<>());
  private final Map<TopicPartition, Long> committed = new TreeMap<>(EventSourceEmulator::compare);
  private int batches;
  private Consumer<Invocation> listener = i -> {};
  private boolean splitOnError;
  private Random faults = new Random(0);
  private double lostResponseRate;
  private int nextBatchSize;
  private OnFailureRecord.Destination onFailure;
  private final List<Map<String, Range>> skipped = Collections.synchronizedList(new ArrayList<>());

  public EventSourceEmulator(Settings settings, RequestStreamHandler handler) {
    this(settings, handler, () -> new LocalContext(settings.functionTimeout().toMillis()));
  }

  public EventSourceEmulator(
      Settings settings, RequestStreamHandler handler, Supplier<Context> context) {
    this(settings, handler, context, Map.of());
  }

  /**
   * With extra consumer properties, e.g. {@code security.protocol} and {@code sasl.*} for a cluster
   * that needs authentication. They cannot turn auto-commit back on.
   */
  public EventSourceEmulator(
      Settings settings,
      RequestStreamHandler handler,
      Supplier<Context> context,
      Map<String, String> consumerOverrides) {
    this.settings = settings;
    this.handler = handler;
    this.context = context;
    this.writer = new EsmEventWriter(settings.flavour(), settings.bootstrapServers());
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, settings.startingPosition().autoOffsetReset);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(settings.batchSize()));
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "esm-emulator-" + settings.groupId());
    props.putAll(consumerOverrides);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    this.consumer = new KafkaConsumer<>(props);
    consumer.subscribe(List.of(settings.topic()));
  }

  public Settings settings() {
    return settings;
  }

  /** Called after every invocation (retries included), e.g. to print progress. */
  public EventSourceEmulator onInvocation(Consumer<Invocation> listener) {
    this.listener = Objects.requireNonNull(listener);
    return this;
  }

  /** BisectBatchOnError: a failed batch is halved instead of retried whole, down to one record. */
  public EventSourceEmulator splitBatchOnError(boolean on) {
    this.splitOnError = on;
    return this;
  }

  /**
   * Loses the response of this share of the invocations that returned: the function wrote
   * everything, the mapping counts a failure and redelivers. Seeded; the seed is printed so a
   * failing run can be replayed.
   */
  public EventSourceEmulator loseResponses(double rate, long seed) {
    if (rate < 0 || rate > 1) {
      throw new IllegalArgumentException("the lost-response rate must be 0..1, not " + rate);
    }
    System.out.printf(
        "EventSourceEmulator %s: losing %.0f%% of responses, seed=%d%n",
        settings.groupId(), rate * 100, seed);
    this.lostResponseRate = rate;
    this.faults = new Random(seed);
    return this;
  }

  /**
   * The mapping's on-failure destination: a batch that used up {@code maxRetryAttempts} is recorded
   * there and skipped (committed), instead of being held back.
   */
  public EventSourceEmulator onFailure(OnFailureRecord.Destination destination) {
    this.onFailure = Objects.requireNonNull(destination);
    return this;
  }

  /** The offset ranges of every batch recorded in the on-failure destination and skipped. */
  public List<Map<String, Range>> skippedBatches() {
    synchronized (skipped) {
      return List.copyOf(skipped);
    }
  }

  /** Every invocation so far, in order (retries included). */
  public List<Invocation> invocations() {
    synchronized (invocations) {
      return List.copyOf(invocations);
    }
  }

  /**
   * The group's committed offsets as this emulator knows them (its own commits, and what {@link
   * #runUntilCommitted} found): the next offset to deliver, per partition.
   */
  public Map<TopicPartition, Long> committed() {
    return Map.copyOf(committed);
  }

  /**
   * Polls one batch (waiting at most {@code maxWait} for its first record), invokes the handler
   * with it and commits what succeeded. Returns the last invocation, or null when no record came.
   */
  public Invocation pollOnce(Duration maxWait) {
    return deliver(maxWait, true);
  }

  /**
   * Like {@link #pollOnce} but stops before committing, as a poller that dies right after the
   * function returned: the records are archived but the group's offsets do not move.
   */
  public Invocation pollOnceThenCrashBeforeCommit(Duration maxWait) {
    return deliver(maxWait, false);
  }

  /**
   * Polls and invokes until the group has committed at least {@code endOffsets} (as from {@code
   * KafkaConsumer#endOffsets}), or {@code timeout} passes. Returns whether it got there.
   */
  public boolean runUntilCommitted(Map<TopicPartition, Long> endOffsets, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    // What the group committed before this emulator (an earlier one, or another process) counts.
    consumer
        .committed(endOffsets.keySet(), Duration.ofSeconds(10))
        .forEach(
            (tp, o) -> {
              if (o != null) {
                committed.merge(tp, o.offset(), Math::max);
              }
            });
    while (!reached(endOffsets)) {
      if (System.nanoTime() > until) {
        return false;
      }
      pollOnce(Duration.ofMillis(200));
      if (!reached(endOffsets)) {
        // Other pollers of the group commit too; the broker's offsets are the truth.
        consumer
            .committed(endOffsets.keySet(), Duration.ofSeconds(10))
            .forEach(
                (tp, o) -> {
                  if (o != null) {
                    committed.put(tp, o.offset());
                  }
                });
      }
    }
    return true;
  }

  /**
   * Polls and invokes until no record has come for {@code idle}, or {@code timeout} passes. For the
   * local run against a user's cluster.
   */
  public void runUntilIdle(Duration idle, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    long idleSince = System.nanoTime();
    while (System.nanoTime() < until && System.nanoTime() - idleSince < idle.toNanos()) {
      if (pollOnce(Duration.ofMillis(250)) != null) {
        idleSince = System.nanoTime();
      }
    }
  }

  /**
   * Joins the group and resolves the starting position of every assigned partition (for LATEST: the
   * end of the log now), without delivering anything: records a poll returns meanwhile are fetched
   * again later. Returns the assignment.
   */
  public Set<TopicPartition> awaitAssignment(Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (consumer.assignment().isEmpty()) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException(
            "no partition of " + settings.topic() + " was assigned within " + timeout);
      }
      Map<TopicPartition, Long> firstReturned = new LinkedHashMap<>();
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        firstReturned.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
      }
      firstReturned.forEach(consumer::seek);
    }
    consumer.assignment().forEach(tp -> consumer.position(tp, Duration.ofSeconds(10)));
    return consumer.assignment();
  }

  private boolean reached(Map<TopicPartition, Long> endOffsets) {
    for (var e : endOffsets.entrySet()) {
      if (committed.getOrDefault(e.getKey(), 0L) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Leaves the group without committing anything more. */
  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }

  private Invocation deliver(Duration maxWait, boolean commit) {
    List<SerializedRecord> batch = assemble(maxWait);
    if (batch.isEmpty()) {
      return null;
    }
    int number = ++batches;
    // Where each partition of the batch must restart if not all of it went through.
    Map<String, Long> next = new LinkedHashMap<>();
    ranges(batch).forEach((tp, range) -> next.put(tp, range.first()));
    Invocation[] last = new Invocation[1];
    if (!deliverPart(number, batch, commit, next, last)) {
      next.forEach((tp, offset) -> seek(parse(tp), offset));
    }
    return last[0];
  }

  /**
   * Invokes the handler with one batch (or one half of a split batch) and commits what succeeded.
   * Returns whether all of it went through; {@code next} follows what was committed.
   */
  private boolean deliverPart(
      int number,
      List<SerializedRecord> batch,
      boolean commit,
      Map<String, Long> next,
      Invocation[] last) {
    Map<String, Range> ranges = ranges(batch);
    byte[] event = writer.event(batch);
    for (int attempt = 1; attempt <= settings.maxRetryAttempts() + 1; attempt++) {
      if (attempt > 1) {
        sleep(backoff(attempt));
      }
      Outcome outcome = invoke(event, ranges);
      boolean lost = !(outcome instanceof Outcome.Failed) && lostResponseRate > 0 && lose();
      if (lost) {
        outcome = new Outcome.Failed("LostResponse: the function returned, the mapping timed out");
      }
      last[0] = new Invocation(number, attempt, ranges, event.length, outcome);
      invocations.add(last[0]);
      listener.accept(last[0]);
      switch (outcome) {
        case Outcome.Succeeded s -> {
          if (commit) {
            commit(ranges, Map.of());
          }
          ranges.forEach((tp, range) -> next.put(tp, range.last() + 1));
          return true;
        }
        case Outcome.PartiallyFailed p -> {
          if (commit) {
            commit(ranges, p.failedFrom());
          }
          // Only the failed partitions go back; their records come again in the next batch.
          ranges.forEach(
              (tp, range) -> next.put(tp, p.failedFrom().getOrDefault(tp, range.last() + 1)));
          return false;
        }
        case Outcome.Failed f -> {
          if (splitOnError && batch.size() > 1) {
            // A prefix of the batch is a prefix of each of its partitions: both halves stay
            // contiguous per partition.
            int half = batch.size() / 2;
            return deliverPart(number, batch.subList(0, half), commit, next, last)
                && deliverPart(number, batch.subList(half, batch.size()), commit, next, last);
          }
          if (lost && nextBoundaryRandom()) {
            // Redeliver from the first offsets, re-polled: other boundaries. Half the time a
            // strictly shorter batch (so the boundaries differ even when nothing new arrived),
            // otherwise any BatchSize, which may take in the records that arrived meanwhile.
            nextBatchSize = rePollBatchSize(batch.size());
            return false;
          }
          // Otherwise retry the same bytes, as the mapping retries the batch it holds.
        }
      }
    }
    if (onFailure != null) {
      // Every attempt failed: the real mapping records the batch and moves past it.
      onFailure.deliver(
          OnFailureRecord.write(
              settings, batch, ranges, settings.maxRetryAttempts() + 1, event, onFailure));
      if (commit) {
        commit(ranges, Map.of());
      }
      skipped.add(ranges);
      ranges.forEach((tp, range) -> next.put(tp, range.last() + 1));
      return true;
    }
    return false;
  }

  private synchronized boolean lose() {
    return faults.nextDouble() < lostResponseRate;
  }

  private synchronized boolean nextBoundaryRandom() {
    return faults.nextBoolean();
  }

  private synchronized int rePollBatchSize(int lostBatchSize) {
    if (lostBatchSize > 1 && faults.nextBoolean()) {
      return 1 + faults.nextInt(lostBatchSize - 1);
    }
    return 1 + faults.nextInt(settings.batchSize());
  }

  /** Seeks only a partition this poller still owns; a lost one restarts at its new owner. */
  private void seek(TopicPartition tp, long offset) {
    if (consumer.assignment().contains(tp)) {
      consumer.seek(tp, offset);
    }
  }

  /**
   * Builds one batch: polls until BatchSize records, the payload cap, or the batching window since
   * the first record. A partition stops at its first record that did not fit, and the consumer is
   * sent back there, so every partition's records stay contiguous and nothing is skipped.
   */
  private List<SerializedRecord> assemble(Duration maxWait) {
    List<SerializedRecord> batch = new ArrayList<>();
    int batchSize = nextBatchSize > 0 ? nextBatchSize : settings.batchSize();
    nextBatchSize = 0;
    Map<TopicPartition, Long> heldBack = new LinkedHashMap<>();
    // A rebalance inside poll() may send a partition back to its committed offset: skip what the
    // batch already holds, so each partition stays contiguous.
    Map<TopicPartition, Long> lastTaken = new LinkedHashMap<>();
    Map<String, Boolean> seenPartitions = new LinkedHashMap<>();
    long bytes = writer.envelopeBytes();
    long firstDeadline = System.nanoTime() + maxWait.toNanos();
    long windowEnd = Long.MAX_VALUE;
    boolean full = false;
    while (!full) {
      long now = System.nanoTime();
      long end = batch.isEmpty() ? firstDeadline : windowEnd;
      if (now >= end) {
        break;
      }
      Duration timeout = Duration.ofNanos(Math.min(end - now, 100_000_000L));
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        if (heldBack.containsKey(tp) || r.offset() <= lastTaken.getOrDefault(tp, -1L)) {
          continue;
        }
        SerializedRecord s = EsmEventWriter.serialize(r);
        boolean first = !seenPartitions.containsKey(s.topicPartition());
        long size = s.json().length + EsmEventWriter.recordOverhead(s.topicPartition(), first);
        // A record larger than the cap on its own still goes alone, so a partition never stalls
        // here (the real mapping cannot invoke with it at all).
        boolean fits =
            batch.size() < batchSize
                && (bytes + size <= settings.maxPayloadBytes() || batch.isEmpty());
        if (!fits) {
          heldBack.put(tp, r.offset());
          full = true;
          continue;
        }
        if (batch.isEmpty()) {
          windowEnd = System.nanoTime() + settings.batchingWindow().toNanos();
        }
        batch.add(s);
        lastTaken.put(tp, r.offset());
        seenPartitions.put(s.topicPartition(), true);
        bytes += size;
      }
      if (batch.size() >= batchSize) {
        full = true;
      }
    }
    heldBack.forEach(this::seek);
    return batch;
  }

  private Outcome invoke(byte[] event, Map<String, Range> ranges) {
    ByteArrayOutputStream response = new ByteArrayOutputStream();
    try {
      handler.handleRequest(new ByteArrayInputStream(event), response, context.get());
    } catch (IOException | RuntimeException e) {
      return new Outcome.Failed(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    if (!settings.reportBatchItemFailures()) {
      return new Outcome.Succeeded();
    }
    return parseResponse(response.toString(StandardCharsets.UTF_8), ranges);
  }

  /** An empty or null body, or an empty list, is success; anything malformed fails the batch. */
  static Outcome parseResponse(String body, Map<String, Range> ranges) {
    if (body.isBlank() || body.strip().equals("null")) {
      return new Outcome.Succeeded();
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (IOException e) {
      return new Outcome.Failed("the response is not JSON: " + e.getMessage());
    }
    JsonNode items = root.path("batchItemFailures");
    if (items.isMissingNode() || items.isNull() || (items.isArray() && items.isEmpty())) {
      return new Outcome.Succeeded();
    }
    if (!items.isArray()) {
      return new Outcome.Failed("batchItemFailures is not a list: " + body);
    }
    Map<String, Long> failed = new TreeMap<>();
    for (JsonNode item : items) {
      JsonNode id = item.path("itemIdentifier");
      String tp = id.path("topic-partition").asText(null);
      JsonNode offset = id.path("offset");
      Range range = tp == null ? null : ranges.get(tp);
      if (range == null || !offset.canConvertToLong()) {
        return new Outcome.Failed(
            "a batchItemFailures entry names no partition of the batch: " + item);
      }
      long n = offset.longValue();
      if (n < range.first() || n > range.last()) {
        return new Outcome.Failed("a batchItemFailures offset lies outside the batch: " + item);
      }
      failed.merge(tp, n, Math::min);
    }
    return new Outcome.PartiallyFailed(failed);
  }

  /** Commits the batch: every partition past its last record, a failed one at its failed offset. */
  private void commit(Map<String, Range> ranges, Map<String, Long> failedFrom) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    ranges.forEach(
        (tp, range) -> {
          long next = failedFrom.getOrDefault(tp, range.last() + 1);
          TopicPartition partition = parse(tp);
          // A partition moved to another poller is not committed here: its new owner redelivers.
          if (consumer.assignment().contains(partition)) {
            offsets.put(partition, new OffsetAndMetadata(next));
          }
        });
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets, Duration.ofSeconds(30));
    } catch (CommitFailedException | RebalanceInProgressException e) {
      // The group moved on meanwhile: nothing is committed, the records come again.
      return;
    }
    offsets.forEach((tp, o) -> committed.merge(tp, o.offset(), Math::max));
  }

  private static Map<String, Range> ranges(List<SerializedRecord> batch) {
    Map<String, Range> ranges = new LinkedHashMap<>();
    for (SerializedRecord r : batch) {
      ranges.merge(
          r.topicPartition(),
          new Range(r.offset(), r.offset()),
          (a, b) -> new Range(Math.min(a.first(), b.first()), Math.max(a.last(), b.last())));
    }
    return ranges;
  }

  private Duration backoff(int attempt) {
    Duration d = settings.retryBackoff().multipliedBy(1L << Math.min(attempt - 2, 10));
    return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
  }

  private static TopicPartition parse(String topicPartition) {
    int dash = topicPartition.lastIndexOf('-');
    return new TopicPartition(
        topicPartition.substring(0, dash), Integer.parseInt(topicPartition.substring(dash + 1)));
  }

  private static int compare(TopicPartition a, TopicPartition b) {
    int c = a.topic().compareTo(b.topic());
    return c != 0 ? c : Integer.compare(a.partition(), b.partition());
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while backing off", e);
    }
  }
}
