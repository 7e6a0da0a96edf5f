package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.schema.DeclaredSchema;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.SchemaSource;
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

  /**
   * As above, for a group of {@code topic} (which may hold no records): csv and parquet take their
   * columns from the topic's schema, which a batch with new fields extends, and persists, before
   * {@code deadline}.
   */
  default EncodeResult encode(
      String topic, List<KafkaRecord> records, OutputStream out, Deadline deadline)
      throws IOException, UploadException {
    return encode(records, out);
  }

  /**
   * The uncompressed body's size when the records are of the usual kind, the first chunk of its
   * {@link BodyBuffer}: each value plus two bytes, tombstones 16. JSON values-only objects know it
   * exactly, so their body is handed to the upload without a copy.
   */
  default long expectedSize(List<KafkaRecord> records) {
    long total = 0;
    for (KafkaRecord r : records) {
      total += r.value() == null ? 16 : r.value().length + 2;
    }
    return total;
  }

  /** The topic of a group's records; empty for an empty group. */
  static String topicOf(List<KafkaRecord> records) {
    return records.isEmpty() ? "" : records.get(0).topic();
  }

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

  /** As above, with a declared schema (used by Parquet only). */
  static Encoder forFormat(
      Format format,
      Compression compression,
      boolean includeKafkaMetadata,
      Optional<DeclaredSchema> parquetSchema) {
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
      Optional<DeclaredSchema> parquetSchema,
      SchemaCatalog registry) {
    return forFormat(
        format,
        compression,
        includeKafkaMetadata,
        registry,
        parquetSchema.isEmpty()
            ? SchemaSource.inMemory()
            : SchemaSource.declaring(SchemaSource.inMemory(), parquetSchema::get));
  }

  /**
   * As above, with the source of each topic's schema (csv and parquet), its declared schema
   * included (Parquet only).
   */
  static Encoder forFormat(
      Format format,
      Compression compression,
      boolean includeKafkaMetadata,
      SchemaCatalog registry,
      SchemaSource schemas) {
    return switch (format) {
      case JSON -> new JsonEncoder(true, includeKafkaMetadata);
      case NDJSON -> new JsonEncoder(false, includeKafkaMetadata);
      case CSV -> new CsvEncoder(includeKafkaMetadata, schemas);
      case PARQUET -> new ParquetEncoder(compression, includeKafkaMetadata, registry, schemas);
      case ICEBERG ->
          throw new UnsupportedOperationException(
              "OUTPUT_FORMAT=iceberg is written by the table writer, not by an object encoder");
    };
  }
}
