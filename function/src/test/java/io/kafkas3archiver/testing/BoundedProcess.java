package io.kafkas3archiver.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Runs a child process with a bound that can fire: its output (stderr merged) goes to a file, so
 * nothing blocks on reading a pipe while the wait runs, and a process past the bound is killed.
 */
public final class BoundedProcess {
  /** What the process printed, and whether it exited within the bound (and with what code). */
  public record Result(boolean finished, int exitCode, String output) {}

  private BoundedProcess() {}

  /** Starts the process, writes {@code stdin} (may be empty) and waits at most {@code bound}. */
  public static Result run(ProcessBuilder builder, String stdin, Duration bound)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile("bounded-process", ".log");
    try {
      Process process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      boolean finished = process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      return new Result(finished, finished ? process.exitValue() : -1, output);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
