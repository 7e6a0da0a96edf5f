package io.kafkas3archiver.encode;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An object's body in memory, written once and then handed to the upload as one array. It fills
 * chunks instead of doubling one array, so a body larger than expected is never copied while it
 * grows; and when the first chunk was sized exactly ({@link Encoder#expectedSize}), {@link
 * #toByteArray} hands that chunk over as it is: the usual uncompressed ndjson or json batch is then
 * never copied at all (a {@code ByteArrayOutputStream} copies every body once more).
 */
public final class BodyBuffer extends OutputStream {
  private static final int MIN_CHUNK = 64 * 1024;

  private final List<byte[]> full = new ArrayList<>();
  private byte[] chunk;
  private int position;
  private long size;
  private boolean handedOver;

  /** {@code expected}: the first chunk's size, the body's size when it is known exactly. */
  public BodyBuffer(int expected) {
    this.chunk = new byte[Math.max(expected, 0)];
  }

  /** Bytes written so far. */
  public long size() {
    return size;
  }

  @Override
  public void write(int b) {
    if (handedOver) {
      throw handedOver();
    }
    if (position == chunk.length) {
      next();
    }
    chunk[position++] = (byte) b;
    size++;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (handedOver) {
      throw handedOver();
    }
    while (len > 0) {
      if (position == chunk.length) {
        next();
      }
      int n = Math.min(len, chunk.length - position);
      System.arraycopy(b, off, chunk, position, n);
      position += n;
      off += n;
      len -= n;
      size += n;
    }
  }

  /** A new chunk of a quarter of the body so far (at least 64 KiB): few chunks, little slack. */
  private void next() {
    if (chunk.length > 0) {
      full.add(chunk);
    }
    long grow = Math.max(MIN_CHUNK, size / 4);
    chunk = new byte[(int) Math.min(grow, Integer.MAX_VALUE - 16)];
    position = 0;
  }

  private static IllegalStateException handedOver() {
    return new IllegalStateException("the body was handed over to the upload; it cannot change");
  }

  /**
   * The body. Without a copy when it fits the first chunk exactly; the buffer must not be written
   * after this.
   */
  public byte[] toByteArray() {
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("a body of " + size + " bytes does not fit one array");
    }
    handedOver = true;
    if (full.isEmpty() && position == chunk.length) {
      return chunk;
    }
    if (full.isEmpty()) {
      return Arrays.copyOf(chunk, position);
    }
    byte[] body = new byte[(int) size];
    int at = 0;
    for (byte[] c : full) {
      System.arraycopy(c, 0, body, at, c.length);
      at += c.length;
    }
    System.arraycopy(chunk, 0, body, at, position);
    return body;
  }
}
