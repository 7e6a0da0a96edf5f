package io.kafkas3archiver.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Captures what the handler prints to stdout (its JSON log lines) while a block runs. */
public final class StdoutCapture implements AutoCloseable {
  private final PrintStream original = System.out;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  public StdoutCapture() {
    System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
  }

  public List<String> lines() {
    System.out.flush();
    return buffer.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Override
  public void close() {
    System.setOut(original);
    original.print(buffer.toString(StandardCharsets.UTF_8));
  }
}
