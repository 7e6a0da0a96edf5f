package io.kafkas3archiver.bench;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * S3 requests per batch, normal path and each conflict path of the exactly-once protocol (issue
 * 12), counted on the real store against S3Proxy: a batch of 4 partitions × 2,500 records, one hour
 * folder each, and the redeliveries the event source mapping can make of it.
 */
final class Requests {
  private static final int PARTITIONS = 4;
  private static final int PER_PARTITION = 2_500;
  private static final long T0 = 1_784_000_000_000L - 1_784_000_000_000L % 3_600_000L;

  /** Records {@code [0, 1251)} of a marked partition end at offset 1388; 1389 is a marker. */
  private static final int MARKED_HALF = 1_251;

  private Requests() {}

  /** Counts what the pipeline asks of the store. */
  private static final class Counting implements ObjectStore {
    final ObjectStore delegate;
    int puts;
    int refused;
    int heads;

    Counting(ObjectStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
        throws UploadException {
      puts++;
      return delegate.put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key, ObjectBody body, String type, Map<String, String> metadata, Deadline deadline)
        throws UploadException {
      puts++;
      PutResult r = delegate.putIfAbsent(key, body, type, metadata, deadline);
      refused += r.created() ? 0 : 1;
      return r;
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline)
        throws UploadException {
      heads++;
      return delegate.metadata(key, deadline);
    }

    @Override
    public Optional<byte[]> read(String key, Deadline deadline) throws UploadException {
      return delegate.read(key, deadline);
    }

    String take() {
      String row = puts + " | " + refused + " | " + heads;
      puts = 0;
      refused = 0;
      heads = 0;
      return row;
    }
  }

  static void print(PrintStream out, S3ProxyServer s3) {
    out.println();
    out.println("## S3 requests per batch (exactly-once protocol, issue 12)");
    out.printf(
        "a batch of %d partitions × %,d records (one hour folder each), ndjson; counted on the"
            + " real store against S3Proxy%n%n",
        PARTITIONS, PER_PARTITION);
    out.println("| delivery | PutObject | of which refused (412) | HeadObject |");
    out.println("|---|--:|--:|--:|");
    int prefix = 0;
    Row[] rows = {
      new Row("first delivery (normal path)", List.of(), all(0, PER_PARTITION)),
      new Row(
          "the same batch again (lost response)",
          List.of(all(0, PER_PARTITION)),
          all(0, PER_PARTITION)),
      new Row(
          "longer, from the same offsets (more records arrived)",
          List.of(all(0, PER_PARTITION / 2)),
          all(0, PER_PARTITION)),
      new Row(
          "shorter, from the same offsets (split half)",
          List.of(all(0, PER_PARTITION)),
          all(0, PER_PARTITION / 2)),
      new Row(
          "the next batch after the shorter one (meets the pointer)",
          both(all(0, PER_PARTITION), all(0, PER_PARTITION / 2)),
          all(PER_PARTITION / 2, PER_PARTITION)),
      new Row(
          "first delivery, a transaction marker after every 9 records (277 gaps per partition)",
          List.of(),
          marked(0, PER_PARTITION)),
      new Row(
          "with markers: the next batch after a shorter one that ended just before a marker",
          both(marked(0, PER_PARTITION), marked(0, MARKED_HALF)),
          marked(MARKED_HALF, PER_PARTITION)),
      // Issue 25: an operator's reset (or AT_TIMESTAMP) to an offset inside the stored objects,
      // met by a cold instance. Without a reset lookup nothing refuses these writes.
      new Row(
          "cold start after a reset to the middle of the stored range (offsets 1,200-2,499 again)",
          List.of(all(0, PER_PARTITION)),
          all(1_200, PER_PARTITION),
          true),
    };
    for (Row row : rows) {
      ArchiverConfig config = config(s3, "requests-" + prefix++);
      Counting store = store(config);
      ArchiverHandler handler = handler(config, store);
      for (List<Rec> b : row.before()) {
        invoke(handler, b);
      }
      store.take();
      // A cold instance: a handler of its own (the same store, so the same counts).
      invoke(row.cold() ? handler(config, store) : handler, row.measured());
      out.printf("| %s | %s |%n", row.name(), store.take());
    }
    printJitter(out);
  }

  private record Row(String name, List<List<Rec>> before, List<Rec> measured, boolean cold) {
    Row(String name, List<List<Rec>> before, List<Rec> measured) {
      this(name, before, measured, false);
    }
  }

