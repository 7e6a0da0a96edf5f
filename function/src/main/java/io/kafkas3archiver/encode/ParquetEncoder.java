package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.ParseProblem;
import io.kafkas3archiver.decode.RejectedRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * {@code parquet}: one file per group, its schema inferred from the group's values ({@link
 * ParquetSchema}). Like csv, each value must be a JSON object; anything else is rejected to the
 * error object. The codec is applied per column chunk, by {@link ParquetCodecs}.
 *
 * <p>Hadoop stays off the run-time classpath: the file is written to the output stream through an
 * {@link org.apache.parquet.io.OutputFile}, configured by a {@link PlainParquetConfiguration}, with
 * our own codec factory. The two overloads that take Hadoop's {@code Configuration} exist only
 * because parquet-hadoop declares them abstract; they are never called.
 *
 * <p>The bytes depend on the records only: the footer's {@code created_by} is parquet's fixed
 * version string, and no time or random value is written, so a retried batch gives the same file.
 */
public final class ParquetEncoder implements Encoder {
  /** One row group per file: a batch is at most 6 MB, and readers parallelise across files. */
  private static final long ROW_GROUP_BYTES = 128L * 1024 * 1024;

  private final Compression compression;
  private final boolean includeKafkaMetadata;

  ParquetEncoder(Compression compression, boolean includeKafkaMetadata) {
    this.compression = compression;
    this.includeKafkaMetadata = includeKafkaMetadata;
    prime();
  }

  /**
   * Writes one throw-away file at construction, which happens at init: parquet's classes and the
   * codec's native library load there (where SnapStart snapshots them, and where Lambda gives the
   * function full CPU), not in the first batch. A codec that cannot load fails the init.
   */
  private void prime() {
    byte[] value =
        ("{\"n\": 1, \"x\": 0.5, \"ok\": true, \"at\": \"2026-01-01T00:00:00Z\","
                + " \"s\": \"text\", \"o\": {\"a\": [1]}}")
            .getBytes(StandardCharsets.UTF_8);
    KafkaRecord record = new KafkaRecord("prime", 0, 0, 0, "CREATE_TIME", null, value, List.of());
    try {
      encode(List.of(record), OutputStream.nullOutputStream());
    } catch (IOException e) {
      throw new UncheckedIOException("could not write a Parquet file with " + compression, e);
    }
  }

  /** A record and its value's fields; {@code fields} is null for a tombstone kept as a row. */
  private record Row(KafkaRecord record, ObjectNode fields) {}

  @Override
  public EncodeResult encode(List<KafkaRecord> records, OutputStream out) throws IOException {
    List<Row> rows = new ArrayList<>(records.size());
    List<ObjectNode> values = new ArrayList<>(records.size());
    List<RejectedRecord> rejected = new ArrayList<>();
    boolean binaryKeys = false;
    int tombstones = 0;
    for (KafkaRecord record : records) {
      if (record.isTombstone()) {
        if (includeKafkaMetadata) {
          rows.add(new Row(record, null));
          values.add(null);
          binaryKeys |= record.key() != null && !Utf8.isValid(record.key());
        } else {
          tombstones++;
        }
        continue;
      }
      ObjectNode fields = null;
      String problem;
      if (!Utf8.isValid(record.value())) {
        problem = "parquet needs a JSON object value; this value is not UTF-8 text";
      } else {
        try {
          JsonNode node = Json.TREE_MAPPER.readTree(record.value());
          if (node instanceof ObjectNode object) {
            fields = object;
            problem = null;
          } else {
            problem =
                "parquet needs a JSON object value; this value is "
                    + (node == null || node.isMissingNode()
                        ? "empty"
                        : "a JSON " + node.getNodeType().name().toLowerCase());
          }
        } catch (JacksonException e) {
          problem =
              "parquet needs a JSON object value; this value is not JSON: "
                  + ParseProblem.describe(e);
        }
      }
      if (problem != null) {
        rejected.add(RejectedRecord.of(record, problem));
        continue;
      }
      binaryKeys |= record.key() != null && !Utf8.isValid(record.key());
      rows.add(new Row(record, fields));
      values.add(fields);
    }
    if (rows.isEmpty()) {
      return new EncodeResult(0, tombstones, rejected);
    }
    ParquetSchema schema = ParquetSchema.infer(values, includeKafkaMetadata, binaryKeys);
    if (schema.messageType().getFieldCount() == 0) {
      // Every value is {} and there are no metadata columns: Parquet cannot hold a row with no
      // columns, so the records go to the error object rather than vanish.
      for (Row row : rows) {
        rejected.add(
            RejectedRecord.of(
                row.record(),
                "parquet needs at least one column; every value in this batch is an empty JSON"
                    + " object (set INCLUDE_KAFKA_METADATA=true to keep such records as rows)"));
      }
      return new EncodeResult(0, tombstones, rejected);
    }
    try (ParquetWriter<Row> writer =
        new Builder(new StreamOutputFile(out), new RowWriteSupport(schema))
            .withConf(new PlainParquetConfiguration())
            .withCodecFactory(ParquetCodecs.INSTANCE)
            .withCompressionCodec(codec(compression))
            .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
            .withRowGroupSize(ROW_GROUP_BYTES)
            .withDictionaryEncoding(true)
            .build()) {
      for (Row row : rows) {
        writer.write(row);
      }
    }
    return new EncodeResult(rows.size(), tombstones, rejected);
  }

