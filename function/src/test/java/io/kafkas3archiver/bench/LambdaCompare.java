package io.kafkas3archiver.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 29's before/after table from one run: the {@code lambda} and {@code lambda-memory} rows of
 * two builds side by side ({@code -Dbench.beforeJar}: an earlier build's shaded jar), each build in
 * its own JVM forked with Lambda's flags, invoked in rotating order with the PutObject-only
 * function, so drift on a shared machine hits both builds alike.
 */
final class LambdaCompare {
  private static final double MB = 1_000_000.0;
  private static final int WARMUPS = 5;

  private LambdaCompare() {}

  private static Map<String, String> env(Combo combo, String build) {
    Map<String, String> env = new java.util.HashMap<>(LambdaBench.env(combo));
    // The two builds write the same event: each into a prefix of its own.
    env.put("KEY_PREFIX", "compare-" + build);
    return env;
  }

  static void run(
      PrintStream out,
      Bench.Forks before,
      Path beforeJar,
      Bench.Forks after,
      Path event,
      TelemetryBatch batch,
      List<Combo> combos,
      List<Integer> memories,
      int rounds)
      throws IOException, InterruptedException {
    out.println();
    out.println(
        "## Before and after, as Lambda runs: two builds side by side, each in its own forked JVM"
            + " with Lambda's flags, against S3Proxy on 127.0.0.1, beside a PutObject-only function");
    out.printf(
        Locale.ROOT,
        "before = %s; after = this build; end to end: the two builds and the PutObject-only"
            + " function invoked in rotating order, %d rounds after %d warm-ups each; in memory:"
            + " the handler over a store that discards, before and after alternating; ms and"
            + " allocation are medians, ÷ the median of the per-round ratios; alloc = bytes the"
            + " invoking thread allocated, ÷ payload over the %.2f MB of decoded values%n%n",
        beforeJar.getFileName(),
        rounds,
        WARMUPS,
        batch.payloadBytes / MB);
    out.println(
        "| memory MB | format | compression | before ms | after ms | after ÷ before | PutObject-only"
            + " ms | before ÷ PutObject-only | after ÷ PutObject-only | before alloc MB | after"
            + " alloc MB | after alloc ÷ payload | in memory: before ms | after ms | after ÷ before |");
    out.println("|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for (int memory : memories) {
      List<String> flags = LambdaBench.flags(memory);
      try (WarmInstance putOnly = after.start("putonly", event, Map.of(), flags)) {
        for (int i = 0; i < WARMUPS; i++) {
          putOnly.call("run");
        }
        for (Combo combo : combos) {
          List<List<WarmInstance.Call>> e2e;
          try (WarmInstance b = before.start("archiver", event, env(combo, "before"), flags);
              WarmInstance a = after.start("archiver", event, env(combo, "after"), flags)) {
            warm(b, a);
            e2e = rotate(List.of(b, a, putOnly), rounds);
          }
          List<List<WarmInstance.Call>> memoryCalls;
          try (WarmInstance b = before.start("memory", event, env(combo, "before"), flags);
              WarmInstance a = after.start("memory", event, env(combo, "after"), flags)) {
            warm(b, a);
            memoryCalls = rotate(List.of(b, a), rounds);
          }
          out.printf(
              Locale.ROOT,
              "| %d | %s | %s | %.1f | %.1f | %.2f× | %.1f | %.2f× | %.2f× | %.1f | %.1f | %.1f× |"
                  + " %.1f | %.1f | %.2f× |%n",
              memory,
              combo.format().configName(),
              combo.compression().configName(),
              medianMs(e2e.get(0)),
              medianMs(e2e.get(1)),
              medianRatio(e2e.get(1), e2e.get(0)),
              medianMs(e2e.get(2)),
              medianRatio(e2e.get(0), e2e.get(2)),
              medianRatio(e2e.get(1), e2e.get(2)),
              medianAllocMb(e2e.get(0)),
              medianAllocMb(e2e.get(1)),
              medianAllocMb(e2e.get(1)) * MB / batch.payloadBytes,
              medianMs(memoryCalls.get(0)),
              medianMs(memoryCalls.get(1)),
              medianRatio(memoryCalls.get(1), memoryCalls.get(0)));
        }
      }
    }
  }

  private static void warm(WarmInstance... forks) throws IOException {
    for (int i = 0; i < WARMUPS; i++) {
      for (WarmInstance f : forks) {
        f.call("run");
      }
    }
  }

  /** Each round calls every fork once, starting one further along each round. */
  private static List<List<WarmInstance.Call>> rotate(List<WarmInstance> forks, int rounds)
      throws IOException {
    List<List<WarmInstance.Call>> calls = new ArrayList<>();
    for (int i = 0; i < forks.size(); i++) {
      calls.add(new ArrayList<>());
    }
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < forks.size(); i++) {
        int which = (r + i) % forks.size();
        calls.get(which).add(forks.get(which).call("run"));
      }
    }
    return calls;
  }

  private static double medianMs(List<WarmInstance.Call> calls) {
    return Stats.median(calls.stream().mapToDouble(WarmInstance.Call::ms).toArray());
  }

  private static double medianAllocMb(List<WarmInstance.Call> calls) {
    return Stats.median(calls.stream().mapToDouble(c -> c.allocatedBytes() / MB).toArray());
  }

  /** Round by round, so each ratio compares calls made moments apart. */
  private static double medianRatio(List<WarmInstance.Call> top, List<WarmInstance.Call> bottom) {
    double[] ratios = new double[top.size()];
    for (int r = 0; r < ratios.length; r++) {
      ratios[r] = top.get(r).ms() / bottom.get(r).ms();
    }
    return Stats.median(ratios);
  }
}
