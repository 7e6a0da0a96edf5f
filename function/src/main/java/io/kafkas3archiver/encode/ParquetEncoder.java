package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.decode.SchemaMetadata;
import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Row;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.schema.DeclaredSchema;
import io.kafkas3archiver.schema.FieldType;
import io.kafkas3archiver.schema.RegistrySchema;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.schema.TopicSchema;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * {@code parquet}: one file per group. Like csv, each value must be a JSON object; anything else is
 * rejected to the error object. Columns follow {@link ColumnPlan} (capped, with the {@code
 * _overflow} JSON column), their types {@link ParquetSchema} (fixed per JSON kind, so stable per
 * topic). The codec is applied per column chunk, by {@link ParquetCodecs}.
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
  private final SchemaCatalog registry;
  private final SchemaSource schemas;
  private final boolean forecast;
  private final ByteBufferAllocator allocator;

  ParquetEncoder(Compression compression, boolean includeKafkaMetadata) {
    this(compression, includeKafkaMetadata, SchemaCatalog.none(), SchemaSource.inMemory());
  }

  /**
   * With the registry whose schemas type the records that carry schema metadata, and the source of
   * each topic's schema: its declared schema ({@link SchemaSource#declared}) wins over the
   * registry, and both over inference (DESIGN §4).
   */
  ParquetEncoder(
      Compression compression,
      boolean includeKafkaMetadata,
      SchemaCatalog registry,
      SchemaSource schemas) {
    this(compression, includeKafkaMetadata, registry, schemas, true, null);
  }

  /**
   * {@code forecast} false leaves every column's dictionary to parquet-mr ({@link PlainColumns});
   * {@code allocator} null lends parquet-mr the thread's {@link PagePool}, another allocator is
   * used as it is. The tests that these change no byte compare them with parquet-mr alone.
   */
  ParquetEncoder(
      Compression compression,
      boolean includeKafkaMetadata,
      SchemaCatalog registry,
      SchemaSource schemas,
      boolean forecast,
      ByteBufferAllocator allocator) {
    this.compression = compression;
    this.includeKafkaMetadata = includeKafkaMetadata;
    this.registry = registry;
    this.schemas = schemas;
    this.forecast = forecast;
    this.allocator = allocator;
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
      // Its own schema source: priming must not persist a schema for a topic that does not exist.
      encode(
          SchemaSource.inMemory(),
          "prime",
          List.of(record),
          OutputStream.nullOutputStream(),
          Deadline.UNBOUNDED);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write a Parquet file with " + compression, e);
    } catch (UploadException e) {
      throw new IllegalStateException("an in-memory schema makes no request", e);
    }
  }

  @Override
  public EncodeResult encode(List<KafkaRecord> records, OutputStream out) throws IOException {
    try {
      return encode(Encoder.topicOf(records), records, out, Deadline.UNBOUNDED);
    } catch (UploadException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  @Override
  public EncodeResult encode(
      String topic, List<KafkaRecord> records, OutputStream out, Deadline deadline)
      throws IOException, UploadException {
    return encode(schemas, topic, records, out, deadline);
  }

  private EncodeResult encode(
      SchemaSource schemas,
      String topic,
      List<KafkaRecord> records,
      OutputStream out,
      Deadline deadline)
      throws IOException, UploadException {
    TabularBatch batch = TabularBatch.read(records, "parquet", includeKafkaMetadata);
    boolean schemaIds = false;
    for (KafkaRecord r : records) {
      schemaIds |= r.keySchema() != null || r.valueSchema() != null;
    }
    // Precedence (DESIGN §4): the declared schema, then the registry's, then inference.
    DeclaredSchema declared = schemas.declared();
    RegistryColumns typed = null;
    if (declared != null) {
      typed = new RegistryColumns(declared.columns(), ParquetSchema.METADATA, declared.origin());
      batch = typeDeclared(batch, typed);
    } else if (schemaIds) {
      RegistryColumns registryTyped = registryColumns(batch);
      if (registryTyped != null) {
        return encodeTyped(batch, registryTyped, out);
      }
    }
    // With no rows this still writes a valid, zero-row file: an object that claims a range of
    // offsets must be readable by every Parquet reader (DuckDB refuses a zero-byte .parquet).
    List<String> declaredNames = typed == null ? List.of() : typed.names();
    List<String> reserved = ColumnPlan.reserved(ParquetSchema.METADATA, declaredNames);
    TopicSchema version =
        schemas.schemaFor(
            topic,
            ColumnPlan.additions(batch, schemas.known(topic), declaredNames.size()),
            reserved,
            deadline);
    ColumnPlan plan = ColumnPlan.of(version, declaredNames);
    Map<Row, String> exact = includeKafkaMetadata ? exactCells(batch, plan, typed) : Map.of();
    // With metadata, the key and exact columns are in every object, needed or not, so that every
    // object of a version has the same columns.
    ParquetSchema schema =
        new ParquetSchema(includeKafkaMetadata, includeKafkaMetadata, schemaIds, plan, typed, true);
    RowWriteSupport support = new RowWriteSupport(schema, exact);
    write(support, batch.rows(), out);
    return new EncodeResult(
        batch.rows().size(), batch.tombstonesSkipped(), batch.rejected(), support.misfits);
  }

  /**
   * The registry schemas of the batch's values, merged; null when no registry is configured or no
   * value has a schema with columns (JSON Schema), so the columns are inferred.
   */
  private RegistryColumns registryColumns(TabularBatch batch) {
    if (!registry.configured()) {
      return null;
    }
    Map<String, List<FieldType.Column>> schemas = new LinkedHashMap<>();
    for (Row row : batch.rows()) {
      SchemaMetadata m = row.record().valueSchema();
      if (m != null && !schemas.containsKey(m.schemaId())) {
        schemas.put(
            m.schemaId(), registry.schemaFor(m).map(RegistrySchema::columns).orElse(List.of()));
      }
    }
    List<List<FieldType.Column>> withColumns = new ArrayList<>();
    schemas.values().stream().filter(c -> !c.isEmpty()).forEach(withColumns::add);
    return withColumns.isEmpty() ? null : new RegistryColumns(withColumns, ParquetSchema.METADATA);
  }

  /** The registry's columns, typed; a value that does not fit them goes to the error object. */
  private EncodeResult encodeTyped(TabularBatch batch, RegistryColumns typed, OutputStream out)
      throws IOException {
    List<Row> rows = new ArrayList<>(batch.rows().size());
    List<RejectedRecord> rejected = new ArrayList<>(batch.rejected());
    for (Row row : batch.rows()) {
      if (row.fields() == null) {
        rows.add(row);
        continue;
      }
      try {
        RegistryColumns.Cells cells = typed.convert(row.record().value());
        // Every field is in the cells or in their overflow: none is left for inferred columns.
        rows.add(new Row(row.record(), List.of(), cells));
      } catch (RegistryColumns.Mismatch e) {
        rejected.add(RejectedRecord.of(row.record(), e.getMessage()));
      }
    }
    ColumnPlan none = ColumnPlan.of(TopicSchema.empty(""));
    ParquetSchema schema =
        new ParquetSchema(includeKafkaMetadata, batch.binaryKeys(), true, none, typed);
    write(new RowWriteSupport(schema, Map.of()), rows, out);
    return new EncodeResult(rows.size(), batch.tombstonesSkipped(), rejected);
  }

  /**
   * Per row (only those that need one), what the restore could not rebuild from the row's cells
   * ({@link TabularValue}): a Parquet reader sees a number column's DECIMAL as its shortest plain
   * text, a boolean as JSON, any other column as text, and the overflow column as JSON.
   */
  private static Map<Row, String> exactCells(
      TabularBatch batch, ColumnPlan plan, RegistryColumns typed) {
    Map<Row, String> exact = new java.util.IdentityHashMap<>();
    List<Field> rest = new ArrayList<>();
    List<TabularValue.Cell> cells = new ArrayList<>();
    java.util.Set<String> nulls = new java.util.HashSet<>();
    java.util.Set<String> strings = new java.util.HashSet<>();
    List<ColumnPlan.Column> columns = plan.columns();
    Field[] fields = new Field[columns.size()];
    OverflowText overflowText = new OverflowText();
    for (Row row : batch.rows()) {
      rest.clear();
      cells.clear();
      nulls.clear();
      strings.clear();
      if (typed != null) {
        declaredCells(typed, row.typed(), cells, strings);
      }
      plan.cells(row.fields(), fields, rest);
      for (int c = 0; c < fields.length; c++) {
        Field f = fields[c];
        String name = columns.get(c).name();
        if (f == null || f.kind() == TabularBatch.Kind.NULL) {
          cells.add(new TabularValue.Cell(name, null, false));
          if (f != null) {
            nulls.add(name);
          }
          continue;
        }
        if (f.kind() == TabularBatch.Kind.STRING) {
          strings.add(name);
        }
        // As a Parquet reader prints the stored value, which is what the restore rebuilds from.
        cells.add(
            switch (columns.get(c).type()) {
              case BIGINT -> new TabularValue.Cell(name, Long.toString(f.longValue()), true);
              case DOUBLE -> new TabularValue.Cell(name, Double.toString(f.doubleValue()), true);
              case DECIMAL ->
                  new TabularValue.Cell(
                      name, TabularValue.decimalText(new java.math.BigDecimal(f.text())), true);
              case BOOLEAN -> new TabularValue.Cell(name, f.text(), true);
              case STRING, JSON -> new TabularValue.Cell(name, f.text(), false);
            });
      }
      if (!rest.isEmpty()) {
        cells.add(new TabularValue.Cell(ColumnPlan.OVERFLOW, overflowText.of(rest), true));
      }
      String cell = TabularValue.exactCell(row.record(), cells, nulls, strings, false);
      if (cell != null) {
        exact.put(row, cell);
      }
    }
    overflowText.close();
    return exact;
  }

  /**
   * The declared columns' cells as a reader prints them, for {@link TabularValue#exactCell}. Only
   * types whose printed value is the JSON one (string, boolean, int, bigint, double, json) are
   * given; any other declared value leaves its cell empty here, so the rebuild misses it and the
   * row keeps its value's exact bytes: a date or a decimal is never rebuilt from a reader's text.
   */
  private static void declaredCells(
      RegistryColumns typed,
      RegistryColumns.Cells values,
      List<TabularValue.Cell> cells,
      java.util.Set<String> strings) {
    for (int c = 0; c < typed.columns().size(); c++) {
      String name = typed.names().get(c);
      Object v = values == null ? null : values.cells()[c];
      FieldType type = typed.columns().get(c).type();
      String text = null;
      boolean json = true;
      if (v != null) {
        if (type == FieldType.Scalar.STRING || type instanceof FieldType.Json) {
          text = ((Binary) v).toStringUsingUTF8();
          json = false;
          if (type == FieldType.Scalar.STRING) {
            strings.add(name);
          }
        } else if (type == FieldType.Scalar.BOOLEAN
            || type == FieldType.Scalar.INT32
            || type == FieldType.Scalar.INT64
            || type == FieldType.Scalar.DOUBLE) {
          text = v.toString();
        }
      }
      cells.add(new TabularValue.Cell(name, text, json));
    }
  }

  /**
   * Types each row's declared fields ({@link RegistryColumns}, strict); a record whose value does
   * not match goes to the error object with the reason. The rows keep only their other fields,
   * which inference types.
   */
  private static TabularBatch typeDeclared(TabularBatch batch, RegistryColumns typed) {
    List<Row> rows = new ArrayList<>(batch.rows().size());
    List<RejectedRecord> rejected = new ArrayList<>(batch.rejected());
    java.util.Set<String> used = new java.util.HashSet<>();
    for (Row row : batch.rows()) {
      if (row.fields() == null) {
        rows.add(row);
        continue;
      }
      used.clear();
      try {
        RegistryColumns.Cells cells = typed.convertDeclared(row.record().value(), used);
        List<Field> rest = new ArrayList<>(row.fields().size());
        for (Field f : row.fields()) {
          if (!used.contains(f.name())) {
            rest.add(f);
          }
        }
        rows.add(new Row(row.record(), rest, cells));
      } catch (RegistryColumns.Mismatch e) {
        rejected.add(RejectedRecord.of(row.record(), e.getMessage()));
      }
    }
    return new TabularBatch(
        rows, rejected, batch.tombstonesSkipped(), batch.binaryKeys(), batch.valueBytes());
  }

  private void write(RowWriteSupport support, List<Row> rows, OutputStream out) throws IOException {
    Builder builder =
        new Builder(new StreamOutputFile(out), support)
            .withConf(new PlainParquetConfiguration())
            .withCodecFactory(ParquetCodecs.INSTANCE)
            .withCompressionCodec(codec(compression))
            .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
            .withRowGroupSize(ROW_GROUP_BYTES)
            .withDictionaryEncoding(true)
            .withAllocator(allocator != null ? allocator : PagePool.ofThisThread());
    // Parquet would build these columns' dictionaries only to drop them (PlainColumns).
    if (forecast) {
      for (String column : new PlainColumns().of(support.schema.plan(), rows)) {
        builder.withDictionaryEncoding(column, false);
      }
    }
    try (ParquetWriter<Row> writer = builder.build()) {
      for (Row row : rows) {
        writer.write(row);
      }
    } finally {
      if (allocator == null) {
        PagePool.ofThisThread().fileDone();
      }
    }
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
    private final Map<Row, String> exact;
    private final List<Field> overflow = new ArrayList<>();
    private final OverflowText overflowText = new OverflowText();
    private Field[] cells;
    private RecordConsumer consumer;

    /** Values that went to the overflow column because their column's type cannot hold them. */
    int misfits;

    RowWriteSupport(ParquetSchema schema, Map<Row, String> exact) {
      this.schema = schema;
      this.exact = exact;
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
    public FinalizedWriteContext finalizeWrite() {
      overflowText.close();
      return super.finalizeWrite();
    }

    @Override
    public void write(Row row) {
      consumer.startMessage();
      int index = 0;
      if (schema.metadata()) {
        index = writeMetadata(row.record());
        if (schema.exact()) {
          string(index++, KafkaColumns.EXACT, exact.get(row));
        }
      }
      // Typed columns (declared or registry) first, then the inferred ones: a registry's rows
      // have no fields left for these, and bring their overflow along.
      String typedOverflow = null;
      if (schema.typed() != null) {
        RegistryColumns.Cells typed = row.typed();
        if (typed != null) {
          schema.typed().write(consumer, typed.cells(), index);
          typedOverflow = typed.overflow();
        }
        index += schema.typed().columns().size();
      }
      List<ColumnPlan.Column> columns = schema.plan().columns();
      overflow.clear();
      if (cells == null) {
        cells = new Field[columns.size()];
      }
      misfits += schema.plan().cells(row.fields(), cells, overflow);
      for (int c = 0; c < cells.length; c++) {
        Field value = cells[c];
        if (value != null && value.kind() != TabularBatch.Kind.NULL) {
          String name = columns.get(c).name();
          consumer.startField(name, index);
          switch (columns.get(c).type()) {
            case BIGINT -> consumer.addLong(value.longValue());
            case DOUBLE -> consumer.addDouble(value.doubleValue());
            case BOOLEAN -> consumer.addBoolean(value.text().equals("true"));
            case DECIMAL -> consumer.addBinary(ParquetSchema.decimal(value.text()));
            case STRING, JSON ->
                consumer.addBinary(
                    value.hasUtf8()
                        ? Binary.fromConstantByteArray(
                            value.utf8Source(), value.utf8Offset(), value.utf8Length())
                        : utf8(value.text()));
          }
          consumer.endField(name, index);
        }
        index++;
      }
      if (!overflow.isEmpty()) {
        string(index, ColumnPlan.OVERFLOW, overflowText.of(overflow));
      } else {
        string(index, ColumnPlan.OVERFLOW, typedOverflow);
      }
      consumer.endMessage();
    }

    private int writeMetadata(KafkaRecord r) {
      int i = 0;
      string(i++, KafkaColumns.TOPIC, r.topic());
      consumer.startField(KafkaColumns.PARTITION, i);
      consumer.addInteger(r.partition());
      consumer.endField(KafkaColumns.PARTITION, i++);
      consumer.startField(KafkaColumns.OFFSET, i);
      consumer.addLong(r.offset());
      consumer.endField(KafkaColumns.OFFSET, i++);
      if (r.timestamp() >= 0) {
        consumer.startField(KafkaColumns.TIMESTAMP, i);
        consumer.addLong(r.timestamp());
        consumer.endField(KafkaColumns.TIMESTAMP, i);
      }
      i++;
      string(i++, KafkaColumns.TIMESTAMP_TYPE, r.timestampType());
      boolean textKey = r.key() != null && Utf8.isValid(r.key());
      string(i++, KafkaColumns.KEY, textKey ? new String(r.key(), StandardCharsets.UTF_8) : null);
      string(i++, KafkaColumns.HEADERS, Json.headersText(r));
      if (schema.keyBase64()) {
        string(
            i++,
            ParquetSchema.KEY_BASE64,
            r.key() != null && !textKey ? Base64.getEncoder().encodeToString(r.key()) : null);
      }
      if (schema.schemaIds()) {
        SchemaMetadata k = r.keySchema();
        SchemaMetadata v = r.valueSchema();
        string(i++, ParquetSchema.KEY_SCHEMA_ID, k == null ? null : k.schemaId());
        string(i++, ParquetSchema.KEY_DATA_FORMAT, k == null ? null : k.dataFormat());
        string(i++, ParquetSchema.VALUE_SCHEMA_ID, v == null ? null : v.schemaId());
        string(i++, ParquetSchema.VALUE_DATA_FORMAT, v == null ? null : v.dataFormat());
      }
      return i;
    }

    private void string(int index, String name, String value) {
      if (value != null) {
        consumer.startField(name, index);
        consumer.addBinary(utf8(value));
        consumer.endField(name, index);
      }
    }

    /**
     * The bytes that {@link Binary#fromString} gives, without its ByteBuffer: the writers keep a
     * constant array as it is (a dictionary entry or a statistic included).
     */
    private static Binary utf8(String text) {
      return Binary.fromConstantByteArray(text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
