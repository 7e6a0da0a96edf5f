package io.kafkas3archiver.encode;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;
import org.xerial.snappy.SnappyFramedOutputStream;

/**
 * {@code COMPRESSION}: the closed set of codecs. Text formats wrap their stream and add the
 * extension; Parquet applies the codec per column instead (and keeps its own extension).
 *
 * <p>Text snappy is the <em>framed</em> format (snappy-java's {@code SnappyFramedOutputStream}, the
 * "framing format" of the Snappy project), because raw snappy has no stream form and no checksum.
 * Text zstd is one standard zstd frame at level {@value #ZSTD_LEVEL}.
 */
public enum Compression {
  NONE("none", ""),
  GZIP("gzip", ".gz"),
  SNAPPY("snappy", ".snappy"),
  ZSTD("zstd", ".zst");

  /** zstd's own default level, and Parquet's: a good speed/ratio balance for a 6 MB batch. */
  static final int ZSTD_LEVEL = 3;

  static final byte[] PRIMING_PROBE = {'{', '}', '\n'};

  private final String configName;
  private final String suffix;

  Compression(String configName, String suffix) {
    this.configName = configName;
    this.suffix = suffix;
  }

  /** The name in configuration ({@code OUTPUT_FORMAT}, {@code COMPRESSION}). */
  public String configName() {
    return configName;
  }

  /** The suffix a compressed text object gets after its format's extension. */
  public String suffix() {
    return suffix;
  }

  /**
   * Compresses a few bytes and throws them away, so that snappy's or zstd's native library loads at
   * init (and a codec that cannot load fails the init) rather than in the first batch. Returns the
   * compressed probe, so a test can check that the codec really ran.
   */
  public byte[] prime() {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (OutputStream out = wrap(compressed)) {
      out.write(PRIMING_PROBE);
    } catch (IOException e) {
      throw new UncheckedIOException("could not load the " + configName + " codec", e);
    }
    return compressed.toByteArray();
  }

  /** Wraps a text format's output stream. Closing the wrapper finishes the codec's frame. */
  public OutputStream wrap(OutputStream out) throws IOException {
    return switch (this) {
      case NONE -> out;
      case GZIP -> new GZIPOutputStream(out, 64 * 1024);
      case SNAPPY -> new SnappyFramedOutputStream(out);
      case ZSTD -> new ZstdOutputStreamNoFinalizer(out, ZSTD_LEVEL);
    };
  }
}
