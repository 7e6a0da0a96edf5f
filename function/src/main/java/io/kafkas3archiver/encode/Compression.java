package io.kafkas3archiver.encode;

import io.kafkas3archiver.config.ConfigChoice;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * {@code COMPRESSION}: the closed set of codecs. Text formats wrap their stream and add the
 * extension; Parquet applies the codec per column instead (and keeps its own extension).
 */
public enum Compression implements ConfigChoice {
  NONE("none", ""),
  GZIP("gzip", ".gz"),
  SNAPPY("snappy", ".snappy"),
  ZSTD("zstd", ".zst");

  private final String configName;
  private final String suffix;

  Compression(String configName, String suffix) {
    this.configName = configName;
    this.suffix = suffix;
  }

  @Override
  public String configName() {
    return configName;
  }

  /** The suffix a compressed text object gets after its format's extension. */
  public String suffix() {
    return suffix;
  }

  /** Whether this build can apply the codec; snappy and zstd arrive with the Parquet work. */
  public boolean available() {
    return this == NONE || this == GZIP;
  }

  /** Wraps a text format's output stream. Closing the wrapper finishes the codec's frame. */
  public OutputStream wrap(OutputStream out) throws IOException {
    return switch (this) {
      case NONE -> out;
      case GZIP -> new GZIPOutputStream(out, 64 * 1024);
      case SNAPPY, ZSTD ->
          throw new UnsupportedOperationException(configName + " is not available in this build");
    };
  }
}
