package io.kafkas3archiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.EventBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar on its own, in fresh JVMs: it writes Parquet with every codec without loading a
 * single Hadoop class, carries only Linux natives, and reports the first-batch time that README
 * quotes (written to {@code target/first-batch-timing.txt}; a benchmark, not a timed assertion).
 */
public class ShadedJarIT {
  private static final Path JAR = Path.of("target/kafka-s3-archiver.jar");
  private static final Path TEST_CLASSES = Path.of("target/test-classes");
  // One run encodes a few thousand records; a JVM that takes longer than this is stuck.
  private static final long PROCESS_TIMEOUT_SECONDS = 120;
  private static final Path EVENT = Path.of("../events/msk-event.json");
  private static final String MAIN = "io.kafkas3archiver.local.FirstBatchTiming";

  @TempDir Path dir;

  @Test
  void shouldShipNoHadoopAndOnlyLinuxNativeLibraries() throws IOException {
    List<String> entries = new ArrayList<>();
    try (ZipFile zip = new ZipFile(JAR.toFile())) {
      Collections.list(zip.entries()).stream().map(ZipEntry::getName).forEach(entries::add);
    }

    assertThat(entries)
        .noneMatch(e -> e.startsWith("org/apache/hadoop/"))
        .noneMatch(e -> e.startsWith("io/airlift/compress/"))
        .noneMatch(e -> e.startsWith("org/apache/commons/pool/"))
        .contains("org/apache/parquet/hadoop/ParquetWriter.class");
    assertThat(entries.stream().filter(e -> e.matches(".*\\.(so|dylib|dll|a|jnilib)$")))
        .allMatch(
            e ->
                e.matches(
                    "(linux/(amd64|aarch64)|org/xerial/snappy/native/Linux/(x86_64|aarch64))/.*"))
        .hasSize(4);
  }

  @Test
  void shouldShipNoIcebergClassesNorTableWriter() throws IOException {
    List<String> entries = new ArrayList<>();
    try (ZipFile zip = new ZipFile(JAR.toFile())) {
      Collections.list(zip.entries()).stream().map(ZipEntry::getName).forEach(entries::add);
    }

    // OUTPUT_FORMAT=iceberg ships in kafka-s3-archiver-iceberg.jar (DESIGN §9): the plain jar
    // carries only the seam, so it can neither load Iceberg nor find a table writer.
    assertThat(entries)
        .contains("io/kafkas3archiver/table/TableWriterProvider.class")
        .noneMatch(e -> e.startsWith("org/apache/iceberg/"))
        .noneMatch(e -> e.startsWith("io/kafkas3archiver/iceberg/"))
        .noneMatch(e -> e.startsWith("software/amazon/awssdk/services/glue/"))
        .noneMatch(e -> e.equals("META-INF/services/io.kafkas3archiver.table.TableWriterProvider"));
  }

  /**
   * No SLF4J binding ships, so the SDK's DEBUG lines (which quote request paths, so object keys,
   * and its signers' canonical requests) can never reach the function's log; PayloadLogLeakTest and
   * CredentialsIT rely on it.
   */
  public static void assertNoSlf4jBinding(List<String> entries) {
    assertThat(entries)
        .contains("org/slf4j/LoggerFactory.class")
        .noneMatch(e -> e.equals("META-INF/services/org.slf4j.spi.SLF4JServiceProvider"))
        .noneMatch(e -> e.equals("org/slf4j/impl/StaticLoggerBinder.class"))
        .noneMatch(e -> e.startsWith("ch/qos/logback/"))
        .noneMatch(e -> e.startsWith("org/slf4j/simple/"))
        .noneMatch(e -> e.startsWith("org/apache/logging/slf4j/"));
  }

  @Test
  void shouldShipNoSlf4jBinding() throws IOException {
    List<String> entries = new ArrayList<>();
    try (ZipFile zip = new ZipFile(JAR.toFile())) {
      Collections.list(zip.entries()).stream().map(ZipEntry::getName).forEach(entries::add);
    }
    assertNoSlf4jBinding(entries);
  }

