package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.util.ArrayList;
import java.util.List;
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
 * commit rate one table sustains with 1, 2 and 4 concurrent pollers, and one maintenance run. Run
 * with {@code ./mvnw -q -pl function/iceberg exec:java@iceberg-bench -Dbench.rounds=5}; local
 * figures, not AWS's: a real catalog's round trip is slower, which lowers the commit rate.
 */
public final class IcebergBench {
  private static final long T0 = 1_764_590_400_000L;

  private IcebergBench() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 5);
    try (IcebergHarness h = new IcebergHarness(S3ProxyServer.inMemoryCounting())) {
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
