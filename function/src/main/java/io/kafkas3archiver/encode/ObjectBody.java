package io.kafkas3archiver.encode;

import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;

/**
 * An object's body: byte ranges laid end to end, referred to rather than copied. An uncompressed
 * json or ndjson body is the records' own values and the separators between them; a buffered body
 * is its chunks. No array may change once it is part of a body.
 */
public final class ObjectBody {
  private final byte[][] arrays;
  private final int[] offsets;
  private final int[] lengths;
  private final int count;
  private final long length;

  ObjectBody(byte[][] arrays, int[] offsets, int[] lengths, int count) {
    this.arrays = arrays;
    this.offsets = offsets;
    this.lengths = lengths;
    this.count = count;
    long total = 0;
    for (int i = 0; i < count; i++) {
      Objects.checkFromIndexSize(offsets[i], lengths[i], arrays[i].length);
      total += lengths[i];
    }
    this.length = total;
  }

  /** A body of one whole array, which it refers to. */
  public static ObjectBody of(byte[] bytes) {
    return new ObjectBody(new byte[][] {bytes}, new int[] {0}, new int[] {bytes.length}, 1);
  }

  /**
   * Receives a body's ranges in order: {@code MessageDigest::update} and {@code Checksum::update}.
   */
  @FunctionalInterface
  public interface RangeConsumer {
    void accept(byte[] bytes, int offset, int length);
  }

  public long length() {
    return length;
  }

  /** Ranges the body is made of (a test's view of whether it copied). */
  int ranges() {
    return count;
  }

  public void forEachRange(RangeConsumer consumer) {
    for (int i = 0; i < count; i++) {
      if (lengths[i] > 0) {
        consumer.accept(arrays[i], offsets[i], lengths[i]);
      }
    }
  }

  /** The body in one array: its own array, without a copy, when it is one whole array. */
  public byte[] toByteArray() {
    if (count == 1 && offsets[0] == 0 && lengths[0] == arrays[0].length) {
      return arrays[0];
    }
    if (length > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("a body of " + length + " bytes does not fit one array");
    }
    byte[] whole = new byte[(int) length];
    int[] at = {0};
    forEachRange(
        (b, off, len) -> {
          System.arraycopy(b, off, whole, at[0], len);
          at[0] += len;
        });
    return whole;
  }

  /** A new stream over the body, from its first byte; each call is independent of the others. */
  public InputStream newStream() {
    return new RangeStream();
  }

  @Override
  public String toString() {
    return "ObjectBody[" + length + " bytes in " + count + " ranges]";
  }

  private final class RangeStream extends InputStream {
    private int range;
    private int position = count == 0 ? 0 : offsets[0];
    private long left = length;

    /** Moves past finished ranges; false at the end of the body. */
    private boolean ready() {
      while (range < count && position == offsets[range] + lengths[range]) {
        range++;
        if (range < count) {
          position = offsets[range];
        }
      }
      return range < count;
    }

    @Override
    public int read() {
      if (!ready()) {
        return -1;
      }
      left--;
      return arrays[range][position++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      int copied = 0;
      while (copied < len && ready()) {
        int n = Math.min(len - copied, offsets[range] + lengths[range] - position);
        System.arraycopy(arrays[range], position, b, off + copied, n);
        position += n;
        copied += n;
      }
      left -= copied;
      return copied == 0 ? -1 : copied;
    }

    @Override
    public long skip(long n) {
      long skipped = 0;
      while (skipped < n && ready()) {
        int step = (int) Math.min(n - skipped, offsets[range] + lengths[range] - position);
        position += step;
        skipped += step;
      }
      left -= skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(left, Integer.MAX_VALUE);
    }
  }

  /** Collects ranges for a body; the arrays are kept, not copied. */
  static final class Ranges {
    private byte[][] arrays;
    private int[] offsets;
    private int[] lengths;
    private int count;

    Ranges(int expected) {
      int capacity = Math.max(expected, 4);
      arrays = new byte[capacity][];
      offsets = new int[capacity];
      lengths = new int[capacity];
    }

    void add(byte[] bytes, int offset, int length) {
      if (length == 0) {
        return;
      }
      if (count == arrays.length) {
        int capacity = count * 2;
        arrays = Arrays.copyOf(arrays, capacity);
        offsets = Arrays.copyOf(offsets, capacity);
        lengths = Arrays.copyOf(lengths, capacity);
      }
      arrays[count] = bytes;
      offsets[count] = offset;
      lengths[count] = length;
      count++;
    }

    ObjectBody body() {
      return new ObjectBody(arrays, offsets, lengths, count);
    }
  }
}
