package io.kafkas3archiver.encode;

/** {@code OUTPUT_FORMAT}: the closed set of object formats, each with its extension. */
public enum Format {
  JSON("json", "application/json"),
  NDJSON("ndjson", "application/x-ndjson"),
  CSV("csv", "text/csv"),
  PARQUET("parquet", "application/vnd.apache.parquet");

  private final String extension;
  private final String contentType;

  Format(String extension, String contentType) {
    this.extension = extension;
    this.contentType = contentType;
  }

  /** The name in configuration ({@code OUTPUT_FORMAT}, {@code COMPRESSION}). */
  public String configName() {
    return extension;
  }

  public String extension() {
    return extension;
  }

  public String contentType() {
    return contentType;
  }

  /** Whether the format compresses internally (per column) instead of wrapping the stream. */
  public boolean compressesItself() {
    return this == PARQUET;
  }
}
