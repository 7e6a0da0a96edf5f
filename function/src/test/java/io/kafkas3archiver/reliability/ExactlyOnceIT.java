package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.FaultProxy;
import io.kafkas3archiver.testing.FaultProxy.Status;
import io.kafkas3archiver.testing.FaultProxy.TruncateResponse;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Issue 12: drives the real handler against S3Proxy through every way the event source mapping
 * re-forms a batch, chosen at random each round: a longer or shorter batch from the same start,
 * another partition mix, a response lost after every upload or after some of them, an S3 response
 * lost after the write (the SDK's retry meets its own object), split halves of a failed batch, two
 * instances holding the same partitions at once, and partial batch responses. Records cross hour
 * edges, some out of timestamp order, and some are error rows (plain text under csv), so data and
 * error objects are both in play. Offsets have gaps, seeded: a transactional producer's commit
 * markers and compaction holes (see {@link Log}), so restarts often fall on an offset no record
 * has.
 *
 * <p>After every round DuckDB reads the whole bucket back (data and error objects): no (topic,
 * partition, offset) may appear twice, and every offset below each partition's committed position
 * must be there. At the end the mapping drains the log and every offset is present exactly once.
 * Seed: {@code -DexactlyOnce.seed=N}; rounds: {@code -DexactlyOnce.rounds=N}.
 */
class ExactlyOnceIT {
  private static final String BUCKET = "exactly-once";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final long T0 = 1_784_000_000_000L - 1_784_000_000_000L % 3_600_000L;
  private static final List<String> PARTITIONS = List.of("orders-0", "orders-1", "audit.log-7");
  private static final String FIELD_TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/r=${value.r}/year=${YEAR}/month=${MONTH}/day=${DAY}"
          + "/hour=${HOUR}/${JOB_ID}";

  private static S3ProxyServer server;
  private static FaultProxy proxy;
  private static S3Client s3;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    proxy = FaultProxy.in(server.endpoint());
    s3 = server.client();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    s3.close();
    server.close();
  }

  /** {@code -DexactlyOnce.only=record-true} runs only the cases whose name starts so. */
  static Stream<Arguments> cases() {
    String only = System.getProperty("exactlyOnce.only", "");
    return Stream.of(
            Arguments.of("batch", true, "csv"),
            Arguments.of("record", true, "csv"),
            Arguments.of("batch", false, "csv"),
            Arguments.of("record", false, "parquet"),
            // A field template with PARTITION_TIME=field and a tight fan-out guard: a partition's
            // offsets interleave across region and event-hour folders, and deliveries defer.
            Arguments.of("field", true, "csv"))
        .filter(a -> (a.get()[0] + "-" + a.get()[1] + "-" + a.get()[2]).startsWith(only));
  }

  enum Pattern {
    NORMAL,
    LOST_RESPONSE_AFTER_ALL_UPLOADS,
    LOST_RESPONSE_AFTER_SOME_UPLOADS,
    S3_RESPONSE_LOST,
    SPLIT_AFTER_FAILURE,
    CONCURRENT_HOLDERS,
    FOLDER_FAILS,
    /**
     * The batch with a negative offset in it: a malformed event, refused whole, nothing written.
     */
    NEGATIVE_OFFSET,
    /**
     * The batch goes to a second function sharing the prefix, with {@code INPUT_TOPIC=audit.log}:
     * it archives audit.log and sends the orders records to an error object outside every chain,
     * which must not claim (and so silence) any offset of the orders partitions.
     */
    OTHER_INPUT_TOPIC
  }

  /** A store over S3 that can end the invocation after a number of writes, as a timeout does. */
  static final class CrashingStore implements ObjectStore {
    final ObjectStore delegate;
    final AtomicInteger writesLeft = new AtomicInteger(Integer.MAX_VALUE);

    CrashingStore(ObjectStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
        throws UploadException {
      crashIfDue();
      return delegate.put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key,
        ObjectBody body,
        String contentType,
        Map<String, String> metadata,
        Deadline deadline)
        throws UploadException {
      crashIfDue();
      return delegate.putIfAbsent(key, body, contentType, metadata, deadline);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline)
        throws UploadException {
      return delegate.metadata(key, deadline);
    }

    @Override
    public Optional<byte[]> read(String key, Deadline deadline) throws UploadException {
      return delegate.read(key, deadline);
    }

    private void crashIfDue() {
      if (writesLeft.getAndDecrement() <= 0) {
        throw new IllegalStateException("injected: the invocation timed out");
      }
    }
  }

  /** One Lambda instance: its own handler (cold start) and store. */
  record Instance(ArchiverHandler handler, CrashingStore store) {
    /** The response, or null when the invocation failed (threw). */
    String invoke(List<Rec> batch) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try {
        handler.handleRequest(
            new ByteArrayInputStream(KafkaEvents.event(batch)), out, new LocalContext(30_000));
        return out.toString(StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (RuntimeException failed) {
        return null;
      } finally {
        store.writesLeft.set(Integer.MAX_VALUE);
      }
    }
  }

  /**
   * The Kafka log and the mapping's committed positions. Offsets have gaps, as real topics do: a
   * transactional producer's commit marker after every transaction (never delivered), and records
   * removed by compaction. orders-0 has markers, orders-1 compaction holes, audit.log-7 both.
   */
  static final class Log {
    final Map<String, List<Rec>> partitions = new LinkedHashMap<>();
    final Map<String, Long> committed = new HashMap<>();
    final Map<String, Long> next = new HashMap<>();
    final Map<String, Integer> transactionSize = new HashMap<>();
    final Map<String, Integer> holeOneIn = new HashMap<>();

    Log(Random rnd) {
      transactionSize.put("orders-0", 1 + rnd.nextInt(12));
      holeOneIn.put("orders-1", 3 + rnd.nextInt(8));
      transactionSize.put("audit.log-7", 1 + rnd.nextInt(12));
      holeOneIn.put("audit.log-7", 3 + rnd.nextInt(8));
    }

    /** A log without gaps, filled by the test. */
    Log() {}

    void append(Random rnd, int count) {
      for (String tp : PARTITIONS) {
        List<Rec> rs = partitions.computeIfAbsent(tp, k -> new ArrayList<>());
        committed.putIfAbsent(tp, 1_000L);
        int dash = tp.lastIndexOf('-');
        int transaction = transactionSize.getOrDefault(tp, 0);
        int holes = holeOneIn.getOrDefault(tp, 0);
        // One append in four is a burst of producers whose clocks jitter across an hour edge.
        boolean jitter = rnd.nextInt(4) == 0;
        int run = 0; // records left in a run of tombstones or error rows
        int runKind = 0;
        for (int i = 0; i < count; i++) {
          long offset = next.getOrDefault(tp, 1_000L);
          if (transaction > 0 && !rs.isEmpty() && rs.size() % transaction == 0) {
            offset++; // the marker that commits the transaction the last record ended
          }
          if (holes > 0 && rnd.nextInt(holes) == 0) {
            offset += 1 + rnd.nextInt(4); // compacted away
          }
          next.put(tp, offset + 1);
          // 90 s apart, so a partition crosses an hour edge every 40 records; one in 9 records is
          // late by up to 20 minutes, so under PARTITION_TIME=record folders interleave.
          long ts = T0 + (offset - 1_000) * 90_000L;
          if (rnd.nextInt(9) == 0) {
            ts -= rnd.nextInt(1_200_000);
          }
          if (jitter) {
            ts = (ts / 3_600_000L + 1) * 3_600_000L - 5_000 + rnd.nextInt(10_000);
          }
          // Runs of 2 to 6 tombstones or error rows, so some batches (and groups) hold only those.
          if (run == 0 && rnd.nextInt(15) == 0) {
            run = 2 + rnd.nextInt(5);
            runKind = rnd.nextInt(2);
          }
          int kind = run > 0 ? runKind : rnd.nextInt(12);
          if (run > 0) {
            run--;
          }
          String value =
              switch (kind) {
                case 0 -> "plain text, an error row under csv and parquet " + offset;
                case 1 -> null;
                default ->
                    "{\"n\":"
                        + offset
                        + ",\"s\":\"v"
                        + rnd.nextInt(1000)
                        + "\",\"r\":\"r"
                        + rnd.nextInt(4)
                        + "\",\"t\":"
                        // Event time: the Kafka time, or up to three hours earlier (one in four).
                        + (rnd.nextInt(4) == 0 ? ts - rnd.nextInt(3) * 3_600_000L - 60_000L : ts)
                        + "}";
              };
          rs.add(
              Rec.of(
                  tp.substring(0, dash),
                  Integer.parseInt(tp.substring(dash + 1)),
                  offset,
                  ts,
                  value));
        }
      }
    }

    /** From each chosen partition's committed position, a random number of records. */
    List<Rec> batch(Random rnd, Set<String> mix) {
      List<Rec> batch = new ArrayList<>();
      for (String tp : mix) {
        long from = committed.get(tp);
        int max = 1 + rnd.nextInt(50);
        for (Rec r : partitions.get(tp)) {
          if (r.offset() >= from && max-- > 0) {
            batch.add(r);
          }
        }
      }
      return batch;
    }

    Set<String> mix(Random rnd) {
      Set<String> mix = new HashSet<>();
      for (String tp : PARTITIONS) {
        if (rnd.nextInt(3) > 0) {
          mix.add(tp);
        }
      }
      return mix.isEmpty() ? Set.of(PARTITIONS.get(rnd.nextInt(PARTITIONS.size()))) : mix;
    }

    /** What the mapping commits after an invocation answered {@code response} (null: threw). */
    boolean apply(List<Rec> batch, String response) {
      if (response == null) {
        return false;
      }
      Map<String, Long> failed = new HashMap<>();
      try {
        for (JsonNode f : MAPPER.readTree(response).get("batchItemFailures")) {
          failed.put(
              f.get("itemIdentifier").get("topic-partition").asText(),
              f.get("itemIdentifier").get("offset").asLong());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Map<String, long[]> ranges = ranges(batch);
      for (var e : ranges.entrySet()) {
        Long at = failed.get(e.getKey());
        if (at != null) {
          assertThat(at).isBetween(e.getValue()[0], e.getValue()[1]);
        }
        committed.put(e.getKey(), at != null ? at : e.getValue()[1] + 1);
      }
      return failed.isEmpty();
    }

    boolean drained() {
      return PARTITIONS.stream().allMatch(tp -> committed.get(tp) == lastOffset(tp) + 1);
    }

    long lastOffset(String tp) {
      List<Rec> rs = partitions.get(tp);
      return rs.get(rs.size() - 1).offset();
    }
  }

  static Map<String, long[]> ranges(List<Rec> batch) {
    Map<String, long[]> ranges = new TreeMap<>();
    for (Rec r : batch) {
      ranges.merge(
          r.topicPartition(),
          new long[] {r.offset(), r.offset()},
          (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
    }
    return ranges;
  }

  @ParameterizedTest(name = "PARTITION_TIME={0}, ReportBatchItemFailures={1}, {2}")
  @MethodSource("cases")
  void shouldStoreEveryOffsetExactlyOnceUnderEveryRedelivery(
      String partitionTime, boolean report, String format, @TempDir Path mirror) throws Exception {
    long seed = Long.getLong("exactlyOnce.seed", System.nanoTime());
    int rounds = Integer.getInteger("exactlyOnce.rounds", 60);
    String prefix = "eo-" + partitionTime + "-" + report + "-" + format;
    System.out.printf(
        "ExactlyOnceIT %s: seed=%d (rerun with -DexactlyOnce.seed=%d)%n", prefix, seed, seed);
    Random rnd = new Random(seed);
    Harness harness =
        Harness.against(proxy.endpoint().toString(), BUCKET)
            .with("KEY_PREFIX", prefix)
            .with("OUTPUT_FORMAT", format)
            .with("PARTITION_TIME", partitionTime)
            .with("INCLUDE_KAFKA_METADATA", "true")
            .with("REPORT_BATCH_ITEM_FAILURES", Boolean.toString(report));
    if (partitionTime.equals("field")) {
      harness =
          harness
              .with("KEY_TEMPLATE", FIELD_TEMPLATE)
              .with("TIME_FIELD", "t")
              .with("TIME_FORMAT", "epoch_millis")
              .with("MAX_FOLDERS_PER_PARTITION", "3");
    }
    Instance first = instance(harness.config());
    Instance second = instance(harness.config());
    Instance otherTopic = instance(harness.with("INPUT_TOPIC", "audit.log").config());
    Log log = new Log(rnd);
    System.out.printf(
        "ExactlyOnceIT %s: transactions of %s records, a compaction hole one offset in %s%n",
        prefix, log.transactionSize, log.holeOneIn);
    log.append(rnd, 40);
    Map<Pattern, Integer> seen = new TreeMap<>();
    try (DuckDb duck = new DuckDb();
        StdoutCapture quiet = new StdoutCapture()) {
      for (int round = 1; round <= rounds; round++) {
        if (rnd.nextInt(3) == 0) {
          log.append(rnd, 1 + rnd.nextInt(20));
        }
        Pattern pattern = Pattern.values()[rnd.nextInt(Pattern.values().length)];
        seen.merge(pattern, 1, Integer::sum);
        List<Rec> batch = log.batch(rnd, log.mix(rnd));
        if (!batch.isEmpty()) {
          run(pattern, batch, log, rnd, first, second, otherTopic);
        }
        proxy.reset();
        check(duck, mirror, prefix, log, false, "seed=" + seed + " round " + round + " " + pattern);
      }
      int drain = 0;
      while (!log.drained() && drain++ < 500) {
        List<Rec> batch = log.batch(rnd, log.mix(rnd));
        if (!batch.isEmpty()) {
          log.apply(batch, first.invoke(batch));
        }
      }
      assertThat(log.drained()).as("seed=%d: the log drained", seed).isTrue();
      check(duck, mirror, prefix, log, true, "seed=" + seed + " after draining");
    }
    System.out.printf(
        "ExactlyOnceIT %s: seed=%d, %d rounds %s, %d offsets each stored once%n",
        prefix, seed, rounds, seen, log.partitions.values().stream().mapToInt(List::size).sum());
  }

  /**
   * A transactional producer's topic: a commit marker every 10 offsets. A batch of 2,000 records
   * per partition has 222 gaps; it is still one object per partition, each claiming the whole range
   * (with 32 segments at most, as before, it was cut into 7).
   */
  @Test
  void shouldWriteABatchWithAMarkerEveryTenOffsetsAsOneObjectPerPartition(@TempDir Path mirror)
      throws Exception {
    String prefix = "eo-markers";
    Harness harness =
        Harness.against(proxy.endpoint().toString(), BUCKET)
            .with("KEY_PREFIX", prefix)
            .with("OUTPUT_FORMAT", "csv")
            .with("INCLUDE_KAFKA_METADATA", "true");
    Log log = new Log();
    List<Rec> batch = new ArrayList<>();
    for (String tp : PARTITIONS) {
      int dash = tp.lastIndexOf('-');
      List<Rec> rs = log.partitions.computeIfAbsent(tp, k -> new ArrayList<>());
      log.committed.put(tp, 1_000L);
      for (long offset = 1_000; rs.size() < 2_000; offset++) {
        if (offset % 10 != 9) { // 1009, 1019, ...: commit markers
          rs.add(
              Rec.of(
                  tp.substring(0, dash),
                  Integer.parseInt(tp.substring(dash + 1)),
                  offset,
                  T0 + rs.size() * 1_000L, // 2,000 s: one hour folder
                  "{\"n\":" + offset + "}"));
        }
      }
      batch.addAll(rs);
    }

    boolean archived;
    try (StdoutCapture quiet = new StdoutCapture()) {
      archived = log.apply(batch, instance(harness.config()).invoke(batch));
    }

    assertThat(archived).isTrue();
    List<String> claims = new ArrayList<>();
    for (var o : s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix + "/")).contents()) {
      if (o.key().contains("/_schemas/")) {
        continue; // the topic's schema versions, not claims
      }
      var meta = s3.headObject(b -> b.bucket(BUCKET).key(o.key())).metadata();
      claims.add(
          o.key().substring(prefix.length() + 1, o.key().indexOf('/', prefix.length() + 1))
              + " "
              + meta.get("kafka-offsets")
              + " gaps "
              + meta.get("kafka-gaps"));
    }
    assertThat(claims)
        .containsExactlyInAnyOrder(
            "orders 1000-3221 gaps 9*222",
            "orders 1000-3221 gaps 9*222",
            "audit.log 1000-3221 gaps 9*222");
    try (DuckDb duck = new DuckDb()) {
      check(duck, mirror, prefix, log, true, "markers every 10 offsets");
    }
  }

  private static Instance instance(ArchiverConfig config) {
    CrashingStore store =
        new CrashingStore(
            S3ObjectStore.create(
                config,
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))));
    return new Instance(new ArchiverHandler(config, store, Clock.systemUTC()), store);
  }

  private static void run(
      Pattern pattern,
      List<Rec> batch,
      Log log,
      Random rnd,
      Instance first,
      Instance second,
      Instance otherTopic)
      throws Exception {
    switch (pattern) {
      case NORMAL -> log.apply(batch, first.invoke(batch));
      case LOST_RESPONSE_AFTER_ALL_UPLOADS -> first.invoke(batch);
      case LOST_RESPONSE_AFTER_SOME_UPLOADS -> {
        first.store().writesLeft.set(rnd.nextInt(4));
        first.invoke(batch);
      }
      case S3_RESPONSE_LOST -> {
        // The write lands, its answer does not: the SDK retries into its own object (412).
        proxy.next(1 + rnd.nextInt(2), FaultProxy.Request::isPut, new TruncateResponse(0.0));
        log.apply(batch, first.invoke(batch));
      }
      case SPLIT_AFTER_FAILURE -> {
        // The batch fails after some uploads; the mapping splits it and retries the halves.
        first.store().writesLeft.set(rnd.nextInt(4));
        first.invoke(batch);
        int half = Math.max(1, batch.size() / 2);
        List<Rec> head = batch.subList(0, half);
        List<Rec> tail = batch.subList(half, batch.size());
        if (log.apply(head, first.invoke(head)) && !tail.isEmpty()) {
          log.apply(tail, first.invoke(tail));
        }
      }
      case CONCURRENT_HOLDERS -> {
        // A rebalance: two instances hold the same partitions, each with its own batch; both
        // commit, in either order.
        List<Rec> other = log.batch(rnd, log.mix(rnd));
        CompletableFuture<String> a = CompletableFuture.supplyAsync(() -> first.invoke(batch));
        CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> second.invoke(other));
        String ra = a.get();
        String rb = b.get();
        if (rnd.nextBoolean()) {
          log.apply(batch, ra);
          log.apply(other, rb);
        } else {
          log.apply(other, rb);
          log.apply(batch, ra);
        }
      }
      case FOLDER_FAILS -> {
        // Every upload into one hour folder is refused: a partial batch response names the
        // partitions from the first unwritten object (or, without it, the batch fails).
        Rec victim = batch.get(rnd.nextInt(batch.size()));
        String hour = String.format("%02d", (victim.timestamp() / 3_600_000L) % 24);
        proxy.always(
            r ->
                r.isPut()
                    && (r.target().contains("hour%3D" + hour + "/")
                        || r.target().contains("hour=" + hour + "/")),
            new Status(400, "InvalidRequest"));
        log.apply(batch, first.invoke(batch));
      }
      case NEGATIVE_OFFSET -> {
        Rec r = batch.get(rnd.nextInt(batch.size()));
        List<Rec> bad = new ArrayList<>(batch);
        bad.add(
            rnd.nextInt(bad.size() + 1),
            Rec.of(r.topic(), r.partition(), -1 - rnd.nextInt(3), r.timestamp(), "{}"));
        assertThat(first.invoke(bad)).as("a batch with a negative offset is refused").isNull();
      }
      case OTHER_INPUT_TOPIC -> {
        // Not this mapping's function: its answer does not move the orders mapping's positions.
        otherTopic.invoke(batch);
      }
    }
  }

  /** DuckDB's reading of one object version: "topic-partition@offset" -> rows that hold it. */
  private static final Map<Path, Map<String, Long>> ROWS = new ConcurrentHashMap<>();

  private static Map<String, Long> offsets(DuckDb duck, Path local, boolean errorObject) {
    String file = DuckDb.literal(local);
    String select =
        errorObject
            ? "SELECT topic || '-' || CAST(partition AS VARCHAR) AS tp, CAST(\"offset\" AS BIGINT)"
                + " AS off FROM read_json(["
                + file
                + "], format='newline_delimited', columns={topic: 'VARCHAR', partition: 'BIGINT',"
                + " \"offset\": 'BIGINT', reason: 'VARCHAR'})"
                // records another function refused by INPUT_TOPIC: outside every chain
                + " WHERE reason NOT LIKE '%is not INPUT_TOPIC%'"
            : "SELECT kafka_topic || '-' || CAST(kafka_partition AS VARCHAR) AS tp,"
                + " CAST(kafka_offset AS BIGINT) AS off FROM "
                + (file.endsWith(".parquet'")
                    ? "read_parquet(" + file + ")"
                    : "read_csv(" + file + ", header=true, all_varchar=true)");
    Map<String, Long> out = new HashMap<>();
    for (Map<String, Object> row :
        duck.query("SELECT tp, off, count(*) AS n FROM (" + select + ") GROUP BY tp, off")) {
      out.put(row.get("tp") + "@" + row.get("off"), ((Number) row.get("n")).longValue());
    }
    return out;
  }

  /**
   * Reads every object of the prefix with DuckDB (data and error objects, each version once): no
   * offset twice, and every offset below the committed positions present ({@code complete}: every
   * offset of the log).
   */
  private static void check(
      DuckDb duck, Path mirror, String prefix, Log log, boolean complete, String when)
      throws IOException {
    Map<String, Long> counts = new TreeMap<>();
    var page = s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix + "/"));
    for (var o : page.contents()) {
      if (o.key().contains("/_schemas/")) {
        continue; // the topic's schema versions, not records
      }
      // Each version of an object is read once: its ETag is in the mirror's file name, so an
      // object overwritten in place is downloaded and read again, and the others are not re-read
      // every round.
      String etag = o.eTag().replaceAll("[^A-Za-z0-9]", "");
      Path local = mirror.resolve(etag + "_" + o.key().replace('/', '_').replace('=', '-'));
      Map<String, Long> rows = ROWS.get(local);
      if (rows == null) {
        Files.write(local, ObjectBodies.decompressed(s3, BUCKET, o.key()));
        // A zero-byte object is a claim-only object: zero rows.
        rows =
            Files.size(local) == 0 ? Map.of() : offsets(duck, local, o.key().contains("/_errors/"));
        ROWS.put(local, rows);
      }
      rows.forEach((tpOffset, n) -> counts.merge(tpOffset, n, Long::sum));
    }
    Map<String, Long> duplicated =
        counts.entrySet().stream()
            .filter(e -> e.getValue() > 1)
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    if (!duplicated.isEmpty()) {
      // Name the objects that hold a duplicated offset, with their claims, to debug by.
      StringBuilder where = new StringBuilder();
      String one = duplicated.keySet().iterator().next();
      String tp = one.substring(0, one.indexOf('@'));
      long off = Long.parseLong(one.substring(one.indexOf('@') + 1));
      var page2 = s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix + "/"));
      for (var o : page2.contents()) {
        var meta = s3.headObject(b -> b.bucket(BUCKET).key(o.key())).metadata();
        String range = meta.getOrDefault("kafka-offsets", "");
        if (!range.isEmpty() && o.key().contains(tp.substring(0, tp.indexOf('-')))) {
          int dash = range.indexOf('-', 1);
          long a = Long.parseLong(range.substring(0, dash));
          long b = Long.parseLong(range.substring(dash + 1));
          if (a <= off && off <= b) {
            where
                .append("\n  ")
                .append(o.key())
                .append(' ')
                .append(o.size())
                .append("B ")
                .append(meta);
          }
        }
      }
      assertThat(duplicated)
          .as("%s: offsets stored more than once; objects covering %s:%s", when, one, where)
          .isEmpty();
    }
    List<String> missing = new ArrayList<>();
    for (String tp : PARTITIONS) {
      long until = complete ? Long.MAX_VALUE : log.committed.get(tp);
      for (Rec r : log.partitions.get(tp)) {
        if (r.offset() < until && !counts.containsKey(tp + "@" + r.offset())) {
          missing.add(tp + "@" + r.offset());
        }
      }
    }
    assertThat(missing).as("%s: committed offsets missing", when).isEmpty();
  }
}
