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
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
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
 * </ul>
 *
 * Not thread-safe: one emulator is one poller, used from one thread, and the only member of its
 * group (a rebalance mid-batch is not handled). Every loop is bounded in time.
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
    Map<String, Range> ranges = ranges(batch);
    byte[] event = writer.event(batch);
    Invocation last = null;
    for (int attempt = 1; attempt <= settings.maxRetryAttempts() + 1; attempt++) {
      if (attempt > 1) {
        sleep(backoff(attempt));
      }
      Outcome outcome = invoke(event, ranges);
      last = new Invocation(number, attempt, ranges, event.length, outcome);
      invocations.add(last);
      listener.accept(last);
      switch (outcome) {
        case Outcome.Succeeded s -> {
          if (commit) {
            commit(ranges, Map.of());
          }
          return last;
        }
        case Outcome.PartiallyFailed p -> {
          if (commit) {
            commit(ranges, p.failedFrom());
          }
          // Only the failed partitions go back; their records come again in the next batch.
          p.failedFrom().forEach((tp, offset) -> consumer.seek(parse(tp), offset));
          return last;
        }
        case Outcome.Failed f -> {
          // Retry the same bytes, as the mapping retries the batch it holds.
        }
      }
    }
    // Out of attempts: commit nothing and redeliver the whole batch from its first offsets.
    ranges.forEach((tp, range) -> consumer.seek(parse(tp), range.first()));
    return last;
  }

  /**
   * Builds one batch: polls until BatchSize records, the payload cap, or the batching window since
   * the first record. A partition stops at its first record that did not fit, and the consumer is
   * sent back there, so every partition's records stay contiguous and nothing is skipped.
   */
  private List<SerializedRecord> assemble(Duration maxWait) {
    List<SerializedRecord> batch = new ArrayList<>();
    Map<TopicPartition, Long> heldBack = new LinkedHashMap<>();
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
        if (heldBack.containsKey(tp)) {
          continue;
        }
        SerializedRecord s = EsmEventWriter.serialize(r);
        boolean first = !seenPartitions.containsKey(s.topicPartition());
        long size = s.json().length + EsmEventWriter.recordOverhead(s.topicPartition(), first);
        // A record larger than the cap on its own still goes alone, so a partition never stalls
        // here (the real mapping cannot invoke with it at all).
        boolean fits =
            batch.size() < settings.batchSize()
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
        seenPartitions.put(s.topicPartition(), true);
        bytes += size;
      }
      if (batch.size() >= settings.batchSize()) {
        full = true;
      }
    }
    heldBack.forEach(consumer::seek);
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
          offsets.put(parse(tp), new OffsetAndMetadata(next));
        });
    consumer.commitSync(offsets, Duration.ofSeconds(30));
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
