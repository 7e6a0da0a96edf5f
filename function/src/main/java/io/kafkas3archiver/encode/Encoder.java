package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.schema.SchemaCatalog;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

/**
 * Writes a group's records in one format. Records the format cannot hold are returned as rejected,
 * never dropped. Implementations are stateless between calls and safe to reuse.
 */
public sealed interface Encoder permits JsonEncoder, CsvEncoder, ParquetEncoder {

  EncodeResult encode(List<KafkaRecord> records, OutputStream out) throws IOException;

  /** An encoder for a text format, or for Parquet without compression. */
  static Encoder forFormat(Format format, boolean includeKafkaMetadata) {
    return forFormat(format, Compression.NONE, includeKafkaMetadata);
  }

  /**
   * The encoder for {@code format}. Only Parquet uses {@code compression} (as its column codec);
   * text formats are compressed by wrapping their stream ({@link Compression#wrap}).
   */
  static Encoder forFormat(Format format, Compression compression, boolean includeKafkaMetadata) {
    return forFormat(format, compression, includeKafkaMetadata, Optional.empty());
  }

  /** As above, with PARQUET_SCHEMA's declared columns (used by Parquet only). */
  static Encoder forFormat(
      Format format,
      Compression compression,
      boolean includeKafkaMetadata,
      Optional<ExplicitSchema> parquetSchema) {
    return forFormat(
        format, compression, includeKafkaMetadata, parquetSchema, SchemaCatalog.none());
  }

  /**
   * As above, with the schema registry whose schemas type Parquet's columns for records that carry
   * schema metadata (used by Parquet only; text formats archive the converted JSON as it is).
   */
  static Encoder forFormat(
      Format format,
      Compression compression,
      boolean includeKafkaMetadata,
      Optional<ExplicitSchema> parquetSchema,
      SchemaCatalog registry) {
    return switch (format) {
      case JSON -> new JsonEncoder(true, includeKafkaMetadata);
      case NDJSON -> new JsonEncoder(false, includeKafkaMetadata);
      case CSV -> new CsvEncoder(includeKafkaMetadata);
      case PARQUET ->
          new ParquetEncoder(
              compression, includeKafkaMetadata, parquetSchema.orElse(null), registry);
      case ICEBERG ->
          throw new UnsupportedOperationException(
              "OUTPUT_FORMAT=iceberg is written by the table writer, not by an object encoder");
    };
  }
}
