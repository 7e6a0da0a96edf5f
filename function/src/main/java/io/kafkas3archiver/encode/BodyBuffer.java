package io.kafkas3archiver.encode;

import java.io.OutputStream;
import java.util.Objects;

/**
 * An object's body in memory, written once and then handed to the upload as an {@link ObjectBody}
 * without a copy. It fills chunks instead of doubling one array, so a body larger than expected is
 * never copied while it grows, nor when it is handed over: the chunks are the body's ranges. An
 * array can also be added by reference ({@link #share}): an uncompressed json or ndjson body is
 * then the records' own values, never copied at all.
 */
public final class BodyBuffer extends OutputStream {
  private static final int MIN_CHUNK = 64 * 1024;
  private static final byte[] NONE = {};

  private final ObjectBody.Ranges ranges;
  private int firstChunk;
  private byte[] chunk = NONE;

  /** Where the bytes of {@link #chunk} not yet in {@link #ranges} start. */
  private int mark;

  private int position;
  private long size;
  private boolean handedOver;

  /**
   * {@code expected}: the first chunk's size, allocated at the first write (a body made only of
   * shared arrays allocates none).
   */
  public BodyBuffer(int expected) {
    this(expected, 16);
  }

  /** As above, for a body of about {@code ranges} shared arrays. */
  public BodyBuffer(int expected, int ranges) {
    this.firstChunk = Math.max(expected, 0);
    this.ranges = new ObjectBody.Ranges(ranges);
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
    Objects.checkFromIndexSize(off, len, b.length);
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

  /**
   * Adds {@code bytes} to the body by reference: the caller must never change them (a record's
   * value, a constant separator).
   */
  public void share(byte[] bytes) {
    if (handedOver) {
      throw handedOver();
    }
    keepWritten();
    ranges.add(bytes, 0, bytes.length);
    size += bytes.length;
  }

  private void keepWritten() {
    ranges.add(chunk, mark, position - mark);
    mark = position;
  }

  /**
   * The next chunk: the expected size first, then a quarter of the body so far (at least 64 KiB):
   * few chunks, little slack.
   */
  private void next() {
    keepWritten();
    long grow = firstChunk > 0 ? firstChunk : Math.max(MIN_CHUNK, size / 4);
    firstChunk = 0;
    chunk = new byte[(int) Math.min(grow, Integer.MAX_VALUE - 16)];
    position = 0;
    mark = 0;
  }

  private static IllegalStateException handedOver() {
    return new IllegalStateException("the body was handed over to the upload; it cannot change");
  }

  /** The body, by reference to the chunks and shared arrays; nothing may be written after this. */
  public ObjectBody toBody() {
    if (!handedOver) {
      keepWritten();
      handedOver = true;
    }
    return ranges.body();
  }
}
