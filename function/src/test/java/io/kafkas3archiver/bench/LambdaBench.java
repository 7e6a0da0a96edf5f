package io.kafkas3archiver.bench;

import io.kafkas3archiver.encode.Format;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 29's "measure as Lambda runs": the warm end-to-end and in-memory figures again, but each
 * function in its own JVM forked with Lambda's flags (C1 only, SerialGC, the heap the Java runtime
 * gives a function of that memory size), so the rows show what users pay for rather than what C2 in
 * the benchmark's own JVM makes of the same code.
 */
public final class LambdaBench {
  private static final double MB = 1_000_000.0;
  private static final int WARMUPS = 5;

  private LambdaBench() {}

  /**
   * Lambda's Java runtime starts the JVM with {@code -XX:MaxHeapSize} at 85% of the function's
   * memory (222823k at 256 MB, 445645k at 512 MB); SerialGC and C1 are its defaults since java17.
   */
  public static List<String> flags(int memoryMb) {
    return List.of(
        "-XX:+TieredCompilation",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-Xmx" + Math.round(memoryMb * 1024 * 0.85) + "k");
  }

  /** Issue 29's targets for the warm batch ÷ the PutObject-only function; 0 where none is set. */
  private static double ratioTarget(Combo combo) {
    return switch (combo.name()) {
      case "ndjson/none" -> 1.2;
      case "ndjson/gzip" -> 1.15;
      case "parquet/zstd" -> 1.6;
      default -> 0;
    };
  }

  /** Issue 29's allocation targets, in multiples of the payload. */
  private static double allocTarget(Combo combo) {
    return combo.format() == Format.JSON || combo.format() == Format.NDJSON ? 3 : 8;
  }

  static Map<String, String> env(Combo combo) {
    return Map.of(
        "OUTPUT_FORMAT", combo.format().configName(),
        "COMPRESSION", combo.compression().configName());
  }

  static void endToEnd(
      PrintStream out,
      Bench.Forks forks,
      Path event,
      TelemetryBatch batch,
      List<Combo> combos,
      List<Integer> memories,
      int rounds)
      throws IOException, InterruptedException {
    out.println();
    out.println(
        "## End to end, warm, as Lambda runs: each function in its own forked JVM with Lambda's"
            + " flags, against S3Proxy on 127.0.0.1, beside a PutObject-only function");
    out.printf(
        Locale.ROOT,
        "flags: -XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx = 85%% of the"
            + " memory size; PutObject-only = the cold-start section's minimal function (same SDK,"
            + " url-connection client, settings), PUTting the %.2f MB event as one object, in its"
            + " own JVM of the same size%n",
        batch.event.length / MB);
    out.printf(
        Locale.ROOT,
        "each row's JVM and the PutObject-only JVM are invoked alternately (order swapped every"
            + " round), %d rounds after %d warm-ups each; ms and allocation are medians, GC ms a"
            + " mean, ÷ is the median of the per-round ratios; alloc = bytes the invoking thread allocated"
            + " (ThreadMXBean), ÷ payload = over the %.2f MB of decoded values; the CPU share of a"
            + " real function of that size is not emulated%n%n",
        rounds,
        WARMUPS,
        batch.payloadBytes / MB);
    out.println(
        "| memory MB | format | compression | ms | PutObject-only ms | ÷ PutObject-only | target"
            + " | met | alloc MB/batch | alloc ÷ payload | alloc target | met | GC ms/batch |");
    out.println("|--:|---|---|--:|--:|--:|--:|:-:|--:|--:|--:|:-:|--:|");
    for (int memory : memories) {
      List<String> flags = flags(memory);
      try (WarmInstance putOnly = forks.start("putonly", event, Map.of(), flags)) {
        List<WarmInstance.Call> baseline = new ArrayList<>();
        for (int i = 0; i < WARMUPS; i++) {
          putOnly.call("run");
        }
        for (Combo combo : combos) {
          try (WarmInstance archiver = forks.start("archiver", event, env(combo), flags)) {
            for (int i = 0; i < WARMUPS; i++) {
              archiver.call("run");
            }
            Pairs pairs = Pairs.alternate(archiver, "run", putOnly, "run", rounds);
            baseline.addAll(pairs.second());
            printRow(out, memory, combo, pairs, batch);
          }
        }
        Pairs.Summary b = Pairs.summary(baseline);
        out.printf(
            Locale.ROOT,
            "| %d | PutObject-only | – | %.1f | %.1f | 1.00× | | | %.1f | %.1f× | | | %.1f |%n",
            memory,
            b.ms(),
            b.ms(),
            b.allocMb(),
            b.allocMb() * MB / batch.payloadBytes,
            b.gcMs());
      }
    }
  }

  private static void printRow(
      PrintStream out, int memory, Combo combo, Pairs pairs, TelemetryBatch batch) {
    Pairs.Summary a = Pairs.summary(pairs.first());
    Pairs.Summary p = Pairs.summary(pairs.second());
    double ratio = pairs.medianRatio();
    double target = ratioTarget(combo);
    double perPayload = a.allocMb() * MB / batch.payloadBytes;
    out.printf(
        Locale.ROOT,
        "| %d | %s | %s | %.1f | %.1f | %.2f× | %s | %s | %.1f | %.1f× | ≤ %.0f× | %s | %.1f |%n",
        memory,
        combo.format().configName(),
        combo.compression().configName(),
        a.ms(),
        p.ms(),
        ratio,
        target == 0 ? "–" : String.format(Locale.ROOT, "≤ %.2f×", target),
        target == 0 ? "" : ratio <= target ? "yes" : "**no**",
        a.allocMb(),
        perPayload,
        allocTarget(combo),
        perPayload <= allocTarget(combo) ? "yes" : "**no**",
        a.gcMs());
  }

  static void inMemory(
      PrintStream out,
      Bench.Forks forks,
      Path event,
      TelemetryBatch batch,
      List<Combo> combos,
      List<Integer> memories,
      int rounds)
      throws IOException, InterruptedException {
    out.println();
    out.println(
        "## In-memory throughput, as Lambda runs: handler (store discards) vs floor, in one forked"
            + " JVM per row with Lambda's flags");
    out.printf(
        Locale.ROOT,
        "the same handler and floor as the in-memory section, %d rounds after %d warm-ups, order"
            + " alternating; ms and allocation are medians, GC ms a mean, ratio is the median of the per-round"
            + " ratios%n%n",
        rounds,
        WARMUPS);
    out.println(
        "| memory MB | format | compression | handler ms | floor ms | handler − floor ms | ratio |"
            + " handler alloc MB/batch | alloc ÷ payload | GC ms/batch |");
    out.println("|--:|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for (int memory : memories) {
      for (Combo combo : combos) {
        try (WarmInstance fork = forks.start("memory", event, env(combo), flags(memory))) {
          for (int i = 0; i < WARMUPS; i++) {
            fork.call("run");
            fork.call("floor");
          }
          Pairs pairs = Pairs.alternate(fork, "run", fork, "floor", rounds);
          Pairs.Summary h = Pairs.summary(pairs.first());
          Pairs.Summary f = Pairs.summary(pairs.second());
          double[] overhead = new double[rounds];
          for (int r = 0; r < rounds; r++) {
            overhead[r] = pairs.first().get(r).ms() - pairs.second().get(r).ms();
          }
          out.printf(
              Locale.ROOT,
              "| %d | %s | %s | %.1f | %.1f | %.1f | %.2f× | %.1f | %.1f× | %.1f |%n",
              memory,
              combo.format().configName(),
              combo.compression().configName(),
              h.ms(),
              f.ms(),
              Stats.median(overhead),
              pairs.medianRatio(),
              h.allocMb(),
              h.allocMb() * MB / batch.payloadBytes,
              h.gcMs());
        }
      }
    }
  }

  /** Two functions measured in alternating order, one pair per round. */
  private record Pairs(List<WarmInstance.Call> first, List<WarmInstance.Call> second) {
    record Summary(double ms, double allocMb, double gcMs) {}

    static Pairs alternate(
        WarmInstance a, String aCommand, WarmInstance b, String bCommand, int rounds)
        throws IOException {
      List<WarmInstance.Call> first = new ArrayList<>();
      List<WarmInstance.Call> second = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
          first.add(a.call(aCommand));
          second.add(b.call(bCommand));
        } else {
          second.add(b.call(bCommand));
          first.add(a.call(aCommand));
        }
      }
      return new Pairs(first, second);
    }

    /** Each round's two calls ran back to back, so their ratio cancels most of the drift. */
    double medianRatio() {
      double[] ratios = new double[first.size()];
      for (int r = 0; r < ratios.length; r++) {
        ratios[r] = first.get(r).ms() / second.get(r).ms();
      }
      return Stats.median(ratios);
    }

    static Summary summary(List<WarmInstance.Call> calls) {
      double[] ms = new double[calls.size()];
      double[] alloc = new double[calls.size()];
      double[] gc = new double[calls.size()];
      for (int i = 0; i < ms.length; i++) {
        ms[i] = calls.get(i).ms();
        alloc[i] = calls.get(i).allocatedBytes() / MB;
        gc[i] = calls.get(i).gcMs();
      }
      // GC is sparse (a young collection every few batches), so its median is mostly 0: the mean
      // is the cost a batch carries.
      return new Summary(
          Stats.median(ms), Stats.median(alloc), java.util.Arrays.stream(gc).average().orElse(0));
    }
  }
}
