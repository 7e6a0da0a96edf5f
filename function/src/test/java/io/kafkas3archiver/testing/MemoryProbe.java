package io.kafkas3archiver.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Runs the real handler on an event file against an S3 endpoint, once per format+codec variant, in
 * a JVM of its own (started by MemoryIT with a small -Xmx). Each variant gets a fresh handler (a
 * cold start), a full GC before it and the heap pools' peaks reset, so the peak it prints is its
 * own. One JVM for all variants: a JVM start and the class loading cost more than a variant.
 *
 * <p>Prints {@code start <variant>} before and {@code variant <variant> peakHeapMb <p> maxHeapMb
 * <m> response <json>} after each variant; an OutOfMemoryError ends the JVM
 * (-XX:+ExitOnOutOfMemoryError) after the {@code start} line of the variant that caused it.
 *
 * <p>Arguments: endpoint bucket eventFile variant... (a variant is {@code format+codec}; its keys
 * go under {@code mem-<variant>/}).
 */
public final class MemoryProbe {
  private MemoryProbe() {}

  public static void main(String[] args) {
    List<MemoryPoolMXBean> heap =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP)
            .toList();
    Path event = Path.of(args[2]);
    boolean allArchived = true;
    for (String variant : List.of(args).subList(3, args.length)) {
      String[] parts = variant.split("\\+");
      System.out.println("start " + variant);
      System.gc();
      heap.forEach(MemoryPoolMXBean::resetPeakUsage);
      String response = archive(args[0], args[1], variant, parts[0], parts[1], event);
      long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
      System.out.printf(
          Locale.ROOT,
          "variant %s peakHeapMb %.1f maxHeapMb %.1f response %s%n",
          variant,
          peak / 1048576.0,
          Runtime.getRuntime().maxMemory() / 1048576.0,
          response);
      allArchived &= response.equals("{\"batchItemFailures\":[]}");
    }
    System.exit(allArchived ? 0 : 2);
  }

  private static String archive(
      String endpoint, String bucket, String variant, String format, String codec, Path event) {
    try {
      return Harness.against(endpoint, bucket)
          .with("KEY_PREFIX", "mem-" + variant)
          .with("OUTPUT_FORMAT", format)
          .with("COMPRESSION", codec)
          .handler()
          .invoke(event);
    } catch (RuntimeException e) {
      // A configuration or handler error is this variant's response; the next variant still runs.
      return "threw " + e;
    }
  }
}
