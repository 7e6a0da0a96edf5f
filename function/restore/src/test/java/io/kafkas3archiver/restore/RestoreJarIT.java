package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.BoundedProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
  void shouldPrintTheRedriveUsageFromTheJarAlone() throws Exception {
    BoundedProcess.Result result = javaJar("redrive", "--help");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .startsWith(
            "Usage: redrive (--sqs-queue-url U | --s3 s3://BUCKET/PREFIX | --record FILE...)")
        .contains("--archiver-function");
  }

  @Test
  void shouldExitTwoOnABadCommandLineFromTheJarAlone() throws Exception {
    BoundedProcess.Result result = javaJar("--bucket", "b");

    assertThat(result.exitCode()).as(result.output()).isEqualTo(2);
    assertThat(result.output()).contains("--topic is required");
  }

  @Test
  void shouldSayWhichFlagGivesTheRegionWhenNoneIsFound() throws Exception {
    Path noConfig = Files.createTempFile("no-aws-config", "");
    try {
      BoundedProcess.Result result =
          javaJar(
              Map.of(
                  "AWS_CONFIG_FILE", noConfig.toString(),
                  "AWS_SHARED_CREDENTIALS_FILE", noConfig.toString(),
                  "AWS_EC2_METADATA_DISABLED", "true"),
              "--bucket",
              "my-archive",
              "--topic",
              "orders",
              "--dry-run");

      assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
      assertThat(result.output())
          .contains("restore failed: no AWS region for the bucket my-archive: pass --region")
          .doesNotContain("rerun")
          .doesNotContain("Unable to load region");
    } finally {
      Files.deleteIfExists(noConfig);
    }
  }

  @Test
  void shouldNameTheRestoreCommandAsTheJarsMainClass() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo(io.kafkas3archiver.tool.Main.class.getName());
    }
  }

  private static BoundedProcess.Result javaJar(String... args)
      throws IOException, InterruptedException {
    return javaJar(Map.of(), args);
  }

  /**
   * The jar in a fresh JVM with no AWS region or endpoint from this environment, plus {@code env}.
   */
  private static BoundedProcess.Result javaJar(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command =
        new java.util.ArrayList<>(List.of(JAVA.toString(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    // No inherited classpath, and a working directory with nothing of the build in it.
    builder.environment().remove("CLASSPATH");
    for (String name :
        List.of(
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT_URL_S3",
            "AWS_ENDPOINT_URL",
            "AWS_PROFILE")) {
      builder.environment().remove(name);
    }
    builder.environment().putAll(env);
    builder.directory(Path.of(System.getProperty("java.io.tmpdir")).toFile());
    return BoundedProcess.run(builder, "", Duration.ofSeconds(60));
  }
}
