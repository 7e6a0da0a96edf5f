package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.ArchiverHandler;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One warm Lambda instance for {@link IcebergBench}'s {@code lambda} section (issue 29): a JVM
 * forked with Lambda's flags, holding the handler the runtime builds ({@code new
 * ArchiverHandler()}, configured by the environment the parent set: iceberg or parquet files),
 * invoked once per {@code run <round>} command read from stdin. Each round moves the event's
 * offsets to a new range, so every invocation is a first delivery through the real exactly-once
 * path (a conditional PUT per object for the file formats, a commit for iceberg). It answers each
 * command with one {@code BENCH} line on the real stdout: wall ms, process CPU ms (this JVM only:
 * the function, its JIT and GC; S3Proxy and the catalog run in the parent), bytes allocated by all
 * threads, GC ms, and the commit latency the handler's log line reports (iceberg; 0 for files).
 * {@code profile <file>} starts a JFR recording (settings=profile) written to that file when stdin
 * ends or says {@code quit}.
 */
public final class IcebergWarm {
  private static final Pattern COMMIT = Pattern.compile("\"commitLatencyMs\":(\\d+)");

  private IcebergWarm() {}

  public static void main(String[] args) throws Exception {
    String event = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
    PrintStream replies = System.out;
    // The handler logs to the stdout it finds at construction: its log line and EMF go to a buffer
    // (the commit latency is read from it), the replies to the real stdout.
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    System.setOut(new PrintStream(logged, true, StandardCharsets.UTF_8));
    ArchiverHandler handler = new ArchiverHandler();
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
    BufferedReader commands =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    jdk.jfr.Recording recording = null;
    while ((command = commands.readLine()) != null) {
      if (command.startsWith("profile ")) {
        // After the warm-ups: the profile holds the measured rounds only, not the cold start.
        recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        recording.setDestination(Path.of(command.substring(8).trim()));
        recording.start();
        replies.println("BENCH profiling");
        replies.flush();
        continue;
      }
      if (!command.startsWith("run ")) {
        break;
      }
      int round = Integer.parseInt(command.substring(4).trim());
      byte[] body = roundOf(event, round);
      logged.reset();
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      long gc0 = gcMillis(gcs);
      long alloc0 = threads.getTotalThreadAllocatedBytes();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      handler.handleRequest(new ByteArrayInputStream(body), response, null);
      long nanos = System.nanoTime() - t0;
      long cpu = os.getProcessCpuTime() - cpu0;
      long alloc = threads.getTotalThreadAllocatedBytes() - alloc0;
      long gc = gcMillis(gcs) - gc0;
      if (!response.toString(StandardCharsets.UTF_8).contains("\"batchItemFailures\":[]")) {
        throw new IllegalStateException("round " + round + " was not archived: " + response);
      }
      Matcher commit = COMMIT.matcher(logged.toString(StandardCharsets.UTF_8));
      replies.printf(
          "BENCH ms=%.3f cpu=%.3f alloc=%d gc=%d commit=%s%n",
          nanos / 1e6, cpu / 1e6, alloc, gc, commit.find() ? commit.group(1) : "0");
      replies.flush();
    }
    if (recording != null) {
      recording.stop(); // writes the destination file
      recording.close();
    }
  }

  /**
   * The telemetry event with its offsets moved to 1,000,000 x (round + 1) + i (the batch's offsets
   * are 1,000,000 + i): the same records at offsets no earlier round used.
   */
  static byte[] roundOf(String event, int round) {
    return event
        .replace("\"offset\":1", "\"offset\":" + (round + 1))
        .getBytes(StandardCharsets.UTF_8);
  }

  private static long gcMillis(List<GarbageCollectorMXBean> gcs) {
    long sum = 0;
    for (GarbageCollectorMXBean gc : gcs) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }
}
