package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.bench.LambdaBench;
import io.kafkas3archiver.bench.TelemetryBatch;
import io.kafkas3archiver.bench.WarmInstance;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 29's Iceberg target, measured as Lambda runs: the file-format benchmark's batch (10,000
 * records, 4 partitions, zstd) archived by the iceberg function and by the parquet-files function,
 * each in its own JVM forked with Lambda's flags (C1 only, SerialGC, 85% of the memory size as
 * heap), invoked alternately in one run. The ratio iceberg ÷ parquet files is the median of the
 * per-round ratios, so the machine's drift between rounds cancels.
 */
final class IcebergLambdaBench {
  private static final double MB = 1_000_000.0;
  private static final int WARMUPS = 5;
  private static final double TARGET = 1.3;

  private IcebergLambdaBench() {}

  /** One invocation as its fork measured it. */
  record Call(double ms, double cpuMs, long allocatedBytes, long gcMs, long commitMs) {}

  static void run(PrintStream out, IcebergHarness h, List<Integer> memories, int rounds)
      throws Exception {
    TelemetryBatch batch = TelemetryBatch.generate();
    Path work = Files.createTempDirectory("iceberg-lambda-bench");
    Path event = work.resolve("event.json");
    Files.write(event, batch.event);
    out.println();
    out.println(
        "## Iceberg vs Parquet files, warm, as Lambda runs: each function in its own JVM forked"
            + " with Lambda's flags, against S3Proxy and the REST catalog on 127.0.0.1");
    out.printf(
        Locale.ROOT,
        "batch: %,d records, %.2f MB payload, 4 partitions, one hour, zstd; flags"
            + " -XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:+UseSerialGC, -Xmx 85%% of the"
            + " memory size; each round both functions get the same records at new offsets (a"
            + " first delivery: iceberg commits, parquet files PUT conditionally), invoked"
            + " alternately (order swapped every round), %d rounds after %d warm-ups each; ms, CPU"
            + " and allocation are medians, GC ms a mean, ÷ is the median of the per-round"
            + " ratios; CPU = the fork's process CPU (the function, its JIT and GC; S3Proxy and"
            + " the catalog run in the benchmark's JVM); alloc = all of the fork's threads; the"
            + " fork's classpath is the module's test classpath without logback (the shaded jar"
            + " ships no slf4j binding either)%n%n",
        TelemetryBatch.RECORDS,
        batch.payloadBytes / MB,
        rounds,
        WARMUPS);
    out.println(
        "| memory MB | iceberg ms | parquet files ms | iceberg ÷ parquet files | target | met"
            + " | iceberg CPU ms | parquet files CPU ms | CPU ÷ | iceberg alloc MB"
            + " | parquet files alloc MB | iceberg GC ms | parquet files GC ms | commit ms |"
            + " S3 requests per iceberg batch | catalog requests per iceberg batch |"
            + " first batch ms, iceberg / parquet files |");
    out.println("|--:|--:|--:|--:|--:|:-:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    // The file formats PUT with If-None-Match, which the counting S3Proxy answers 501: a plain one.
    try (S3ProxyServer files = S3ProxyServer.inMemory()) {
      files.createBucket(IcebergHarness.BUCKET);
      int table = 0;
      int round = 0;
      Map<Integer, String> s3ByVerb = new java.util.TreeMap<>();
      for (int memory : memories) {
        Map<String, String> icebergEnv =
            h.env(Map.of("COMPRESSION", "zstd", "ICEBERG_TABLE", "lambda" + memory));
        Map<String, String> filesEnv = filesEnv(files, "parquet-" + memory);
        try (Fork iceberg =
                Fork.start(
                    work,
                    "iceberg-" + memory + "-" + table,
                    event,
                    icebergEnv,
                    LambdaBench.flags(memory));
            Fork parquet =
                Fork.start(
                    work,
                    "parquet-" + memory + "-" + table,
                    event,
                    filesEnv,
                    LambdaBench.flags(memory))) {
          table++;
          Call firstIceberg = iceberg.call(round);
          Call firstParquet = parquet.call(round++);
          for (int i = 1; i < WARMUPS; i++) {
            iceberg.call(round);
            parquet.call(round++);
          }
          iceberg.profile("iceberg-" + memory);
          parquet.profile("parquet-" + memory);
          List<Call> ice = new ArrayList<>();
          List<Call> par = new ArrayList<>();
          Map<String, Long> s3Before = h.s3.storeCalls();
          long catalogBefore = h.rest.requests();
          for (int r = 0; r < rounds; r++, round++) {
            if (r % 2 == 0) {
              ice.add(iceberg.call(round));
              par.add(parquet.call(round));
            } else {
              par.add(parquet.call(round));
              ice.add(iceberg.call(round));
            }
          }
          Map<String, Long> s3After = h.s3.storeCalls();
          double s3 = s3Requests(s3Before, s3After) / (double) rounds;
          s3ByVerb.put(memory, byVerb(s3Before, s3After, rounds));
          double catalog = (h.rest.requests() - catalogBefore) / (double) rounds;
          double[] ratios = new double[rounds];
          double[] cpuRatios = new double[rounds];
          for (int r = 0; r < rounds; r++) {
            ratios[r] = ice.get(r).ms() / par.get(r).ms();
            cpuRatios[r] = ice.get(r).cpuMs() / par.get(r).cpuMs();
          }
          double ratio = median(ratios);
          out.printf(
              Locale.ROOT,
              "| %d | %.1f | %.1f | %.2f× | ≤ %.1f× | %s | %.1f | %.1f | %.2f× | %.1f | %.1f | %.1f"
                  + " | %.1f | %.1f | %.1f | %.1f | %.0f / %.0f |%n",
              memory,
              median(ice, Call::ms),
              median(par, Call::ms),
              ratio,
              TARGET,
              ratio <= TARGET ? "yes" : "**no**",
              median(ice, Call::cpuMs),
              median(par, Call::cpuMs),
              median(cpuRatios),
              median(ice, c -> c.allocatedBytes() / MB),
              median(par, c -> c.allocatedBytes() / MB),
              ice.stream().mapToLong(Call::gcMs).average().orElse(0),
              par.stream().mapToLong(Call::gcMs).average().orElse(0),
              median(ice, c -> (double) c.commitMs()),
              s3,
              catalog,
              firstIceberg.ms(),
              firstParquet.ms());
          out.flush();
        }
      }
      s3ByVerb.forEach(
          (memory, verbs) ->
              out.printf(
                  "S3 requests per iceberg batch at %d MB, function and catalog together: %s%n",
                  memory, verbs));
    }
  }

  private static Map<String, String> filesEnv(S3ProxyServer s3, String prefix) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", IcebergHarness.BUCKET);
    env.put("KEY_PREFIX", prefix);
    env.put("AWS_REGION", S3ProxyServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
    env.put("OUTPUT_FORMAT", "parquet");
    env.put("COMPRESSION", "zstd");
    env.put("TITLE", "iceberg-bench");
    return env;
  }

  /** S3Proxy's store calls per round, named as the S3 requests behind them. */
  private static String byVerb(Map<String, Long> before, Map<String, Long> after, int rounds) {
    Map<String, String> verbs =
        Map.of(
            "putBlob", "PUT",
            "getBlob", "GET",
            "blobMetadata", "HEAD",
            "list", "LIST",
            "removeBlob", "DELETE");
    Map<String, String> out = new java.util.TreeMap<>();
    verbs.forEach(
        (call, verb) -> {
          long n = after.getOrDefault(call, 0L) - before.getOrDefault(call, 0L);
          if (n > 0) {
            out.put(verb, String.format(Locale.ROOT, "%.1f", n / (double) rounds));
          }
        });
    return out.toString();
  }

  private static long s3Requests(Map<String, Long> before, Map<String, Long> after) {
    long n = 0;
    for (String call : List.of("putBlob", "getBlob", "blobMetadata", "list", "removeBlob")) {
      n += after.getOrDefault(call, 0L) - before.getOrDefault(call, 0L);
    }
    return n;
  }

  private static double median(List<Call> calls, java.util.function.ToDoubleFunction<Call> f) {
    return median(calls.stream().mapToDouble(f).toArray());
  }

  private static double median(double[] samples) {
    double[] s = samples.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /** The parent's side of one forked {@link IcebergWarm}. */
  static final class Fork implements AutoCloseable {
    private final WarmInstance fork;

    private Fork(Process process, Path stderr) {
      this.fork = new WarmInstance(process, stderr);
    }

    static Fork start(
        Path work, String name, Path event, Map<String, String> env, List<String> flags)
        throws IOException {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(flags);
      cmd.addAll(profilerFlags());
      cmd.addAll(
          List.of(
              "-cp", classpath(), IcebergWarm.class.getName(), event.toAbsolutePath().toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd);
      Map<String, String> penv = pb.environment();
      String path = penv.get("PATH");
      penv.clear();
      penv.put("PATH", path == null ? "/usr/bin:/bin" : path);
      penv.put("HOME", work.toString());
      penv.put("AWS_EC2_METADATA_DISABLED", "true");
      penv.putAll(env);
      Path log = work.resolve(name + "-stderr.log");
      pb.redirectError(log.toFile());
      return new Fork(pb.start(), log);
    }

    /** Deep stacks for {@link #profile}: Iceberg's commit path runs more than 64 frames deep. */
    private static List<String> profilerFlags() {
      return System.getProperty("bench.jfr", "").isBlank()
          ? List.of()
          : List.of("-XX:FlightRecorderOptions=stackdepth=128");
    }

    /**
     * {@code -Dbench.jfr=<folder>}: from now on (after the warm-ups) the fork records a JFR profile
     * (settings=profile) into that folder, named by function and memory size, for {@code jfr print}
     * or Mission Control.
     */
    void profile(String name) throws IOException {
      String folder = System.getProperty("bench.jfr", "");
      if (folder.isBlank()) {
        return;
      }
      Path file = Files.createDirectories(Path.of(folder).toAbsolutePath()).resolve(name + ".jfr");
      fork.reply("profile " + file);
    }

    /**
     * The benchmark's own classpath (Maven's exec:java class loader, or java.class.path), without
     * logback: the shaded jar has no slf4j binding, so the libraries' logging costs nothing there.
     */
    private static String classpath() {
      List<String> entries = new ArrayList<>();
      ClassLoader loader = IcebergLambdaBench.class.getClassLoader();
      if (loader instanceof URLClassLoader urls && urls.getURLs().length > 0) {
        for (URL url : urls.getURLs()) {
          try {
            entries.add(Path.of(url.toURI()).toString());
          } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
          }
        }
      } else {
        entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
      }
      return String.join(
          File.pathSeparator,
          entries.stream()
              .filter(e -> !Path.of(e).getFileName().toString().startsWith("logback"))
              .toList());
    }

    Call call(int round) throws IOException {
      Map<String, String> f = new HashMap<>();
      for (String kv : fork.reply("run " + round).split(" ")) {
        f.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
      return new Call(
          Double.parseDouble(f.get("ms")),
          Double.parseDouble(f.get("cpu")),
          Long.parseLong(f.get("alloc")),
          Long.parseLong(f.get("gc")),
          Long.parseLong(f.get("commit")));
    }

    @Override
    public void close() throws IOException, InterruptedException {
      fork.close();
    }
  }
}
