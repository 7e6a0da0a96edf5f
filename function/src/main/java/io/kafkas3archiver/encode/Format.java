package io.kafkas3archiver.encode;

/** {@code OUTPUT_FORMAT}: the closed set of object formats, each with its extension. */
public enum Format {
  JSON("json", "json", "application/json"),
  NDJSON("ndjson", "ndjson", "application/x-ndjson"),
  CSV("csv", "csv", "text/csv"),
  PARQUET("parquet", "parquet", "application/vnd.apache.parquet"),
  /**
   * Parquet data files committed to an Apache Iceberg table (DESIGN §9). Written by the table
   * writer of the iceberg artifact, not by an {@link Encoder}; the plain artifact fails init.
   */
  ICEBERG("iceberg", "parquet", "application/vnd.apache.parquet");

  private final String configName;
  private final String extension;
  private final String contentType;

  Format(String configName, String extension, String contentType) {
    this.configName = configName;
    this.extension = extension;
    this.contentType = contentType;
  }

  /** The name in configuration ({@code OUTPUT_FORMAT}, {@code COMPRESSION}). */
  public String configName() {
    return configName;
  }

  public String extension() {
    return extension;
  }

  public String contentType() {
    return contentType;
  }

  /** Whether the format compresses internally (per column) instead of wrapping the stream. */
  public boolean compressesItself() {
    return this == PARQUET || this == ICEBERG;
  }

  /** Whether batches are committed to a table instead of put as objects. */
  public boolean isTable() {
    return this == ICEBERG;
  }
}
