package io.kafkas3archiver.encode;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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

  private ParquetCodecs() {}

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return switch (codec) {
      case UNCOMPRESSED -> new Compressor(codec, bytes -> bytes);
      case SNAPPY ->
          new Compressor(codec, bytes -> BytesInput.from(Snappy.compress(bytes.toByteArray())));
      case ZSTD ->
          new Compressor(
              codec,
              bytes -> BytesInput.from(Zstd.compress(bytes.toByteArray(), Compression.ZSTD_LEVEL)));
      case GZIP -> new Compressor(codec, ParquetCodecs::gzip);
      default -> throw new IllegalArgumentException("no compressor for " + codec);
    };
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("the archiver only writes Parquet");
  }

  @Override
  public void release() {}

  private static BytesInput gzip(BytesInput bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.max(64, bytes.size() / 2));
    try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
      bytes.writeAllTo(gz);
    }
    return BytesInput.from(out.toByteArray());
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
