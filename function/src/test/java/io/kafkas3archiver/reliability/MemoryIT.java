package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.MemoryProbe;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A full batch (10,000 records, 6 MB of values) in each accepted format and codec, in a JVM with
 * the heap of a 256 MB function (-Xmx200m), through the real handler to S3Proxy. Each variant must
 * be archived without running out of memory, with a fresh handler after a full GC, and its objects
 * (one per partition) must hold all 10,000 rows, each once. One probe JVM runs the variants in turn
 * ({@link MemoryProbe}): 16 JVM starts cost more than the batches (issue 16).
 */
class MemoryIT {
  private static final String BUCKET = "memory";
  private static final int RECORDS = 10_000;
  private static final int VALUE_BYTES = 600;
  private static final long SECONDS_PER_VARIANT = 120;
  private static final Pattern RESULT =
      Pattern.compile(
          "variant (\\S+) peakHeapMb ([\\d.]+) maxHeapMb ([\\d.]+) response (.*)", Pattern.DOTALL);
  private static final Map<String, String> RESULTS = new ConcurrentHashMap<>();

  @TempDir static Path temp;
  private static S3ProxyServer server;
  private static S3Client s3;
  private static Path event;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    s3 = server.client();
    event = temp.resolve("six-megabytes.json");
    Random rnd = new Random(6);
    List<Rec> records = new ArrayList<>(RECORDS);
    long payload = 0;
    for (int i = 0; i < RECORDS; i++) {
      StringBuilder v = new StringBuilder(VALUE_BYTES);
      v.append("{\"id\":").append(i).append(",\"device\":\"dev-").append(i % 97);
      v.append("\",\"reading\":").append(rnd.nextInt(100_000) / 100.0).append(",\"blob\":\"");
      while (v.length() < VALUE_BYTES - 2) {
        v.append((char) ('a' + rnd.nextInt(26)));
      }
      v.append("\"}");
      payload += v.length();
      records.add(Rec.of("telemetry", i % 4, i / 4, 1_784_023_200_000L + i, v.toString()));
    }
    assertThat(payload).isGreaterThanOrEqualTo(6_000_000L);
    try (OutputStream out = Files.newOutputStream(event)) {
      KafkaEvents.write(records, out);
    }
    runProbes(Formats.variants().stream().map(Formats.Variant::toString).toList());
  }

  @AfterAll
  static void stop() {
    s3.close();
    server.close();
  }

  /**
   * Runs every variant, in order, in probe JVMs of -Xmx200m: one JVM for all of them while they
   * pass. A JVM that dies (an OutOfMemoryError) or stalls during a variant fails that variant with
   * its output, and a fresh JVM runs the variants after it, so each is still tried on its own.
   */
  private static void runProbes(List<String> variants) throws Exception {
    List<String> remaining = new ArrayList<>(variants);
    for (int launch = 1; !remaining.isEmpty(); launch++) {
      Path log = temp.resolve("probe-" + launch + ".log");
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx200m",
                  "-XX:+ExitOnOutOfMemoryError",
                  "-cp",
                  System.getProperty("java.class.path"),
                  MemoryProbe.class.getName(),
                  server.endpoint().toString(),
                  BUCKET,
                  event.toString()));
      command.addAll(remaining);
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      process.getOutputStream().close();
      boolean stalled = awaitProgress(process, log);
      String text = Files.readString(log, StandardCharsets.UTF_8);
      text.lines()
          .filter(l -> l.startsWith("variant "))
          .forEach(
              l -> {
                String variant = l.split(" ")[1];
                RESULTS.put(variant, l);
                remaining.remove(variant);
              });
      if (!remaining.isEmpty()) {
        String culprit = remaining.remove(0);
        String tail = text.length() > 4000 ? text.substring(text.length() - 4000) : text;
        RESULTS.put(
            culprit,
            (stalled
                    ? "the probe JVM made no progress for " + SECONDS_PER_VARIANT + " s"
                    : "the probe JVM exited with " + process.exitValue())
                + " during "
                + culprit
                + ":\n"
                + tail);
      }
    }
  }

  /**
   * Waits for the probe, at most SECONDS_PER_VARIANT from its start or its last finished variant
   * (its output goes to a file, so nothing blocks on reading it and the bound can fire). Returns
   * whether it stalled and was killed.
   */
  private static boolean awaitProgress(Process process, Path log) throws Exception {
    long finished = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS_PER_VARIANT);
    while (!process.waitFor(1, TimeUnit.SECONDS)) {
      long now =
          Files.readString(log, StandardCharsets.UTF_8)
              .lines()
              .filter(l -> l.startsWith("variant "))
              .count();
      if (now > finished) {
        finished = now;
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS_PER_VARIANT);
      } else if (System.nanoTime() > deadline) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest(name = "{0} in -Xmx200m")
  @MethodSource("io.kafkas3archiver.testing.Formats#variants")
  void shouldArchiveASixMegabyteTenThousandRecordBatchInTheHeapOfA256MbFunction(
      Formats.Variant variant) throws Exception {
    String prefix = "mem-" + variant;
    String result = RESULTS.get(variant.toString());
    assertThat(result).as("%s: the probe reported nothing", variant).isNotNull();
    Matcher m = RESULT.matcher(result);
    assertThat(m.matches()).as(result).isTrue();
    assertThat(m.group(4)).as(result).isEqualTo("{\"batchItemFailures\":[]}");
    double peak = Double.parseDouble(m.group(2));
    double max = Double.parseDouble(m.group(3));
    System.out.println("memory " + variant + ": peakHeapMb " + peak + " maxHeapMb " + max);
    // The probe ran under the bound, and measured this variant's own use of the heap.
    assertThat(max).as(result).isLessThanOrEqualTo(200.0);
    assertThat(peak).as(result).isPositive().isLessThanOrEqualTo(max);
    // One object per topic-partition (issue 12): the batch spans partitions 0-3.
    var keys = Archive.objects(s3, BUCKET, prefix + "/").keySet();
    assertThat(keys).hasSize(4);
    int rowCount = 0;
    TreeSet<Integer> ids = new TreeSet<>();
    for (String key : keys) {
      var rows = Archive.rows(s3, BUCKET, key);
      rowCount += rows.size();
      rows.forEach(r -> ids.add(r.get("id").asInt()));
    }
    assertThat(rowCount).isEqualTo(RECORDS);
    assertThat(ids).hasSize(RECORDS).first().isEqualTo(0);
  }
}
