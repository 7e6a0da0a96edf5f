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
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A full batch (10,000 records, 6 MB of values) in each accepted format and codec, in a JVM with
 * the heap of a 256 MB function (-Xmx200m), through the real handler to S3Proxy. The forked JVM
 * must exit 0 and the objects (one per partition) must hold all 10,000 rows, each once.
 */
class MemoryIT {
  private static final String BUCKET = "memory";
  private static final int RECORDS = 10_000;
  private static final int VALUE_BYTES = 600;

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
  }

  @AfterAll
  static void stop() {
    s3.close();
    server.close();
  }

  @ParameterizedTest(name = "{0} in -Xmx200m")
  @MethodSource("io.kafkas3archiver.testing.Formats#variants")
  void shouldArchiveASixMegabyteTenThousandRecordBatchInTheHeapOfA256MbFunction(
      Formats.Variant variant) throws Exception {
    String prefix = "mem-" + variant;
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path log = temp.resolve(prefix + ".log");
    Process process =
        new ProcessBuilder(
                java.toString(),
                "-Xmx200m",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                MemoryProbe.class.getName(),
                server.endpoint().toString(),
                BUCKET,
                prefix,
                variant.format().configName(),
                variant.compression().configName(),
                event.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    process.getOutputStream().close();
    // The output goes to a file, so nothing blocks on reading it and the bound below can fire.
    boolean finished = process.waitFor(120, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String text = Files.readString(log, StandardCharsets.UTF_8);

    assertThat(finished).as("finished within 120 s").isTrue();
    assertThat(process.exitValue()).as(text).isZero();
    System.out.println(
        "memory " + variant + ": " + text.lines().filter(l -> l.startsWith("peak")).toList());
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
