package io.kafkas3archiver.encode;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * The heap buffers parquet-mr asks for while it writes a file (its value slabs, each page's bytes,
 * the column chunk that collects them), kept when parquet-mr releases them and lent again to the
 * next file the thread writes. Parquet-mr's own allocator makes every one new: on the benchmark's
 * parquet/none batch that was about 6 MB a batch, two copies of every page.
 *
 * <p>A buffer is lent at the size asked for, cut from an array of the size's class (a quarter step
 * of its power of two), and zeroed, as a new one would be. An array comes back only when parquet-mr
 * releases the buffer it was lent as, and only once; what parquet-mr still holds when the file is
 * done ({@link #fileDone}) is forgotten, never lent again. At most {@link #MAX_KEPT} bytes stay in
 * the pool between files, so a batch's bounded memory is bounded still; buffers of at most {@link
 * #SMALLEST} bytes or above {@link #MAX_KEPT} are plain new ones. One pool a thread ({@link
 * #ofThisThread}): a thread writes one file at a time.
 */
final class PagePool implements ByteBufferAllocator {
  /** The most bytes the pool keeps between files. */
  static final int MAX_KEPT = 16 * 1024 * 1024;

  /** Buffers this small are not worth the bookkeeping. */
  static final int SMALLEST = 1024;

  private static final byte[] ZEROS = new byte[16 * 1024];

  private static final ThreadLocal<PagePool> POOLS = ThreadLocal.withInitial(PagePool::new);

  private final Map<Integer, ArrayDeque<byte[]>> free = new HashMap<>();
  private final Map<byte[], Boolean> lent = new IdentityHashMap<>();
  private long kept;

  static PagePool ofThisThread() {
    return POOLS.get();
  }

  @Override
  public ByteBuffer allocate(int size) {
    if (size <= SMALLEST || size > MAX_KEPT) {
      return ByteBuffer.allocate(size);
    }
    int capacity = sizeClass(size);
    ArrayDeque<byte[]> arrays = free.get(capacity);
    byte[] array = arrays == null ? null : arrays.pollFirst();
    if (array == null) {
      array = new byte[capacity];
    } else {
      kept -= capacity;
      zero(array, size);
    }
    lent.put(array, Boolean.TRUE);
    // Capacity, limit and remaining are the size asked for; the array may be longer.
    return ByteBuffer.wrap(array, 0, size).slice();
  }

  @Override
  public void release(ByteBuffer buffer) {
    if (!buffer.hasArray() || lent.remove(buffer.array()) == null) {
      return; // not lent by this pool, or already back
    }
    byte[] array = buffer.array();
    if (kept + array.length <= MAX_KEPT) {
      free.computeIfAbsent(array.length, c -> new ArrayDeque<>()).addFirst(array);
      kept += array.length;
    }
  }

  @Override
  public boolean isDirect() {
    return false;
  }

  /** The file is written: whatever parquet-mr has not released is forgotten, never lent again. */
  void fileDone() {
    lent.clear();
  }

  /** How many buffers are lent and not yet released. */
  int lentCount() {
    return lent.size();
  }

  /** The bytes kept for the next file. */
  long keptBytes() {
    return kept;
  }

  /**
   * Zeroes {@code array[0, size)} by copying a block of zeros: Lambda's JIT (C1) runs {@link
   * java.util.Arrays#fill} byte by byte (about 5 ms for a parquet batch's 8 MB, measured), while
   * {@link System#arraycopy} is a native copy.
   */
  private static void zero(byte[] array, int size) {
    for (int at = 0; at < size; at += ZEROS.length) {
      System.arraycopy(ZEROS, 0, array, at, Math.min(ZEROS.length, size - at));
    }
  }

  /** {@code size} rounded up to a quarter step of its power of two (at most a third more). */
  static int sizeClass(int size) {
    int step = Integer.highestOneBit(size) / 4;
    return (int) (((long) size + step - 1) / step * step);
  }
}
