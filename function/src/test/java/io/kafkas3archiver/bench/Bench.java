package io.kafkas3archiver.bench;

import com.amazonaws.services.lambda.runtime.events.KafkaEvent;
import com.amazonaws.services.lambda.runtime.serialization.PojoSerializer;
import com.amazonaws.services.lambda.runtime.serialization.factories.JacksonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.bench.driver.ColdStart;
import io.kafkas3archiver.bench.driver.Warm;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.EventDecoder;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.Invocation;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.UnconditionalStore;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Issue 8's benchmark, one command (README, Performance). On one realistic 6 MB batch it prints,
 * for every OUTPUT_FORMAT × COMPRESSION this build accepts: the handler's in-memory throughput
 * against a floor pipeline (base64-decode + concatenate + the same compressor), the event-path
 * comparison (streaming decoder vs the KafkaEvent POJO), the end-to-end invocation against an
 * in-process S3 server, cold starts of the shaded jar in fresh JVMs, the peak heap from capped-heap
 * runs, and the cost per TB derived from the measured times. Comparisons are interleaved, several
 * rounds, medians.
 *
 * <p>System properties: {@code bench.rounds} (throughput rounds, 21), {@code bench.e2eRounds} (9),
 * {@code bench.coldRounds} (5), {@code bench.sections}
 * (throughput,event,partitioning,e2e,cold,heap), {@code bench.partitionRounds} (= bench.rounds),
 * {@code bench.heap} ({@code gzip}: each format with none and gzip; {@code all}; {@code none}),
 * {@code bench.memoryMb} (1024, as deployed), {@code bench.jar}. Not in the default sections:
 * {@code lambda} and {@code lambda-memory} (issue 29: the end-to-end and in-memory rows in JVMs
 * forked with Lambda's flags, see {@link LambdaBench}), with {@code bench.lambdaRounds} (9), {@code
 * bench.lambdaMemory} (512,1024) and {@code bench.lambdaCombos} (all pairs); {@code lambda-compare}
 * (the same rows for an earlier build, {@code bench.beforeJar}, and this one side by side, see
 * {@link LambdaCompare}); {@code bench.jfr} (a folder: each of those forks records a JFR profile
 * there).
 */
public final class Bench {
  private static final PrintStream OUT = System.out;
  private static final double MB = 1_000_000.0;
  private static final String LAMBDA_JVM_FLAGS = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1";

  /** The cold-start forks' JVM: Lambda's flags, SerialGC, a heap that fits 512 MB. */
  private static final List<String> COLD_FLAGS =
      List.of("-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx448m");

  private Bench() {}