  @Test
  void shouldWriteParquetWithEveryCodecWithoutLoadingHadoop() throws Exception {
    Path event = wideEvent(10_000);
    Path out = dir.resolve("verbose");
    List<String> lines =
        run(
            List.of("-verbose:class", "-Darchiver.metadata=true"),
            event,
            out,
            "parquet",
            "snappy",
            "zstd",
            "gzip",
            "none");

    assertThat(lines).noneMatch(l -> l.contains("org.apache.hadoop"));
    assertThat(lines).anyMatch(l -> l.contains("org.apache.parquet.hadoop.ParquetWriter "));
    try (DuckDb duck = new DuckDb();
        Stream<Path> files = Files.walk(out)) {
      List<Path> parquet = files.filter(p -> p.toString().endsWith(".parquet")).toList();
      assertThat(parquet).hasSize(4);
      for (Path file : parquet) {
        String codec = file.getName(out.getNameCount()).toString();
        String expected = codec.equals("none") ? "UNCOMPRESSED" : codec.toUpperCase();
        String literal = DuckDb.literal(file);
        assertThat(
                duck.query(
                    "SELECT count(*) AS records, count(DISTINCT label) AS labels, CAST(sum(n) AS BIGINT) AS total,"
                        + " max(\"at\") AS last, max(kafka_timestamp) > min(kafka_timestamp) AS ts"
                        + " FROM read_parquet("
                        + literal
                        + ")"))
            .singleElement()
            .satisfies(
                r -> {
                  assertThat(r.get("records")).isEqualTo(10_000L);
                  assertThat(r.get("labels")).isEqualTo(10_000L);
                  assertThat(r.get("total")).isEqualTo(49_995_000L);
                  assertThat(r.get("ts")).isEqualTo(true);
                });
        assertThat(duck.query("SELECT DISTINCT compression FROM parquet_metadata(" + literal + ")"))
            .extracting(r -> r.get("compression"))
            .containsExactly(expected);
      }
    }
  }

  @Test
  void shouldReportTheFirstBatchTimeOfAFreshJvm() throws Exception {
    Path wide = wideEvent(10_000);
    List<String> report = new ArrayList<>();
    // One fresh JVM per case keeps the suite fast; -DfirstBatch.runs=7 gives figures to quote.
    int runs = Integer.getInteger("firstBatch.runs", 1);
    for (String format : List.of("ndjson", "parquet")) {
      for (int run = 1; run <= runs; run++) {
        run(List.of(), EVENT, dir.resolve(format + run), format, "snappy").stream()
            .filter(l -> l.startsWith("timing "))
            .map(l -> "sample-event " + l)
            .forEach(report::add);
      }
      run(List.of(), wide, dir.resolve(format + "-wide"), format, "snappy").stream()
          .filter(l -> l.startsWith("timing "))
          .map(l -> "10000-records " + l)
          .forEach(report::add);
    }
    Files.write(Path.of("target/first-batch-timing.txt"), report, StandardCharsets.UTF_8);
    report.forEach(System.out::println);

    // FirstBatchTiming prints 3 timing lines per JVM: 2 formats x (runs + the wide event).
    assertThat(report).hasSize(2 * (runs + 1) * 3);
  }

  /**
   * A batch of {@code count} records with every column type: long, double, boolean, an instant, a
   * unique string per record (so the dictionary overflows and falls back to plain encoding), a
   * nested object and an array.
   */
  private Path wideEvent(int count) throws IOException {
    EventBuilder event = new EventBuilder();
    for (int i = 0; i < count; i++) {
      // One partition with contiguous offsets, so each codec writes one object of 10,000 rows
      // (objects are per topic-partition).
      event.add(
          "wide",
          0,
          i,
          1783955045000L + i,
          "k" + (i % 100),
          "{\"n\": "
              + i
              + ", \"x\": "
              + (i * 0.25)
              + ", \"ok\": "
              + (i % 2 == 0)
              + ", \"at\": \"2026-07-13T15:04:05."
              + String.format("%03d", i % 1000)
              + "Z\", \"label\": \"label-"
              + i
              + "-"
              + "x".repeat(100)
              + "\", \"loc\": {\"lat\": "
              + (i % 90)
              + ".5}, \"tags\": [\"a\", "
              + i
              + "]}");
    }
    Path file = dir.resolve("wide-" + count + ".json");
    try (var in = event.stream()) {
      Files.copy(in, file);
    }
    return file;
  }

  private List<String> run(List<String> jvmArgs, Path event, Path out, String... formatAndCodecs)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(JAR + java.io.File.pathSeparator + TEST_CLASSES);
    command.add(MAIN);
    command.add(event.toString());
    command.add(out.toString());
    command.addAll(List.of(formatAndCodecs));
    Path log = Files.createTempFile(dir, "jvm", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean finished = process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    assertThat(finished).as("finished within %d s:%n%s", PROCESS_TIMEOUT_SECONDS, tail).isTrue();
    int exit = process.exitValue();
    assertThat(exit)
        .as(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())))
        .isZero();
    return lines;
  }
}
