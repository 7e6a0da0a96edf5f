package io.kafkas3archiver.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The parent's side of one warm forked JVM ({@code bench/driver/Warm}): sends a command, waits for
 * its {@code BENCH} reply. Anything else the fork prints (the handler's own log lines) is read and
 * dropped, so the pipe never fills.
 */
final class WarmInstance implements AutoCloseable {
  /** One invocation as the fork measured it. */
  record Call(double ms, long allocatedBytes, long gcMs) {}

  private final Process process;
  private final Path stderr;
  private final BufferedReader replies;
  private final Writer commands;

  WarmInstance(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.replies =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /** {@code run} (one invocation) or {@code floor}. */
  Call call(String command) throws IOException {
    commands.write(command + "\n");
    commands.flush();
    String line;
    while ((line = replies.readLine()) != null) {
      if (line.startsWith("BENCH ")) {
        String[] f = line.substring(6).split(" ");
        return new Call(
            Double.parseDouble(value(f[0])),
            Long.parseLong(value(f[1])),
            Long.parseLong(value(f[2])));
      }
    }
    throw new IllegalStateException(
        "the warm fork ended before answering '" + command + "':\n" + tail());
  }

  private static String value(String field) {
    return field.substring(field.indexOf('=') + 1);
  }

  private String tail() throws IOException {
    if (!Files.exists(stderr)) {
      return "";
    }
    List<String> lines = Files.readAllLines(stderr);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      commands.write("quit\n");
      commands.flush();
    } catch (IOException alreadyGone) {
      // the fork ended on its own; waitFor below reaps it
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
