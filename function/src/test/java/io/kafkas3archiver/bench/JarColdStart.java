package io.kafkas3archiver.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 19's "Jar and cold start": what Iceberg on the classpath costs a plain-format function. The
 * same ndjson function from the plain jar and from the iceberg jar (the same code plus Iceberg, its
 * Parquet writer, Hadoop bits and the Glue/KMS clients), in fresh JVMs alternated round by round,
 * each building the handler as the Lambda runtime does and archiving one batch to S3Proxy. Medians
 * of wall (process start to the batch uploaded), init, first invoke and the fork's process CPU
 * time; the verdict applies the 5% rule to both wall and CPU (over it only when both are).
 */
final class JarColdStart {
  private JarColdStart() {}

  private record Variant(String jarName, Bench.Forks forks, Path event, String eventName) {}

  static void run(
      PrintStream out,
      Bench.Forks plain,
      Path plainJar,
      Bench.Forks iceberg,
      Path icebergJar,
      Path small,
      Path big,
      int rounds,
      List<String> jvmFlags)
      throws IOException, InterruptedException {
    out.println();
    out.printf(
        Locale.ROOT,
        "## Cold start, plain jar vs iceberg jar: the same ndjson + gzip function, fresh JVMs"
            + " alternated, %d rounds, %s%n",
        rounds,
        String.join(" ", jvmFlags));
    out.printf(
        Locale.ROOT,
        "plain jar %s: %.1f MB; iceberg jar %s: %.1f MB%n%n",
        plainJar.getFileName(),
        Files.size(plainJar) / 1e6,
        icebergJar.getFileName(),
        Files.size(icebergJar) / 1e6);
    List<Variant> variants =
        List.of(
            new Variant("plain", plain, small, "sample (5 records)"),
            new Variant("iceberg", iceberg, small, "sample (5 records)"),
            new Variant("plain", plain, big, "6 MB (10,000 records)"),
            new Variant("iceberg", iceberg, big, "6 MB (10,000 records)"));
    Map<String, String> env = Map.of("OUTPUT_FORMAT", "ndjson", "COMPRESSION", "gzip");
    double[][][] samples =
        Bench.rotated(
            variants.size(),
            rounds,
            v -> {
              Variant variant = variants.get(v);
              double[] s = variant.forks().run("eager", "url", variant.event(), env, jvmFlags, 180);
              if (s == null) {
                throw new IllegalStateException(
                    "cold-start fork failed: "
                        + variant.jarName()
                        + "\n"
                        + variant.forks().lastStderr());
              }
              return s;
            });
    out.println(
        "| event | jar | wall ms (median) | init ms | first invoke ms | process CPU ms |"
            + " wall, every round | iceberg ÷ plain, wall | iceberg ÷ plain, CPU |");
    out.println("|---|---|--:|--:|--:|--:|---|--:|--:|");
    for (int v = 0; v < variants.size(); v++) {
      Variant variant = variants.get(v);
      double wall = median(samples[v], 0);
      double plainWall = median(samples[v - v % 2], 0);
      double cpu = median(samples[v], 4);
      double plainCpu = median(samples[v - v % 2], 4);
      out.printf(
          Locale.ROOT,
          "| %s | %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %s |%n",
          variant.eventName(),
          variant.jarName(),
          wall,
          median(samples[v], 1),
          median(samples[v], 3),
          cpu,
          Arrays.stream(samples[v]).map(s -> String.format(Locale.ROOT, "%.0f", s[0])).toList(),
          v % 2 == 0 ? "–" : String.format(Locale.ROOT, "%.3f", wall / plainWall),
          v % 2 == 0 ? "–" : String.format(Locale.ROOT, "%.3f", cpu / plainCpu));
    }
    for (int v = 1; v < variants.size(); v += 2) {
      double ratio = median(samples[v], 0) / median(samples[v - 1], 0);
      double cpuRatio = median(samples[v], 4) / median(samples[v - 1], 4);
      out.printf(
          Locale.ROOT,
          "%s: iceberg jar %+.1f%% wall, %+.1f%% process CPU against the plain jar -> %s%n",
          variants.get(v).eventName(),
          (ratio - 1) * 100,
          (cpuRatio - 1) * 100,
          Math.min(ratio, cpuRatio) > 1.05
              ? "over the 5% rule: ship Iceberg as a second artifact"
              : "within the 5% rule");
    }
  }

  private static double median(double[][] rows, int column) {
    List<Double> values = new ArrayList<>();
    for (double[] row : rows) {
      values.add(row[column]);
    }
    values.sort(null);
    int n = values.size();
    return n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2;
  }
}
