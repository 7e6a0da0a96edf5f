package io.kafkas3archiver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/performance.md's commands for the sections that fork JVMs with Lambda's flags ({@code
 * lambda}, {@code lambda-memory}, {@code lambda-compare}, with {@code bench.tls} and {@code
 * bench.jfr}), run once each with one pair and one round on the shaded jar this build packaged:
 * each prints its rows, so a documented command cannot rot unnoticed. The figures are not checked
 * (one round on a shared machine means nothing); the shape of the output is.
 */
class LambdaSectionsIT {
  private static final Path JAR = Path.of("target/kafka-s3-archiver.jar");

  private static String bench(Path work, String... properties)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Dbench.jar=" + JAR);
    cmd.add("-Dbench.lambdaCombos=ndjson/gzip");
    cmd.add("-Dbench.lambdaMemory=512");
    cmd.add("-Dbench.lambdaRounds=1");
    cmd.addAll(List.of(properties));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Bench.class.getName()));
    Path log = work.resolve("bench.log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(Path.of("").toAbsolutePath().toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean finished = p.waitFor(5, TimeUnit.MINUTES);
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(finished).as("the benchmark finished within 5 minutes:%n%s", output).isTrue();
    assertThat(p.exitValue()).as("the benchmark's exit code:%n%s", output).isZero();
    return output;
  }

  @Test
  void shouldPrintTheLambdaRowsOverHttpsWithAProfilePerFork(@TempDir Path work) throws Exception {
    Path jfr = work.resolve("jfr");
    String output =
        bench(
            work,
            "-Dbench.sections=lambda,lambda-memory",
            "-Dbench.tls=true",
            "-Dbench.jfr=" + jfr);

    assertThat(output)
        .contains("forks reach S3Proxy over https")
        .containsPattern("\\| 512 \\| ndjson \\| gzip \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+×")
        .containsPattern("\\| 512 \\| PutObject-only \\|")
        .contains("## In-memory throughput, as Lambda runs");
    try (var files = Files.list(jfr)) {
      assertThat(files.map(f -> f.getFileName().toString()).toList())
          .as("one recording per fork")
          .contains("putonly-0.jfr")
          .anySatisfy(f -> assertThat(f).startsWith("archiver-"))
          .anySatisfy(f -> assertThat(f).startsWith("memory-"));
    }
  }

  @Test
  void shouldCompareTwoBuildsSideBySide(@TempDir Path work) throws Exception {
    String output =
        bench(work, "-Dbench.sections=lambda-compare", "-Dbench.beforeJar=" + JAR.toAbsolutePath());

    assertThat(output)
        .contains("## Before and after, as Lambda runs")
        .containsPattern(
            "\\| 512 \\| ndjson \\| gzip \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+× \\| [0-9.]+ \\|");
  }

  @Test
  void shouldRefuseACompareWithoutAnEarlierBuild(@TempDir Path work) throws Exception {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dbench.jar=" + JAR,
            "-Dbench.sections=lambda-compare",
            "-cp",
            System.getProperty("java.class.path"),
            Bench.class.getName());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isNotZero();
    assertThat(output).contains("lambda-compare needs -Dbench.beforeJar=");
  }
}
