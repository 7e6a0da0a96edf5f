package io.kafkas3archiver.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;

/**
 * Runs the real handler once, in a JVM of its own (started by MemoryIT with a small -Xmx), on an
 * event file, against an S3 endpoint. Exits 0 only if the batch was archived; prints the response
 * and the peak heap the pools saw.
 *
 * <p>Arguments: endpoint bucket keyPrefix outputFormat compression eventFile
 */
public final class MemoryProbe {
  private MemoryProbe() {}

  public static void main(String[] args) {
    var run =
        Harness.against(args[0], args[1])
            .with("KEY_PREFIX", args[2])
            .with("OUTPUT_FORMAT", args[3])
            .with("COMPRESSION", args[4])
            .handler();
    String response = run.invoke(Path.of(args[5]));
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    System.out.println("response " + response);
    System.out.printf(
        "peakHeapMb %.1f maxHeapMb %.1f%n",
        peak / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576.0);
    System.exit(response.equals("{\"batchItemFailures\":[]}") ? 0 : 2);
  }
}
