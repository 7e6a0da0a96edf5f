package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.bench.Cost;
import io.kafkas3archiver.bench.TelemetryBatch;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * OUTPUT_FORMAT=iceberg figures against the in-process REST catalog on S3Proxy (docs/iceberg.md,
 * Performance): ms per 1,000-record batch, commit latency, S3 and catalog requests per batch, the
 * commit rate one table sustains with 1, 2 and 4 concurrent pollers, and one maintenance run; with
 * {@code -Dbench.sections=lambda}, the iceberg and the parquet-files function side by side under
 * Lambda's JVM flags ({@link IcebergLambdaBench}). Run with {@code ./mvnw -q -pl function/iceberg
 * -am -DskipTests -Piceberg-bench test -Dbench.rounds=5}; local figures, not AWS's: a real
 * catalog's round trip is slower, which lowers the commit rate.
 */
public final class IcebergBench {
  private static final long T0 = 1_764_590_400_000L;

  private IcebergBench() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 5);
    String sections = System.getProperty("bench.sections", "all");
    try (IcebergHarness h = new IcebergHarness(S3ProxyServer.inMemoryCounting())) {
      if (sections.equals("all") || sections.contains("telemetry")) {
        telemetry(h, Math.min(rounds, 8), Integer.getInteger("bench.memoryMb", 1024));
      }
      if (sections.equals("all") || sections.contains("small")) {
        smallBatchesAndCommitRate(h, rounds);
      }
      if (sections.contains("lambda")) {
        IcebergLambdaBench.run(
            System.out,
            h,
            java.util.Arrays.stream(System.getProperty("bench.lambdaMemory", "512,1024").split(","))
                .map(String::trim)
                .map(Integer::valueOf)
                .toList(),
            Integer.getInteger("bench.lambdaRounds", 9));
      }
    }
  }

  private static void smallBatchesAndCommitRate(IcebergHarness h, int rounds) throws Exception {
    {
      var fn = h.function(Map.of("COMPRESSION", "zstd"));
      fn.invoke(batch("bench", 0, 1000)); // creates the table, warms the JVM
      List<Long> ms = new ArrayList<>();
      List<Long> commit = new ArrayList<>();
      long s3 = 0;
      long catalog = 0;
      Map<String, Long> before = requests(h.s3.storeCalls());
      for (int r = 1; r <= rounds; r++) {
        long c0 = h.rest.requests();
        long s0 = total(h.s3.storeCalls());
        long t0 = System.nanoTime();
        var out = fn.invoke(batch("bench", r, 1000));
        ms.add((System.nanoTime() - t0) / 1_000_000);
        commit.add(number(out.printed(), "commitLatencyMs"));
        catalog += h.rest.requests() - c0;
        s3 += total(h.s3.storeCalls()) - s0;
      }
      Map<String, Long> after = requests(h.s3.storeCalls());
      after.replaceAll((k, v) -> (v - before.getOrDefault(k, 0L)) / rounds);
      System.out.printf(
          "iceberg 1,000 records (4 partitions, 1 hour), zstd, %d rounds: ms/batch median %d"
              + " (min %d, max %d); commit latency median %d ms; per batch %.1f S3 requests %s"
              + " (function and catalog together), %.1f catalog requests%n",
          rounds,
          median(ms),
          ms.stream().mapToLong(Long::longValue).min().orElse(0),
          ms.stream().mapToLong(Long::longValue).max().orElse(0),
          median(commit),
          (double) s3 / rounds,
          after,
          (double) catalog / rounds);

      for (int pollers : new int[] {1, 2, 4}) {
        String table = "rate" + pollers;
        h.function(Map.of()).invoke(single(table, 0, 10, 0));
        int batches = Math.max(2, rounds * 2);
        ExecutorService pool = Executors.newFixedThreadPool(pollers);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<long[]>> results = new ArrayList<>();
        for (int p = 0; p < pollers; p++) {
          int partition = p;
          var f = h.function(Map.of());
          results.add(
              pool.submit(
                  () -> {
                    go.await();
                    long retries = 0;
                    for (int b = 0; b < batches; b++) {
                      var out = f.invoke(single(table, partition, 100, 10 + b * 100L));
                      retries += number(out.printed(), "commitRetries");
                    }
                    return new long[] {retries};
                  }));
        }
        long t0 = System.nanoTime();
        go.countDown();
        long retries = 0;
        for (Future<long[]> r : results) {
          retries += r.get()[0];
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        int commits = pollers * batches;
        System.out.printf(
            "iceberg commit rate, one table, %d poller(s) x %d batches of 100: %.1f commits/s,"
                + " %.2f retries per commit%n",
            pollers, batches, commits / seconds, (double) retries / commits);
      }

      long t0 = System.nanoTime();
      var m = fn.maintain();
      System.out.printf(
          "iceberg maintain (every table above): %d ms: %s%n",
          (System.nanoTime() - t0) / 1_000_000, m.response());
    }
  }

  // Prices beyond the file formats' (bench.Cost): us-east-1 list prices. S3 GET from the 2025 list
  // like Cost's; Glue Data Catalog requests as the issue states them ($1 per million after the
  // first million a month, left out here); S3 Tables from aws.amazon.com/s3/pricing (S3 Tables
  // section and its worked example, US West (Oregon); not re-checked from this machine).
  static final double S3_GET = 0.0004 / 1_000;
  static final double GLUE_PER_REQUEST = 1.0 / 1_000_000;
  static final double S3_TABLES_PUT = 0.005 / 1_000;
  static final double S3_TABLES_GET = 0.0004 / 1_000;
  static final double S3_TABLES_COMPACTION_OBJECT = 0.002 / 1_000;
  static final double S3_TABLES_COMPACTION_GB = 0.005;
  static final double S3_TABLES_MONITORING_OBJECT_MONTH = 0.025 / 1_000;

  /**
   * The file-format benchmark's batch (TelemetryBatch: 10,000 records, about 3.2 MB of payload, 4
   * partitions, one hour) as ESM events to the iceberg function, each round at new offsets so none
   * is skipped as already committed; then one maintenance run over the small files. Prints ms per
   * batch, commit latency, S3 and catalog requests per batch, and the cost per TB the way
   * docs/performance.md builds it for the file formats.
   */
  private static void telemetry(IcebergHarness h, int rounds, int memoryMb) throws Exception {
    TelemetryBatch batch = TelemetryBatch.generate();
    String event = new String(batch.event, StandardCharsets.UTF_8);
    var fn = h.function(Map.of("COMPRESSION", "zstd", "ICEBERG_TABLE", "telemetry"));
    fn.invoke(roundOf(event, 0)); // creates the table, warms the JVM
    List<Long> ms = new ArrayList<>();
    List<Long> cpuMs = new ArrayList<>();
    List<Long> commit = new ArrayList<>();
    long parquetBytes = 0;
    long dataFiles = 0;
    Map<String, Long> s3Before = requests(h.s3.storeCalls());
    Map<String, Long> catalogBefore = h.rest.requestsByMethod();
    for (int r = 1; r <= rounds; r++) {
      InputStream in = roundOf(event, r);
      long c0 = processCpuNanos();
      long t0 = System.nanoTime();
      var out = fn.invoke(in);
      ms.add((System.nanoTime() - t0) / 1_000_000);
      cpuMs.add((processCpuNanos() - c0) / 1_000_000);
      if (number(out.printed(), "recordsWritten") != TelemetryBatch.RECORDS) {
        throw new IllegalStateException("round " + r + " did not write every record: " + out);
      }
      commit.add(number(out.printed(), "commitLatencyMs"));
      parquetBytes += number(out.printed(), "bytesWritten");
      dataFiles += number(out.printed(), "dataFiles");
    }
    Map<String, Double> s3 = perBatch(s3Before, requests(h.s3.storeCalls()), rounds);
    Map<String, Double> catalog = perBatch(catalogBefore, h.rest.requestsByMethod(), rounds);
    double catalogTotal = catalog.values().stream().mapToDouble(Double::doubleValue).sum();
    System.out.printf(
        Locale.ROOT,
        "iceberg, the file-format benchmark's batch (%,d records, %.2f MB payload, 4 partitions,"
            + " 1 hour), zstd, %d rounds: ms/batch median %d (min %d, max %d); commit latency"
            + " median %d ms; process CPU per batch median %d ms (the function, S3Proxy and the"
            + " catalog together); per batch: S3 requests %s, catalog requests %s (%.1f), %.1f data"
            + " files, %.0f KB of Parquet%n",
        TelemetryBatch.RECORDS,
        batch.payloadBytes / 1e6,
        rounds,
        median(ms),
        ms.stream().mapToLong(Long::longValue).min().orElse(0),
        ms.stream().mapToLong(Long::longValue).max().orElse(0),
        median(commit),
        median(cpuMs),
        s3,
        catalog,
        catalogTotal,
        (double) dataFiles / rounds,
        parquetBytes / 1024.0 / rounds);

    Map<String, Long> s3BeforeMaintain = requests(h.s3.storeCalls());
    long m0 = System.nanoTime();
    var maintained = fn.maintain();
    long maintainMs = (System.nanoTime() - m0) / 1_000_000;
    long rewritten = number(maintained.response(), "filesRewritten");
    Map<String, Double> s3Maintain =
        perBatch(s3BeforeMaintain, requests(h.s3.storeCalls()), Math.max(1, rewritten));
    System.out.printf(
        Locale.ROOT,
        "iceberg maintain over those %d small files: %d ms, S3 requests per file rewritten %s: %s%n",
        rewritten,
        maintainMs,
        s3Maintain,
        maintained.response());

    cost(
        batch,
        memoryMb,
        median(ms),
        median(cpuMs),
        s3,
        catalog,
        (double) dataFiles / rounds,
        (double) parquetBytes / rounds,
        rewritten > 0 ? (double) maintainMs / rewritten : 0,
        s3Maintain);
  }

  private static void cost(
      TelemetryBatch batch,
      int memoryMb,
      double msPerBatch,
      double cpuMsPerBatch,
      Map<String, Double> s3,
      Map<String, Double> catalog,
      double dataFilesPerBatch,
      double parquetBytesPerBatch,
      double maintainMsPerFile,
      Map<String, Double> s3PerFileMaintained) {
    double batches = Cost.TB / batch.payloadBytes;
    double cpuScale = Math.max(1.0, Cost.FULL_VCPU_MB / memoryMb);
    double gbSeconds = batches * msPerBatch * cpuScale / 1000 * memoryMb / 1024.0;
    double lambdaRequests = batches * Cost.LAMBDA_PER_REQUEST;
    double s3Puts = batches * (s3.get("PUT") + s3.get("LIST")) * Cost.S3_PUT;
    double s3Gets = batches * (s3.get("GET") + s3.get("HEAD")) * S3_GET;
    double catalogRequests = catalog.values().stream().mapToDouble(Double::doubleValue).sum();
    double glue = batches * catalogRequests * GLUE_PER_REQUEST;
    double tablesPosts = catalog.getOrDefault("POST", 0.0) + catalog.getOrDefault("PUT", 0.0);
    double tablesCatalog =
        batches * (tablesPosts * S3_TABLES_PUT + (catalogRequests - tablesPosts) * S3_TABLES_GET);
    double dataFiles = batches * dataFilesPerBatch;
    double parquetGb = batches * parquetBytesPerBatch / 1e9;
    double tablesCompaction =
        dataFiles * S3_TABLES_COMPACTION_OBJECT + parquetGb * S3_TABLES_COMPACTION_GB;
    double maintainGbSeconds = dataFiles * maintainMsPerFile * cpuScale / 1000 * memoryMb / 1024.0;
    double maintainS3 =
        dataFiles
            * ((s3PerFileMaintained.get("PUT") + s3PerFileMaintained.get("LIST")) * Cost.S3_PUT
                + (s3PerFileMaintained.get("GET") + s3PerFileMaintained.get("HEAD")) * S3_GET);
    System.out.println();
    System.out.println("## Cost per TB archived, iceberg (estimate)");
    System.out.printf(
        Locale.ROOT,
        "%,.0f batches of %,d records per TB of payload; Lambda at %d MB (measured %.0f ms x %.2f"
            + " = %.0f ms per batch, %,.0f GB-s per TB); %,.0f data files and %.0f GB of Parquet"
            + " per TB%n%n",
        batches,
        TelemetryBatch.RECORDS,
        memoryMb,
        msPerBatch,
        cpuScale,
        msPerBatch * cpuScale,
        gbSeconds,
        dataFiles,
        parquetGb);
    System.out.println("| part | Glue catalog, x86 | Glue catalog, arm64 | S3 Tables, x86 |");
    System.out.println("|---|--:|--:|--:|");
    row(
        "Lambda duration, batches",
        gbSeconds * Cost.LAMBDA_X86_GB_S,
        gbSeconds * Cost.LAMBDA_ARM_GB_S,
        gbSeconds * Cost.LAMBDA_X86_GB_S);
    row("Lambda requests", lambdaRequests, lambdaRequests, lambdaRequests);
    row("S3 PUT/LIST (data, manifests, metadata)", s3Puts, s3Puts, s3Puts);
    row("S3 GET/HEAD", s3Gets, s3Gets, s3Gets);
    row(
        "catalog requests (Glue per request; S3 Tables POST as PUT, others as GET)",
        glue,
        glue,
        tablesCatalog);
    row(
        "compaction: {\"action\":\"maintain\"} in Lambda, S3 Tables' own",
        maintainGbSeconds * Cost.LAMBDA_X86_GB_S + maintainS3,
        maintainGbSeconds * Cost.LAMBDA_ARM_GB_S + maintainS3,
        tablesCompaction);
    double base = lambdaRequests + s3Puts + s3Gets;
    row(
        "total",
        gbSeconds * Cost.LAMBDA_X86_GB_S
            + base
            + glue
            + maintainGbSeconds * Cost.LAMBDA_X86_GB_S
            + maintainS3,
        gbSeconds * Cost.LAMBDA_ARM_GB_S
            + base
            + glue
            + maintainGbSeconds * Cost.LAMBDA_ARM_GB_S
            + maintainS3,
        gbSeconds * Cost.LAMBDA_X86_GB_S + base + tablesCatalog + tablesCompaction);
    double cpuGbSeconds = batches * cpuMsPerBatch * cpuScale / 1000 * memoryMb / 1024.0;
    System.out.printf(
        Locale.ROOT,
        "from process CPU instead of wall time (%.0f ms x %.2f per batch): Lambda duration $%.2f"
            + " x86, $%.2f arm64 per TB instead of $%.2f and $%.2f%n",
        cpuMsPerBatch,
        cpuScale,
        cpuGbSeconds * Cost.LAMBDA_X86_GB_S,
        cpuGbSeconds * Cost.LAMBDA_ARM_GB_S,
        gbSeconds * Cost.LAMBDA_X86_GB_S,
        gbSeconds * Cost.LAMBDA_ARM_GB_S);
    System.out.printf(
        Locale.ROOT,
        "S3 Tables object monitoring, per month once compacted into 512 MB files: $%.4f per TB of"
            + " Parquet (storage itself left out, as for the file formats)%n",
        Math.ceil(1e12 / (512 * 1024 * 1024.0)) * S3_TABLES_MONITORING_OBJECT_MONTH);
  }

  private static void row(String part, double glueX86, double glueArm, double tablesX86) {
    System.out.printf(
        Locale.ROOT, "| %s | %.2f | %.2f | %.2f |%n", part, glueX86, glueArm, tablesX86);
  }

  /** The telemetry event with its offsets moved to 1,000,000 x (round + 1) + i. */
  private static InputStream roundOf(String event, int round) {
    return new ByteArrayInputStream(
        event
            .replace("\"offset\":1", "\"offset\":" + (round + 1))
            .getBytes(StandardCharsets.UTF_8));
  }

  /**
   * CPU time of this whole JVM: wall time on a machine shared with other builds overstates the
   * function's own work, CPU time does not (it includes the in-process servers, so it errs high).
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Requests per round (or per file) between two counts, by kind. */
  private static Map<String, Double> perBatch(
      Map<String, Long> before, Map<String, Long> after, long rounds) {
    Map<String, Double> out = new java.util.TreeMap<>();
    after.forEach((k, v) -> out.put(k, (v - before.getOrDefault(k, 0L)) / (double) rounds));
    return out;
  }

  /** {@code size} records over 4 partitions within one hour, offsets from {@code round * size}. */
  static EventBuilder batch(String topic, int round, int size) {
    EventBuilder e = new EventBuilder();
    for (int i = 0; i < size; i++) {
      int partition = i % 4;
      long offset = (long) round * size / 4 + i / 4;
      e.add(topic, partition, offset, T0 + i, "k" + i, IcebergTableIT.value(partition, offset));
    }
    return e;
  }

  static EventBuilder single(String topic, int partition, int size, long from) {
    EventBuilder e = new EventBuilder();
    for (long o = from; o < from + size; o++) {
      e.add(topic, partition, o, T0 + o, "k" + o, IcebergTableIT.value(partition, o));
    }
    return e;
  }

  /** S3Proxy's store calls that are S3 requests: PUT, GET, HEAD, LIST, DELETE. */
  private static final Map<String, String> REQUESTS =
      Map.of(
          "putBlob", "PUT",
          "getBlob", "GET",
          "blobMetadata", "HEAD",
          "list", "LIST",
          "removeBlob", "DELETE");

  private static Map<String, Long> requests(Map<String, Long> calls) {
    Map<String, Long> out = new java.util.TreeMap<>();
    REQUESTS.forEach((method, verb) -> out.put(verb, calls.getOrDefault(method, 0L)));
    return out;
  }

  private static long total(Map<String, Long> calls) {
    return requests(calls).values().stream().mapToLong(Long::longValue).sum();
  }

  private static long number(String printed, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(\\d+)").matcher(printed);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }
}
