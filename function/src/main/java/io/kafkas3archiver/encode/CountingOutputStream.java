package io.kafkas3archiver.encode;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Counts the bytes written through it: the size of an object before compression, and the position a
 * Parquet writer asks for. Closing it flushes but leaves the stream open: the caller owns it.
 */
public final class CountingOutputStream extends OutputStream {
  private final OutputStream out;
  private long count;

  public CountingOutputStream(OutputStream out) {
    this.out = out;
  }

  public long count() {
    return count;
  }

  @Override
  public void write(int b) throws IOException {
    out.write(b);
    count++;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    count += len;
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    out.flush();
  }
}
