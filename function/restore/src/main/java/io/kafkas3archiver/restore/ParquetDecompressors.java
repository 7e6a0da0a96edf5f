package io.kafkas3archiver.restore;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Page decompression for the codecs the archiver writes, with snappy-java, zstd-jni and
 * java.util.zip, so reading Parquet builds no Hadoop {@code Configuration}. Read-only.
 */
final class ParquetDecompressors implements CompressionCodecFactory {
  static final ParquetDecompressors INSTANCE = new ParquetDecompressors();

  private ParquetDecompressors() {}

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("the restore only reads Parquet");
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return new Decompressor(codec);
  }

  @Override
  public void release() {}

  private record Decompressor(CompressionCodecName codec) implements BytesInputDecompressor {
    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      byte[] in = bytes.toByteArray();
      return BytesInput.from(inflate(in, uncompressedSize));
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
        throws IOException {
      byte[] in = new byte[compressedSize];
      input.get(in);
      output.put(inflate(in, uncompressedSize));
    }

    private byte[] inflate(byte[] in, int uncompressedSize) throws IOException {
      return switch (codec) {
        case UNCOMPRESSED -> in;
        case SNAPPY -> Snappy.uncompress(in);
        case ZSTD -> Zstd.decompress(in, uncompressedSize);
        case GZIP -> {
          try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(in))) {
            yield gz.readNBytes(uncompressedSize);
          }
        }
        default ->
            throw new IOException(
                "Parquet codec "
                    + codec
                    + " is not one the archiver writes (none, snappy, gzip, zstd)");
      };
    }

    @Override
    public void release() {}
  }
}