  public static void main(String[] args) throws Exception {
    long began = System.nanoTime();
    int rounds = Integer.getInteger("bench.rounds", 21);
    int e2eRounds = Integer.getInteger("bench.e2eRounds", 9);
    int coldRounds = Integer.getInteger("bench.coldRounds", 5);
    String heapMode = System.getProperty("bench.heap", "gzip");
    int memoryMb = Integer.getInteger("bench.memoryMb", 1024);
    Path jar = Path.of(System.getProperty("bench.jar", "function/target/kafka-s3-archiver.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build it first (mvnw package)");
    }

    TelemetryBatch batch = TelemetryBatch.generate();
    Path work = Files.createTempDirectory("archiver-bench");
    Path bigEvent = work.resolve("telemetry-10k.json");
    Files.write(bigEvent, batch.event);
    Path smallEvent = Path.of("events/msk-event.json");
    List<String> skipped = new ArrayList<>();
    List<Combo> combos = Combo.accepted(skipped);

    OUT.printf(
        Locale.ROOT,
        "kafka-s3-archiver benchmark: Java %s, %d cores, %s%n",
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.arch"));
    OUT.printf(
        Locale.ROOT,
        "batch: %,d records, event %,d bytes (%.2f MB), payload (decoded values) %,d bytes (%.2f"
            + " MB)%n",
        TelemetryBatch.RECORDS,
        batch.event.length,
        batch.event.length / MB,
        batch.payloadBytes,
        batch.payloadBytes / MB);
    OUT.println("format × compression pairs this build accepts: " + names(combos));
    skipped.forEach(s -> OUT.println("  skipped " + s));

    List<String> sections =
        List.of(
            System.getProperty(
                    "bench.sections", "throughput,event,partitioning,e2e,requests,cold,heap")
                .split(","));
    Map<Combo, Double> e2eMs = new LinkedHashMap<>();
    if (sections.contains("throughput")) {
      throughput(batch, combos, rounds);
    }
    if (sections.contains("event")) {
      eventPath(batch, 2 * rounds);
    }
    if (sections.contains("partitioning")) {
      OUT.println();
      OUT.println("## Partitioning by record content (issue 17): in memory, objects discarded");
      PartitioningBench.run(OUT, batch, Integer.getInteger("bench.partitionRounds", rounds));
    }
    long heapFloorBytes = 0;
    boolean tls = Boolean.getBoolean("bench.tls");
    try (S3ProxyServer s3 = tls ? BenchTls.start(work) : S3ProxyServer.inMemory()) {
      if (tls) {
        OUT.println(
            "forks reach S3Proxy over https (bench.tls): the SDK sends the body unsigned and TLS"
                + " encrypts it, as a function's PutObject to S3 does");
      }
      s3.createBucket(Combo.BUCKET);
      if (sections.contains("e2e")) {
        endToEnd(batch, combos, e2eRounds, s3, e2eMs);
      }
      if (sections.contains("requests")) {
        Requests.print(OUT, s3);
      }
      Forks forks = new Forks(jar, work, s3);
      if (sections.contains("lambda") || sections.contains("lambda-memory")) {
        List<Integer> memories = lambdaMemories();
        List<Combo> lambdaCombos = lambdaCombos(combos);
        int lambdaRounds = Integer.getInteger("bench.lambdaRounds", 9);
        if (sections.contains("lambda")) {
          LambdaBench.endToEnd(OUT, forks, bigEvent, batch, lambdaCombos, memories, lambdaRounds);
        }
        if (sections.contains("lambda-memory")) {
          LambdaBench.inMemory(OUT, forks, bigEvent, batch, lambdaCombos, memories, lambdaRounds);
        }
      }
      if (sections.contains("lambda-compare")) {
        Path beforeJar = Path.of(System.getProperty("bench.beforeJar", ""));
        Forks beforeForks =
            otherJar(
                beforeJar,
                "lambda-compare needs -Dbench.beforeJar=<an earlier build's shaded jar>, for"
                    + " example from a worktree of the earlier commit: mvnw -pl function"
                    + " -DskipTests package, then function/target/kafka-s3-archiver.jar",
                work.resolve("before-jar"),
                s3);
        LambdaCompare.run(
            OUT,
            beforeForks,
            beforeJar,
            forks,
            bigEvent,
            batch,
            lambdaCombos(combos),
            lambdaMemories(),
            Integer.getInteger("bench.lambdaRounds", 9));
      }
      if (sections.contains("cold")) {
        coldStart(forks, smallEvent, bigEvent, coldRounds);
      }
      if (sections.contains("heap")) {
        heapFloorBytes = peakHeap(forks, bigEvent, combos, heapMode, batch);
      }
      if (sections.contains("jars")) {
        // Not in the default run: it needs the iceberg module's shaded jar built too.
        Path icebergJar =
            Path.of(
                System.getProperty(
                    "bench.icebergJar", "function/iceberg/target/kafka-s3-archiver-iceberg.jar"));
        Forks icebergForks =
            otherJar(
                icebergJar,
                icebergJar
                    + " is missing: build both jars first (mvnw -pl function,function/iceberg"
                    + " install -DskipTests)",
                work.resolve("iceberg-jar"),
                s3);
        JarColdStart.run(
            OUT,
            forks,
            jar,
            icebergForks,
            icebergJar,
            smallEvent,
            bigEvent,
            coldRounds,
            COLD_FLAGS);
      }
    }
    if (!e2eMs.isEmpty()) {
      Cost.print(OUT, batch, e2eMs, memoryMb, putsPerBatch);
    }
    OUT.printf(Locale.ROOT, "%nbenchmark finished in %.0f s%n", (System.nanoTime() - began) / 1e9);
    if (heapFloorBytes < 0) {
      throw new IllegalStateException("a capped-heap run failed at every size");
    }
  }

  /** Forks of another shaded jar than the benchmark's, in a folder of their own. */
  private static Forks otherJar(Path jar, String missing, Path folder, S3ProxyServer s3)
      throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(missing);
    }
    return new Forks(jar, Files.createDirectories(folder), s3);
  }

  /** {@code bench.lambdaMemory}: the function memory sizes (MB) the lambda sections fork for. */
  private static List<Integer> lambdaMemories() {
    return Stream.of(System.getProperty("bench.lambdaMemory", "512,1024").split(","))
        .map(Integer::valueOf)
        .toList();
  }

  /** {@code bench.lambdaCombos}: a comma-separated subset such as {@code ndjson/none}, or all. */
  private static List<Combo> lambdaCombos(List<Combo> combos) {
    String wanted = System.getProperty("bench.lambdaCombos", "");
    if (wanted.isBlank()) {
      return combos;
    }
    List<String> names = List.of(wanted.split(","));
    List<Combo> chosen = combos.stream().filter(c -> names.contains(c.name())).toList();
    if (chosen.size() != names.size()) {
      throw new IllegalArgumentException(
          "bench.lambdaCombos names a pair this build does not accept: "
              + wanted
              + "; accepted: "
              + names(combos));
    }
    return chosen;
  }

  private static String names(List<Combo> combos) {
    return String.join(", ", combos.stream().map(Combo::name).toList());
  }

  // ---------------------------------------------------------------- throughput vs the floor

  /** A store that keeps nothing: the in-memory path ends at the encoded, compressed bytes. */
  /** PutObjects of one telemetry batch, as the e2e section counted them. */
  private static double putsPerBatch = 1;

  static final UnconditionalStore DISCARD =
      (key, body, type, deadline) -> new ObjectStore.PutResult(1, 0);

  private static void throughput(TelemetryBatch batch, List<Combo> combos, int rounds)
      throws IOException {
    OUT.println();
    OUT.println(
        "## In-memory throughput: handler (decode → encode → compress → discard) vs floor"
            + " (base64-decode → concatenate → same compressor → discard)");
    OUT.printf(
        Locale.ROOT,
        "%d rounds, handler and floor back to back in each (order alternating); ms are medians,"
            + " ratio is the median of the per-round ratios; MB = 10^6 bytes of payload%n",
        rounds);
    OUT.println();
    OUT.println(
        "| format | compression | handler ms | handler MB/s | handler records/s | floor ms |"
            + " floor MB/s | handler − floor ms | ratio | target | met | handler alloc MB/batch |");
    OUT.println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|--:|");
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<ArchiverHandler> handlers = new ArrayList<>();
    for (Combo combo : combos) {
      handlers.add(
          quietly(() -> new ArchiverHandler(combo.config(Map.of()), DISCARD, Clock.systemUTC())));
    }
    // Warm every path first, so no row pays for another's JIT compilation.
    for (int i = 0; i < 8; i++) {
      for (int c = 0; c < combos.size(); c++) {
        invoke(handlers.get(c), batch.event);
        floor(batch, combos.get(c).compression());
      }
    }
    for (int c = 0; c < combos.size(); c++) {
      Combo combo = combos.get(c);
      ArchiverHandler handler = handlers.get(c);
      Runnable handlerRun = () -> invoke(handler, batch.event);
      Runnable floorRun = () -> floor(batch, combo.compression());
      long[] h = new long[rounds];
      long[] f = new long[rounds];
      double[] pairRatio = new double[rounds];
      double[] overhead = new double[rounds];
      long[] alloc = new long[rounds];
      for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
          long a = threads.getCurrentThreadAllocatedBytes();
          h[r] = time(handlerRun);
          alloc[r] = threads.getCurrentThreadAllocatedBytes() - a;
          f[r] = time(floorRun);
        } else {
          f[r] = time(floorRun);
          long a = threads.getCurrentThreadAllocatedBytes();
          h[r] = time(handlerRun);
          alloc[r] = threads.getCurrentThreadAllocatedBytes() - a;
        }
        pairRatio[r] = (double) h[r] / f[r];
        overhead[r] = (h[r] - f[r]) / 1e6;
      }
      double hMs = Stats.median(h) / 1e6;
      double fMs = Stats.median(f) / 1e6;
      // Each round's handler and floor ran back to back, so their ratio cancels most of the
      // machine's drift; the median of those ratios is the figure judged against the target.
      double ratio = Stats.median(pairRatio);
      OUT.printf(
          Locale.ROOT,
          "| %s | %s | %.1f | %.1f | %,.0f | %.1f | %.1f | %.1f | %.2f× | ≤ %.1f× | %s | %.1f |%n",
          combo.format().configName(),
          combo.compression().configName(),
          hMs,
          batch.payloadBytes / MB / (hMs / 1000),
          TelemetryBatch.RECORDS / (hMs / 1000),
          fMs,
          batch.payloadBytes / MB / (fMs / 1000),
          Stats.median(overhead),
          ratio,
          combo.target(),
          ratio <= combo.target() ? "yes" : "**no**",
          Stats.median(alloc) / MB);
    }
  }

  private static void invoke(ArchiverHandler handler, byte[] event) {
    io.kafkas3archiver.bench.driver.Warm.archive(handler, event);
  }

  /** The floor: no parsing at all, just the bytes the archive must hold, through the codec. */
  static long floor(TelemetryBatch batch, Compression compression) {
    Counting sink = new Counting();
    Base64.Decoder decoder = Base64.getDecoder();
    try (OutputStream out = compression.wrap(sink)) {
      for (byte[] value : batch.base64Values) {
        out.write(decoder.decode(value));
        out.write('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sink.count;
  }

  /** A sink that discards, counting so the work cannot be optimised away. */
  static final class Counting extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }

  private static long time(Runnable r) {
    long t = System.nanoTime();
    r.run();
    return System.nanoTime() - t;
  }

  /** The handler logs to the stdout it finds at construction; keep the table readable. */
  static <T> T quietly(Supplier<T> build) {
    return io.kafkas3archiver.bench.driver.Warm.quietly(build);
  }

  // ---------------------------------------------------------------- event path

  private static void eventPath(TelemetryBatch batch, int rounds) throws IOException {
    OUT.println();
    OUT.println(
        "## Event path: streaming decoder (RequestStreamHandler) vs KafkaEvent POJO (the runtime's"
            + " Jackson serializer, then base64-decoded into the same records)");
    OUT.println();
    EventDecoder decoder = new EventDecoder(new ObjectMapper());
    PojoSerializer<KafkaEvent> pojo = JacksonFactory.getInstance().getSerializer(KafkaEvent.class);
    Supplier<Object> streaming = () -> streamingDecode(decoder, batch.event);
    Supplier<Object> viaPojo = () -> pojoDecode(pojo, batch.event);
    if (streamingRecords(streaming.get()) != pojoRecords(viaPojo.get())) {
      throw new IllegalStateException("the two event paths disagree on the record count");
    }
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 10; i++) {
      streaming.get();
      viaPojo.get();
    }
    long[] s = new long[rounds];
    double[] pairRatio = new double[rounds];
    long[] p = new long[rounds];
    long[] sAlloc = new long[rounds];
    long[] pAlloc = new long[rounds];
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < 2; k++) {
        boolean streamingTurn = (r + k) % 2 == 0;
        long a = threads.getCurrentThreadAllocatedBytes();
        long t = time(() -> (streamingTurn ? streaming : viaPojo).get());
        long allocated = threads.getCurrentThreadAllocatedBytes() - a;
        if (streamingTurn) {
          s[r] = t;
          sAlloc[r] = allocated;
        } else {
          p[r] = t;
          pAlloc[r] = allocated;
        }
      }
      pairRatio[r] = (double) s[r] / p[r];
    }
    long sRetained = retained(streaming);
    long pRetained = retained(viaPojo);
    OUT.println("| path | ms | allocated MB | retained MB after decode |");
    OUT.println("|---|--:|--:|--:|");
    OUT.printf(
        Locale.ROOT,
        "| streaming (shipped) | %.1f | %.1f | %.1f |%n",
        Stats.median(s) / 1e6,
        Stats.median(sAlloc) / MB,
        sRetained / MB);
    OUT.printf(
        Locale.ROOT,
        "| KafkaEvent POJO | %.1f | %.1f | %.1f |%n",
        Stats.median(p) / 1e6,
        Stats.median(pAlloc) / MB,
        pRetained / MB);
    OUT.printf(
        Locale.ROOT,
        "streaming ÷ POJO (median of per-round ratios for time): time %.2f×, allocation %.2f×,"
            + " retained %.2f×%n",
        Stats.median(pairRatio),
        Stats.median(sAlloc) / Stats.median(pAlloc),
        (double) sRetained / pRetained);
  }

  private static Object streamingDecode(EventDecoder decoder, byte[] event) {
    try {
      return decoder.decode(new ByteArrayInputStream(event));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int streamingRecords(Object o) {
    return ((Invocation.KafkaBatch) o).records().size();
  }

  private static int pojoRecords(Object o) {
    return ((PojoDecoded) o).records().size();
  }

  /** What a POJO handler holds while it works: the runtime's event and the decoded records. */
  private record PojoDecoded(KafkaEvent event, List<KafkaRecord> records) {}

  private static Object pojoDecode(PojoSerializer<KafkaEvent> serializer, byte[] bytes) {
    KafkaEvent event = serializer.fromJson(new ByteArrayInputStream(bytes));
    Base64.Decoder b64 = Base64.getDecoder();
    List<KafkaRecord> records = new ArrayList<>();
    for (var partition : event.getRecords().values()) {
      for (var r : partition) {
        List<Header> headers = new ArrayList<>();
        if (r.getHeaders() != null) {
          for (Map<String, byte[]> h : r.getHeaders()) {
            h.forEach((name, value) -> headers.add(new Header(name, value)));
          }
        }
        records.add(
            new KafkaRecord(
                r.getTopic(),
                r.getPartition(),
                r.getOffset(),
                r.getTimestamp(),
                r.getTimestampType(),
                r.getKey() == null ? null : b64.decode(r.getKey()),
                r.getValue() == null ? null : b64.decode(r.getValue()),
                headers));
      }
    }
    return new PojoDecoded(event, records);
  }

  /** Live heap held by what {@code decode} returns, measured across full collections. */
  private static long retained(Supplier<Object> decode) {
    long before = usedAfterGc();
    Object held = decode.get();
    long after = usedAfterGc();
    java.lang.ref.Reference.reachabilityFence(held);
    return after - before;
  }

  private static long usedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  // ---------------------------------------------------------------- end to end

  private static void endToEnd(
      TelemetryBatch batch,
      List<Combo> combos,
      int rounds,
      S3ProxyServer s3,
      Map<Combo, Double> e2eMs) {
    OUT.println();
    OUT.println(
        "## End to end, warm: one invocation (decode → encode → compress → PutObject) against S3Proxy"
            + " on 127.0.0.1, in process");
    OUT.printf(
        Locale.ROOT,
        "median of %d invocations each after 2 warm-ups, round-robin over the rows%n%n",
        rounds);
    OUT.println("| format | compression | object bytes | ms | ms per MB payload | MB/s payload |");
    OUT.println("|---|---|--:|--:|--:|--:|");
    Map<String, String> endpoint =
        Map.of("AWS_ENDPOINT_URL_S3", s3.endpoint().toString(), "S3_FORCE_PATH_STYLE", "true");
    var credentials =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY));
    List<ArchiverHandler> handlers = new ArrayList<>();
    long[] objectBytes = new long[combos.size()];
    long[] puts = new long[combos.size()];
    for (int c = 0; c < combos.size(); c++) {
      ArchiverConfig config = combos.get(c).config(endpoint);
      S3ObjectStore s3Store = S3ObjectStore.create(config, credentials);
      int index = c;
      // Unconditional: every round is the normal path (a first delivery), not a 412 on the
      // objects of the round before. A conditional PUT costs the same request.
      UnconditionalStore store =
          (key, body, type, deadline) -> {
            objectBytes[index] += body.length();
            puts[index]++;
            return s3Store.put(key, body, type, deadline);
          };
      handlers.add(quietly(() -> new ArchiverHandler(config, store, Clock.systemUTC())));
    }
    handlers.forEach(h -> invoke(h, batch.event));
    putsPerBatch = (double) puts[0];
    java.util.Arrays.fill(objectBytes, 0);
    handlers.forEach(h -> invoke(h, batch.event));
    // Round-robin over the pairs, so a burst of load on the machine spreads over all rows.
    long[][] t = new long[combos.size()][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int c = 0; c < combos.size(); c++) {
        ArchiverHandler handler = handlers.get(c);
        t[c][r] = time(() -> invoke(handler, batch.event));
      }
    }
    for (int c = 0; c < combos.size(); c++) {
      Combo combo = combos.get(c);
      double ms = Stats.median(t[c]) / 1e6;
      e2eMs.put(combo, ms);
      OUT.printf(
          Locale.ROOT,
          "| %s | %s | %,d | %.1f | %.1f | %.1f |%n",
          combo.format().configName(),
          combo.compression().configName(),
          objectBytes[c] / (rounds + 1),
          ms,
          ms / (batch.payloadBytes / MB),
          batch.payloadBytes / MB / (ms / 1000));
    }
  }

  // ---------------------------------------------------------------- forked JVMs

  /** Launches fresh JVMs on the shaded jar plus the driver class (and a client's jars). */
  static final class Forks {
    private final Path jar;
    private final Path driverDir;
    private final Path work;
    private final S3ProxyServer s3;
    private int forksStarted;

    Forks(Path jar, Path work, S3ProxyServer s3) throws IOException {
      this.jar = jar;
      this.work = work;
      this.s3 = s3;
      this.driverDir = work.resolve("driver");
      copyDriver(driverDir);
    }

    /** Only the driver's own class files, not the test tree. */
    private static void copyDriver(Path target) throws IOException {
      Path classes;
      try {
        classes =
            Path.of(ColdStart.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      } catch (java.net.URISyntaxException e) {
        throw new IllegalStateException(e);
      }
      String pkg = ColdStart.class.getPackageName().replace('.', '/');
      Path from = classes.resolve(pkg);
      Path to = target.resolve(pkg);
      Files.createDirectories(to);
      try (Stream<Path> files = Files.list(from)) {
        for (Path f : files.toList()) {
          Files.copy(f, to.resolve(f.getFileName()));
        }
      }
    }

    /** The jars a non-shipped HTTP client needs, found from the bench's own classpath. */
    private static List<String> clientJars(String client) {
      List<String> types =
          switch (client) {
            case "apache" ->
                List.of(
                    "software.amazon.awssdk.http.apache.ApacheHttpClient",
                    "org.apache.http.client.HttpClient",
                    "org.apache.http.HttpRequest",
                    "org.apache.commons.logging.Log",
                    "org.apache.commons.codec.binary.Base64");
            case "apache5" ->
                List.of(
                    "software.amazon.awssdk.http.apache5.Apache5HttpClient",
                    "org.apache.hc.client5.http.classic.HttpClient",
                    "org.apache.hc.core5.http.HttpRequest",
                    "org.apache.hc.core5.http2.HttpVersionPolicy");
            case "crt" ->
                List.of(
                    "software.amazon.awssdk.http.crt.AwsCrtHttpClient",
                    "software.amazon.awssdk.crt.CRT");
            default -> List.of();
          };
      List<String> jars = new ArrayList<>();
      for (String type : types) {
        try {
          jars.add(
              Path.of(
                      Class.forName(type)
                          .getProtectionDomain()
                          .getCodeSource()
                          .getLocation()
                          .toURI())
                  .toString());
        } catch (ReflectiveOperationException | java.net.URISyntaxException e) {
          throw new IllegalStateException("cannot find the jar of " + type, e);
        }
      }
      return jars;
    }

    /**
     * One fresh JVM; returns {wall ms to the BENCH line, init, prime, invoke, process CPU ms}, or
     * null.
     */
    double[] run(
        String mode,
        String client,
        Path event,
        Map<String, String> env,
        List<String> jvmFlags,
        int timeoutSeconds)
        throws IOException, InterruptedException {
      List<String> cp = new ArrayList<>(List.of(jar.toString(), driverDir.toString()));
      cp.addAll(clientJars(client));
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jvmFlags);
      cmd.addAll(tlsFlags());
      cmd.addAll(
          List.of(
              "-cp",
              String.join(File.pathSeparator, cp),
              ColdStart.class.getName(),
              mode,
              client,
              event.toAbsolutePath().toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd);
      environment(pb, env);
      pb.redirectError(work.resolve("fork-stderr.log").toFile());
      long start = System.nanoTime();
      Process p = pb.start();
      double wall = -1;
      String bench = null;
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("BENCH ")) {
            wall = (System.nanoTime() - start) / 1e6;
            bench = line;
          }
        }
      }
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      if (p.exitValue() != 0 || bench == null) {
        return null;
      }
      String[] fields = bench.substring(6).split(" ");
      double[] out = new double[fields.length + 1];
      out[0] = wall;
      for (int i = 0; i < fields.length; i++) {
        out[i + 1] = Double.parseDouble(fields[i].substring(fields[i].indexOf('=') + 1));
      }
      return out;
    }

    /**
     * A fork's whole environment: the in-process S3Proxy, its keys, a prefix of its own, nothing
     * inherited but PATH.
     */
    private void environment(ProcessBuilder pb, Map<String, String> env) {
      Map<String, String> penv = pb.environment();
      String path = penv.get("PATH");
      penv.clear();
      penv.put("PATH", path == null ? "/usr/bin:/bin" : path);
      penv.put("HOME", work.toString());
      penv.put("AWS_REGION", S3ProxyServer.REGION);
      penv.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
      penv.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
      penv.put("AWS_EC2_METADATA_DISABLED", "true");
      penv.put(
          "AWS_ENDPOINT_URL_S3",
          (Boolean.getBoolean("bench.tls") ? s3.secureEndpoint() : s3.endpoint()).toString());
      penv.put("S3_FORCE_PATH_STYLE", "true");
      penv.put("BUCKET_NAME", Combo.BUCKET);
      penv.put("TITLE", "bench");
      // Each fork archives into its own prefix: with exactly-once keys, a second fork writing
      // the same event would meet the first one's object and time the conflict path instead.
      penv.put("KEY_PREFIX", "cold-" + forksStarted++);
      penv.putAll(env);
    }

    /**
     * A warm instance (issue 29): one forked JVM running {@link Warm} with {@code function},
     * invoked command by command until closed.
     */
    WarmInstance start(String function, Path event, Map<String, String> env, List<String> jvmFlags)
        throws IOException {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jvmFlags);
      cmd.addAll(tlsFlags());
      cmd.addAll(profilerFlags(function));
      cmd.addAll(
          List.of(
              "-cp",
              jar + File.pathSeparator + driverDir,
              Warm.class.getName(),
              function,
              event.toAbsolutePath().toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd);
      environment(pb, env);
      Path log = work.resolve("warm-" + forksStarted + "-stderr.log");
      pb.redirectError(log.toFile());
      return new WarmInstance(pb.start(), log);
    }

    /**
     * The trust flags of {@code bench.tls}, and {@code bench.forkFlags} (space-separated JVM flags
     * added to every fork, e.g. {@code -Djdk.tls.client.cipherSuites=...}).
     */
    private List<String> tlsFlags() {
      List<String> flags =
          new ArrayList<>(Boolean.getBoolean("bench.tls") ? BenchTls.trustFlags() : List.of());
      for (String f : System.getProperty("bench.forkFlags", "").trim().split("\\s+")) {
        if (!f.isEmpty()) {
          flags.add(f);
        }
      }
      return flags;
    }

    /**
     * {@code -Dbench.jfr=<folder>}: each warm fork records a JFR profile ({@code settings=profile})
     * into that folder, named by its function and fork number, for reading with {@code jfr print}
     * or JDK Mission Control. The fork's flags are otherwise unchanged.
     */
    private List<String> profilerFlags(String function) {
      String folder = System.getProperty("bench.jfr", "");
      if (folder.isBlank()) {
        return List.of();
      }
      Path dir = Path.of(folder).toAbsolutePath();
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot create bench.jfr's folder " + dir, e);
      }
      Path file = dir.resolve(function + "-" + forksStarted + ".jfr");
      return List.of(
          "-XX:FlightRecorderOptions=stackdepth=128",
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + file);
    }

    String lastStderr() throws IOException {
      Path log = work.resolve("fork-stderr.log");
      if (!Files.exists(log)) {
        return "";
      }
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }
  }

  /**
   * samples[variant][round]: every variant once per round, the order rotated each round so that no
   * variant always runs first or right after the same other one (a shared machine drifts).
   */
  static double[][][] rotated(int variants, int rounds, Sample sample)
      throws IOException, InterruptedException {
    double[][][] samples = new double[variants][rounds][];
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < variants; k++) {
        int v = (k + r) % variants;
        samples[v][r] = sample.take(v);
      }
    }
    return samples;
  }

  /** One measurement of one variant. */
  interface Sample {
    double[] take(int variant) throws IOException, InterruptedException;
  }

  private record Variant(String label, String mode, String client, Path event) {}

  private static void coldStart(Forks forks, Path small, Path big, int rounds)
      throws IOException, InterruptedException {
    OUT.println();
    OUT.println(
        "## Cold start: fresh JVM → first batch uploaded to S3Proxy, shaded jar"
            + " (ndjson + gzip), Lambda's JVM flags ("
            + LAMBDA_JVM_FLAGS
            + " -XX:+UseSerialGC)");
    OUT.printf(
        Locale.ROOT,
        "median of %d interleaved rounds; wall = process start to upload done (JVM boot, init,"
            + " invoke); a primed row's first invoke is what runs after a SnapStart restore (the"
            + " restore itself cannot be measured here)%n%n",
        rounds);
    List<Variant> variants =
        List.of(
            new Variant("archiver, url-connection, eager (shipped)", "eager", "url", small),
            new Variant("archiver, url-connection, lazy S3 client", "lazy", "url", small),
            new Variant("archiver, Apache 4 client", "eager", "apache", small),
            new Variant("archiver, Apache 5 client", "eager", "apache5", small),
            new Variant("archiver, CRT client", "eager", "crt", small),
            new Variant("archiver, url-connection, primed", "primed", "url", small),
            new Variant("minimal PutObject-only, url-connection", "putonly", "url", small),
            new Variant("archiver, url-connection, eager (shipped)", "eager", "url", big),
            new Variant("archiver, url-connection, primed", "primed", "url", big),
            new Variant("minimal PutObject-only, url-connection", "putonly", "url", big));
    List<String> flags = COLD_FLAGS;
    Map<String, String> env = Map.of("OUTPUT_FORMAT", "ndjson", "COMPRESSION", "gzip");
    double[][][] samples =
        rotated(
            variants.size(),
            rounds,
            v -> {
              Variant variant = variants.get(v);
              double[] s =
                  forks.run(variant.mode(), variant.client(), variant.event(), env, flags, 120);
              if (s == null) {
                throw new IllegalStateException(
                    "cold-start fork failed: " + variant + "\n" + forks.lastStderr());
              }
              return s;
            });
    OUT.println(
        "| event | function | wall ms | init ms | prime ms (before snapshot) | first invoke ms |"
            + " wall ÷ PutObject-only |");
    OUT.println("|---|---|--:|--:|--:|--:|--:|");
    Map<Path, Double> putOnlyWall = new LinkedHashMap<>();
    for (int v = 0; v < variants.size(); v++) {
      if (variants.get(v).mode().equals("putonly")) {
        putOnlyWall.put(variants.get(v).event(), column(samples[v], 0));
      }
    }
    for (int v = 0; v < variants.size(); v++) {
      Variant variant = variants.get(v);
      double wall = column(samples[v], 0);
      double prime = column(samples[v], 2);
      OUT.printf(
          Locale.ROOT,
          "| %s | %s | %.0f | %.0f | %s | %.0f | %s |%n",
          variant.event() == small ? "sample (5 records)" : "6 MB (10,000 records)",
          variant.label(),
          wall,
          column(samples[v], 1),
          prime < 0 ? "–" : String.format(Locale.ROOT, "%.0f", prime),
          column(samples[v], 3),
          prime < 0
              ? String.format(Locale.ROOT, "%.2f×", wall / putOnlyWall.get(variant.event()))
              : "– (wall includes priming)");
    }
  }

  private static double column(double[][] rows, int c) {
    double[] values = new double[rows.length];
    for (int i = 0; i < rows.length; i++) {
      values[i] = rows[i][c];
    }
    return Stats.median(values);
  }

  // ---------------------------------------------------------------- peak heap

  private static long peakHeap(
      Forks forks, Path event, List<Combo> combos, String mode, TelemetryBatch batch)
      throws IOException, InterruptedException {
    if (mode.equals("none")) {
      return 0;
    }
    OUT.println();
    OUT.println(
        "## Peak heap: the smallest -Xmx (SerialGC) in which a fresh JVM archives the 6 MB batch"
            + " to S3Proxy, found by bisection to 1 MB");
    OUT.println(
        "the event is read into a byte[] first, as the Lambda runtime hands it over, so it counts;"
            + " the baseline is the PutObject-only function uploading the same event");
    OUT.println();
    OUT.println(
        "| function | smallest -Xmx MB | ÷ payload | above baseline MB | above baseline ÷ payload"
            + " | target ≤ 3× payload |");
    OUT.println("|---|--:|--:|--:|--:|:-:|");
    int baseline = smallestHeap(forks, event, "putonly", Map.of());
    if (baseline < 0) {
      return -1;
    }
    OUT.printf(
        Locale.ROOT,
        "| minimal PutObject-only (baseline) | %d | %.1f× | – | – | |%n",
        baseline,
        baseline * 1048576.0 / batch.payloadBytes);
    long worst = 0;
    for (Combo combo : combos) {
      if (mode.equals("gzip")
          && combo.compression() != Compression.NONE
          && combo.compression() != Compression.GZIP) {
        continue;
      }
      Map<String, String> env =
          Map.of(
              "OUTPUT_FORMAT",
              combo.format().configName(),
              "COMPRESSION",
              combo.compression().configName());
      int mb = smallestHeap(forks, event, "eager", env);
      if (mb < 0) {
        OUT.printf("| archiver %s | > 1024 | | | | **no** |%n", combo.name());
        return -1;
      }
      long bytes = mb * 1048576L;
      worst = Math.max(worst, bytes);
      double perPayload = bytes / (double) batch.payloadBytes;
      OUT.printf(
          Locale.ROOT,
          "| archiver %s | %d | %.1f× | %d | %.1f× | %s |%n",
          combo.name(),
          mb,
          perPayload,
          mb - baseline,
          (mb - baseline) * 1048576.0 / batch.payloadBytes,
          perPayload <= 3 ? "yes" : "**no**");
    }
    return worst;
  }

  /** Bisection over -Xmx in MB; -1 when even 1 GB is not enough. */
  private static int smallestHeap(Forks forks, Path event, String mode, Map<String, String> env)
      throws IOException, InterruptedException {
    int lo = 8; // assumed to fail
    int hi = 64;
    while (!fits(forks, event, mode, env, hi)) {
      lo = hi;
      hi *= 2;
      if (hi > 1024) {
        return -1;
      }
    }
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (fits(forks, event, mode, env, mid)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi;
  }

  private static boolean fits(
      Forks forks, Path event, String mode, Map<String, String> env, int heapMb)
      throws IOException, InterruptedException {
    List<String> flags =
        List.of(
            "-XX:+TieredCompilation",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-XX:+ExitOnOutOfMemoryError",
            "-Xmx" + heapMb + "m");
    return forks.run(mode, "url", event, env, flags, 90) != null;
  }
}
