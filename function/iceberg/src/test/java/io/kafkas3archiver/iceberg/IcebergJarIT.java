package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.BoundedProcess;
import io.kafkas3archiver.testing.EventBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped artifact on its own: kafka-s3-archiver-iceberg.jar in a fresh JVM (no test class path
 * but the JarSmoke driver) finds its table writer by ServiceLoader and commits a batch to the
 * in-process REST catalog. Prints the jar size and the fresh JVM's init and first-batch time
 * (figures, not assertions).
 */
class IcebergJarIT {
  static final Path JAR = Path.of("target/kafka-s3-archiver-iceberg.jar");
  static IcebergHarness h;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    h = new IcebergHarness();
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  @Test
  void shouldCommitABatchFromTheShadedJarInAFreshJvm() throws Exception {
    assertThat(JAR).as("build it: mvn -pl function,function/iceberg package").exists();
    List<String> entries = new ArrayList<>();
    try (ZipFile zip = new ZipFile(JAR.toFile())) {
      Collections.list(zip.entries()).stream().map(ZipEntry::getName).forEach(entries::add);
      ZipEntry services =
          zip.getEntry("META-INF/services/io.kafkas3archiver.table.TableWriterProvider");
      assertThat(services).isNotNull();
      assertThat(new String(zip.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8))
          .contains("io.kafkas3archiver.iceberg.IcebergWriterProvider");
    }
    assertThat(entries)
        .contains("io/kafkas3archiver/ArchiverHandler.class")
        .contains("org/apache/iceberg/rest/RESTCatalog.class")
        .noneMatch(e -> e.startsWith("org/apache/orc/"));
    io.kafkas3archiver.ShadedJarIT.assertNoSlf4jBinding(entries);

    EventBuilder event = new EventBuilder();
    for (long o = 0; o < 1_000; o++) {
      event.add("shaded", 0, o, IcebergTableIT.T0 + o * 1_000L, null, IcebergTableIT.value(0, o));
    }
    Path eventFile = dir.resolve("event.json");
    try (var in = event.stream()) {
      Files.write(eventFile, in.readAllBytes());
    }
    String env =
        h.env(Map.of()).entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(","));
    ProcessBuilder p =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-cp",
            JAR + java.io.File.pathSeparator + "target/test-classes",
            "io.kafkas3archiver.iceberg.JarSmoke",
            env,
            eventFile.toString());
    BoundedProcess.Result run = BoundedProcess.run(p, "", Duration.ofSeconds(180));
    String out = run.output();
    assertThat(run.finished()).as("the jar finished within 180 s:%n%s", out).isTrue();
    assertThat(run.exitCode()).as(out).isZero();
    String timing = out.lines().filter(l -> l.startsWith("JarSmoke:")).findFirst().orElseThrow();
    System.out.println(timing + "; jar " + Files.size(JAR) + " bytes");
    Files.writeString(
        Path.of("target/iceberg-jar-smoke.txt"), timing + "; jar " + Files.size(JAR) + " bytes\n");

    assertThat(h.rows("shaded")).hasSize(1_000);
  }

  static long size(Path p) throws IOException {
    return Files.size(p);
  }
}
