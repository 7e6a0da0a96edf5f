package io.kafkas3archiver.encode;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Parquet page compression without Hadoop: parquet's own {@code CodecFactory} builds a Hadoop
 * {@code Configuration} and codec classes (about 9.7 MB of Hadoop at run time, NOTES.md). Pages are
 * compressed as the Parquet spec defines each codec: raw snappy blocks, gzip members, zstd frames
 * (level {@value Compression#ZSTD_LEVEL}, as parquet's default). Write-only.
 */
final class ParquetCodecs implements CompressionCodecFactory {
  static final ParquetCodecs INSTANCE = new ParquetCodecs();

  /**
   * Parquet asks for a compressor per column, so the page arrays are the thread's, shared by all
   * its columns and batches: a thread writes one page at a time, and each page's compressed bytes
   * are copied before the next page is compressed (see {@link PageBuffers}).
   */
  private static final ThreadLocal<PageBuffers> PAGE_BUFFERS =
      ThreadLocal.withInitial(PageBuffers::new);

  private ParquetCodecs() {}

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return switch (codec) {
      case UNCOMPRESSED -> new Compressor(codec, bytes -> bytes);
      case SNAPPY -> new Compressor(codec, bytes -> PAGE_BUFFERS.get().snappy(bytes));
      case ZSTD -> new Compressor(codec, bytes -> PAGE_BUFFERS.get().zstd(bytes));
      case GZIP -> new Compressor(codec, bytes -> PAGE_BUFFERS.get().gzip(bytes));
      default -> throw new IllegalArgumentException("no compressor for " + codec);
    };
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("the archiver only writes Parquet");
  }

  @Override
  public void release() {}

  /**
   * Page arrays reused page after page: parquet copies a page's compressed bytes (a data page into
   * its column chunk, a dictionary page by {@code BytesInput.copy}) before it asks for the next
   * page, so one input and one output array serve them all. Before, every page was copied out of
   * parquet's slabs into a new array, compressed into another of the bound's size, and copied once
   * more to the exact size. The compressed bytes are the same: ParquetCodecsTest compares them with
   * {@code Snappy.compress} and {@code Zstd.compress}.
   */
  static final class PageBuffers {
    private byte[] in = new byte[0];
    private byte[] out = new byte[0];
    private int length;
    private int written;

    /** The page's bytes into {@code in}; their count in {@code length}. */
    private void read(BytesInput bytes) throws IOException {
      long size = bytes.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new IOException("a Parquet page of " + size + " bytes does not fit one array");
      }
      if (in.length < size) {
        in = new byte[(int) Math.max(size, Math.min(2L * in.length, Integer.MAX_VALUE - 16))];
      }
      length = 0;
      bytes.writeAllTo(
          new java.io.OutputStream() {
            @Override
            public void write(int b) {
              in[length++] = (byte) b;
            }

            @Override
            public void write(byte[] b, int off, int len) {
              System.arraycopy(b, off, in, length, len);
              length += len;
            }
          });
    }

    private byte[] out(long bound) {
      if (out.length < bound) {
        out = new byte[(int) bound];
      }
      return out;
    }

    BytesInput snappy(BytesInput bytes) throws IOException {
      read(bytes);
      byte[] dst = out(Snappy.maxCompressedLength(length));
      int n = Snappy.compress(in, 0, length, dst, 0);
      return BytesInput.from(dst, 0, n);
    }

    /**
     * A gzip member into the reused output array. zlib's output does not depend on how its input
     * and output are cut into buffers, so a smaller stream buffer gives the same bytes.
     */
    BytesInput gzip(BytesInput bytes) throws IOException {
      written = 0;
      OutputStream sink =
          new OutputStream() {
            @Override
            public void write(int b) {
              room(1);
              out[written++] = (byte) b;
            }

            @Override
            public void write(byte[] b, int off, int len) {
              room(len);
              System.arraycopy(b, off, out, written, len);
              written += len;
            }
          };
      try (GZIPOutputStream gz = new GZIPOutputStream(sink, 8 * 1024)) {
        bytes.writeAllTo(gz);
      }
      return BytesInput.from(out, 0, written);
    }

    private void room(int more) {
      if (out.length - written < more) {
        out = Arrays.copyOf(out, Math.max(written + more, Math.max(64 * 1024, 2 * out.length)));
      }
    }

    BytesInput zstd(BytesInput bytes) throws IOException {
      read(bytes);
      byte[] dst = out(Zstd.compressBound(length));
      long n = Zstd.compressByteArray(dst, 0, dst.length, in, 0, length, Compression.ZSTD_LEVEL);
      if (Zstd.isError(n)) {
        throw new IOException("zstd could not compress a Parquet page: " + Zstd.getErrorName(n));
      }
      return BytesInput.from(dst, 0, (int) n);
    }
  }

  @FunctionalInterface
  private interface Codec {
    BytesInput compress(BytesInput bytes) throws IOException;
  }

  private record Compressor(CompressionCodecName codecName, Codec codec)
      implements BytesInputCompressor {
    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
      return codec.compress(bytes);
    }

    @Override
    public CompressionCodecName getCodecName() {
      return codecName;
    }

    @Override
    public void release() {}
  }
}
