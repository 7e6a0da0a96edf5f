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
 * The parent's side of one warm forked JVM ({@code bench/driver/Warm}, or the iceberg module's
 * {@code IcebergWarm}): sends a command, waits for its {@code BENCH} reply. Anything else the fork
 * prints (the handler's own log lines) is read and dropped, so the pipe never fills.
 */
public final class WarmInstance implements AutoCloseable {
  /** One invocation as the fork measured it. */
  record Call(double ms, long allocatedBytes, long gcMs) {}

  private final Process process;
  private final Path stderr;
  private final BufferedReader replies;
  private final Writer commands;

  public WarmInstance(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.replies =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /** {@code run} (one invocation) or {@code floor}. */
  Call call(String command) throws IOException {
    String[] f = reply(command).split(" ");
    return new Call(
        Double.parseDouble(value(f[0])), Long.parseLong(value(f[1])), Long.parseLong(value(f[2])));
  }

  /** Sends {@code command} and returns the fork's {@code BENCH} reply, without that word. */
  public String reply(String command) throws IOException {
    commands.write(command + "\n");
    commands.flush();
    String line;
    java.util.ArrayDeque<String> other = new java.util.ArrayDeque<>();
    while ((line = replies.readLine()) != null) {
      if (line.startsWith("BENCH ")) {
        return line.substring(6);
      }
      // The JVM's own messages (a bad flag, JFR) among the handler's: the last few go in the error.
      if (other.size() == 20) {
        other.removeFirst();
      }
      other.addLast(line);
    }
    throw new IllegalStateException(
        "the warm fork ended before answering '"
            + command
            + "':\n"
            + String.join("\n", other)
            + "\n"
            + tail());
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
