package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.BoundedProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The restore jar on its own, as docs/restore.md leads with it: {@code java -jar
 * kafka-s3-archiver-restore.jar --help} in a fresh JVM, with no classpath but the jar (its
 * Main-Class), from a directory outside the checkout.
 */
class RestoreJarIT {
  private static final Path JAR = Path.of("target/kafka-s3-archiver-restore.jar").toAbsolutePath();
  private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

  @Test
  void shouldPrintTheUsageFromTheJarAlone() throws Exception {
    BoundedProcess.Result result = javaJar("--help");

    assertThat(result.finished()).as(result.output()).isTrue();
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .startsWith("Usage: restore --bucket B --topic T")
        .contains("--verify-only", "--include-errors");
  }

  @Test
  void shouldExitTwoOnABadCommandLineFromTheJarAlone() throws Exception {
    BoundedProcess.Result result = javaJar("--bucket", "b");

    assertThat(result.exitCode()).as(result.output()).isEqualTo(2);
    assertThat(result.output()).contains("--topic is required");
  }

  @Test
  void shouldNameTheRestoreCommandAsTheJarsMainClass() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo(RestoreCommand.class.getName());
    }
  }

  private static BoundedProcess.Result javaJar(String... args)
      throws IOException, InterruptedException {
    List<String> command =
        new java.util.ArrayList<>(List.of(JAVA.toString(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    // No inherited classpath, and a working directory with nothing of the build in it.
    builder.environment().remove("CLASSPATH");
    builder.directory(Path.of(System.getProperty("java.io.tmpdir")).toFile());
    return BoundedProcess.run(builder, "", Duration.ofSeconds(60));
  }
}