  static CompressionCodecName codec(Compression compression) {
    return switch (compression) {
      case NONE -> CompressionCodecName.UNCOMPRESSED;
      case GZIP -> CompressionCodecName.GZIP;
      case SNAPPY -> CompressionCodecName.SNAPPY;
      case ZSTD -> CompressionCodecName.ZSTD;
    };
  }

  private static final class Builder extends ParquetWriter.Builder<Row, Builder> {
    private final WriteSupport<Row> writeSupport;

    Builder(org.apache.parquet.io.OutputFile file, WriteSupport<Row> writeSupport) {
      super(file);
      this.writeSupport = writeSupport;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Row> getWriteSupport(ParquetConfiguration conf) {
      return writeSupport;
    }

    @Override
    @Deprecated
    protected WriteSupport<Row> getWriteSupport(Configuration conf) {
      return writeSupport;
    }
  }

  /** Turns a row into Parquet record events, following the inferred schema. */
  private static final class RowWriteSupport extends WriteSupport<Row> {
    private final ParquetSchema schema;
    private RecordConsumer consumer;

    RowWriteSupport(ParquetSchema schema) {
      this.schema = schema;
    }

    @Override
    public String getName() {
      return "kafka-s3-archiver";
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
      return new WriteContext(schema.messageType(), Map.of());
    }

    @Override
    @Deprecated
    public WriteContext init(Configuration configuration) {
      return new WriteContext(schema.messageType(), Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(Row row) {
      consumer.startMessage();
      int index = 0;
      if (schema.metadata()) {
        index = writeMetadata(row.record());
      }
      for (ParquetSchema.Column column : schema.columns()) {
        JsonNode value = row.fields() == null ? null : row.fields().get(column.field());
        if (value != null && !value.isNull()) {
          consumer.startField(column.name(), index);
          switch (column.type()) {
            case BOOLEAN -> consumer.addBoolean(value.booleanValue());
            case LONG -> consumer.addLong(value.longValue());
            case DOUBLE -> consumer.addDouble(value.doubleValue());
            case TIMESTAMP -> consumer.addLong(ParquetSchema.instantMicros(value.textValue()));
            case STRING -> consumer.addBinary(Binary.fromString(Json.cellText(value)));
          }
          consumer.endField(column.name(), index);
        }
        index++;
      }
      consumer.endMessage();
    }

    private int writeMetadata(KafkaRecord r) {
      int i = 0;
      string(i++, ParquetSchema.TOPIC, r.topic());
      consumer.startField(ParquetSchema.PARTITION, i);
      consumer.addInteger(r.partition());
      consumer.endField(ParquetSchema.PARTITION, i++);
      consumer.startField(ParquetSchema.OFFSET, i);
      consumer.addLong(r.offset());
      consumer.endField(ParquetSchema.OFFSET, i++);
      if (r.timestamp() >= 0) {
        consumer.startField(ParquetSchema.TIMESTAMP, i);
        consumer.addLong(r.timestamp());
        consumer.endField(ParquetSchema.TIMESTAMP, i);
      }
      i++;
      string(i++, ParquetSchema.TIMESTAMP_TYPE, r.timestampType());
      boolean textKey = r.key() != null && Utf8.isValid(r.key());
      string(i++, ParquetSchema.KEY, textKey ? new String(r.key(), StandardCharsets.UTF_8) : null);
      string(i++, ParquetSchema.HEADERS, Json.headersText(r));
      if (schema.keyBase64()) {
        string(
            i++,
            ParquetSchema.KEY_BASE64,
            r.key() != null && !textKey ? Base64.getEncoder().encodeToString(r.key()) : null);
      }
      return i;
    }

    private void string(int index, String name, String value) {
      if (value != null) {
        consumer.startField(name, index);
        consumer.addBinary(Binary.fromString(value));
        consumer.endField(name, index);
      }
    }
  }
}
