package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.junit.jupiter.api.Test;

/**
 * The buffers lent to parquet-mr again: every file written with the thread's pool, file after file
 * so that arrays come back and go out again, is byte for byte the file parquet-mr writes with new
 * buffers; and the pool lends each array once at a time, zeroed, and keeps at most its bound.
 */
class PagePoolTest {

  @Test
  void shouldWriteTheBytesOfNewBuffersFileAfterFile() throws IOException {
    long seed = Long.getLong("pagePool.seed", System.nanoTime());
    System.out.println("PagePoolTest seed " + seed + " (-DpagePool.seed to repeat)");
    Random random = new Random(seed);
    PagePool pool = PagePool.ofThisThread();
    for (int batch = 0; batch < 48; batch++) {
      int n = 1 + random.nextInt(2_500);
      // Every sixth batch has long strings: columns of several pages, slabs past a megabyte.
      int padding = batch % 6 == 5 ? 500 + random.nextInt(1_500) : 0;
      List<KafkaRecord> records =
          Records.ofValues(PlainColumnsTest.randomValues(random, n, padding));
      Compression codec = Compression.values()[batch % Compression.values().length];
      byte[] pooled = encode(codec, null, records);
      byte[] fresh = encode(codec, new HeapByteBufferAllocator(), records);
      assertThat(pooled)
          .as("batch %d (%d rows, padding %d, %s), seed %d", batch, n, padding, codec, seed)
          .isEqualTo(fresh);
      assertThat(pool.lentCount()).as("lent after the file").isZero();
      assertThat(pool.keptBytes()).isBetween(0L, (long) PagePool.MAX_KEPT);
    }
    // The pool was used: it keeps arrays for the next file.
    assertThat(pool.keptBytes()).isPositive();
  }

  @Test
  void shouldLendEachArrayOnceAtATimeAndZeroed() {
    PagePool pool = new PagePool();
    ByteBuffer a = pool.allocate(5_000);
    assertThat(a.capacity()).isEqualTo(5_000);
    assertThat(a.remaining()).isEqualTo(5_000);
    java.util.Arrays.fill(a.array(), (byte) 7); // the whole array, past the size too
    byte[] array = a.array();
    pool.release(a);
    pool.release(a); // a second release must not put the array back twice

    ByteBuffer b = pool.allocate(4_500); // same size class (4096 + 1024 steps: 5120)
    ByteBuffer c = pool.allocate(4_500);
    assertThat(b.array()).isSameAs(array);
    assertThat(c.array()).isNotSameAs(array);
    assertThat(java.util.Arrays.copyOf(b.array(), 4_500)).containsOnly((byte) 0);
    assertThat(b.capacity()).isEqualTo(4_500);

    // A buffer it did not lend, or one forgotten with its file, never joins the pool.
    pool.release(ByteBuffer.allocate(5_000));
    pool.fileDone();
    pool.release(b);
    pool.release(c);
    assertThat(pool.keptBytes()).isZero();
    assertThat(pool.lentCount()).isZero();
  }

  @Test
  void shouldKeepAtMostItsBound() {
    PagePool pool = new PagePool();
    ByteBuffer[] lent = new ByteBuffer[40];
    for (int i = 0; i < lent.length; i++) {
      lent[i] = pool.allocate(1024 * 1024);
    }
    for (ByteBuffer b : lent) {
      pool.release(b);
    }
    assertThat(pool.keptBytes()).isEqualTo(16L * 1024 * 1024);
    // Small and huge buffers are plain new ones.
    pool.release(pool.allocate(100));
    pool.release(pool.allocate(PagePool.MAX_KEPT + 1));
    assertThat(pool.keptBytes()).isEqualTo(16L * 1024 * 1024);
  }

  @Test
  void shouldRoundSizesToAQuarterStep() {
    assertThat(PagePool.sizeClass(1025)).isEqualTo(1280);
    assertThat(PagePool.sizeClass(4096)).isEqualTo(4096);
    assertThat(PagePool.sizeClass(4097)).isEqualTo(5120);
    assertThat(PagePool.sizeClass(1024 * 1024 + 1)).isEqualTo(1024 * 1024 + 256 * 1024);
    assertThat(PagePool.sizeClass(PagePool.MAX_KEPT)).isEqualTo(PagePool.MAX_KEPT);
  }

  private static byte[] encode(
      Compression codec, ByteBufferAllocator allocator, List<KafkaRecord> records)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new ParquetEncoder(codec, true, SchemaCatalog.none(), SchemaSource.inMemory(), true, allocator)
        .encode(records, out);
    return out.toByteArray();
  }
}
