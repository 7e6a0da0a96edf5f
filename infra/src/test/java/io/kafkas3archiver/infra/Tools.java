package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the repository's tools (.venv, .ci/node_modules) from integration tests. */
final class Tools {
  /** The repository root; failsafe runs in infra/. */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private Tools() {}

  record Result(int exitCode, String output) {}

  /** A tool installed by .ci/setup-tools; a missing tool fails the test, never skips it. */
  static Path require(String relative) {
    Path tool = ROOT.resolve(relative);
    if (!Files.isExecutable(tool)) {
      fail(tool + " is missing: run .ci/setup-tools (it installs cfn-lint, sam and the CDK CLI)");
    }
    return tool;
  }

  static Result run(List<String> command, Path cwd, Map<String, String> env, long timeoutSeconds)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
    // No credentials and no telemetry: these tools must work offline and anonymously.
    Map<String, String> e = pb.environment();
    List.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE")
        .forEach(e::remove);
    e.put("AWS_CONFIG_FILE", "/nonexistent");
    e.put("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent");
    e.put("AWS_EC2_METADATA_DISABLED", "true");
    e.put("SAM_CLI_TELEMETRY", "0");
    e.putAll(env);
    Path log = Files.createTempFile("tool", ".log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(command + " did not finish in " + timeoutSeconds + " s");
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    Files.deleteIfExists(log);
    return new Result(p.exitValue(), output);
  }
}