  /**
   * Objects per batch when producer clocks jitter across an hour edge (issue 25): one partition,
   * every record within 5 s of the edge, so the restart folder (batch) or the folder (record)
   * alternates record by record. Counted on an in-memory conditional store: only the pipeline's own
   * work is timed.
   */
  static void printJitter(PrintStream out) {
    out.println();
    out.println("## Objects per batch under jitter across an hour edge (issue 25)");
    out.println(
        "one partition, every record's timestamp within 5 s of 11:00, ndjson; the median of 5"
            + " runs after 3 warm-ups");
    out.println();
    out.println("| PARTITION_TIME | records | data objects | objects per folder | ms per batch |");
    out.println("|---|--:|--:|---|--:|");
    long edge = 1_784_026_800_000L; // 2026-07-14T11:00:00Z
    for (String time : List.of("batch", "record")) {
      for (int n : new int[] {2_000, 10_000}) {
        java.util.Random rnd = new java.util.Random(25);
        List<io.kafkas3archiver.decode.KafkaRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          records.add(
              new io.kafkas3archiver.decode.KafkaRecord(
                  "telemetry",
                  0,
                  i,
                  edge - 5_000 + rnd.nextInt(10_000),
                  "CREATE_TIME",
                  null,
                  ("{\"o\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                  List.of()));
        }
        Map<String, String> env = new HashMap<>();
        env.put("BUCKET_NAME", Combo.BUCKET);
        env.put("AWS_REGION", S3ProxyServer.REGION);
        env.put("PARTITION_TIME", time);
        ArchiverConfig config = ArchiverConfig.fromEnv(env);
        var batch =
            new io.kafkas3archiver.decode.Invocation.KafkaBatch("aws:kafka", records, List.of());
        long[] millis = new long[8];
        io.kafkas3archiver.testing.MemoryStore store = null;
        for (int round = 0; round < millis.length; round++) {
          store = new io.kafkas3archiver.testing.MemoryStore();
          var pipeline = new io.kafkas3archiver.Pipeline(config, store, Clock.systemUTC());
          long t = System.nanoTime();
          pipeline.archive(batch, Deadline.in(60_000, Clock.systemUTC()));
          millis[round] = (System.nanoTime() - t) / 1_000_000;
        }
        long[] measured = java.util.Arrays.copyOfRange(millis, 3, millis.length);
        java.util.Arrays.sort(measured);
        Map<String, Integer> perFolder = new java.util.TreeMap<>();
        store.objects.keySet().stream()
            .filter(k -> !k.contains("/_errors/"))
            .forEach(k -> perFolder.merge(k.substring(0, k.lastIndexOf('/')), 1, Integer::sum));
        out.printf(
            "| %s | %,d | %d | %s | %d |%n",
            time,
            n,
            perFolder.values().stream().mapToInt(Integer::intValue).sum(),
            perFolder.values(),
            measured[measured.length / 2]);
      }
    }
  }

  private static List<List<Rec>> both(List<Rec> a, List<Rec> b) {
    return List.of(a, b);
  }

  /** Offsets {@code [from, to)} of every partition. */
  private static List<Rec> all(int from, int to) {
    List<Rec> records = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (int o = from; o < to; o++) {
        records.add(Rec.of("telemetry", p, o, T0 + o * 100L, "{\"p\":" + p + ",\"o\":" + o + "}"));
      }
    }
    return records;
  }

  /**
   * Records {@code [from, to)} of every partition of a transactional producer's topic: 9 records
   * per transaction, then its commit marker, an offset the mapping never delivers.
   */
  private static List<Rec> marked(int from, int to) {
    List<Rec> records = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (int i = from; i < to; i++) {
        long o = i + i / 9;
        records.add(Rec.of("telemetry", p, o, T0 + i * 100L, "{\"p\":" + p + ",\"o\":" + o + "}"));
      }
    }
    return records;
  }

  private static ArchiverConfig config(S3ProxyServer s3, String prefix) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", Combo.BUCKET);
    env.put("AWS_REGION", S3ProxyServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("KEY_PREFIX", prefix);
    return ArchiverConfig.fromEnv(env);
  }

  private static Counting store(ArchiverConfig config) {
    return new Counting(
        S3ObjectStore.create(
            config,
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))));
  }

  private static ArchiverHandler handler(ArchiverConfig config, Counting store) {
    PrintStream original = System.out;
    try {
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
      return new ArchiverHandler(config, store, Clock.systemUTC());
    } finally {
      System.setOut(original);
    }
  }

  private static void invoke(ArchiverHandler handler, List<Rec> batch) {
    PrintStream original = System.out;
    try {
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
      handler.handleRequest(
          new ByteArrayInputStream(KafkaEvents.event(batch)),
          new ByteArrayOutputStream(),
          new LocalContext(60_000));
    } catch (Exception e) {
      throw new IllegalStateException("the requests benchmark's invocation failed", e);
    } finally {
      System.setOut(original);
    }
  }
}
