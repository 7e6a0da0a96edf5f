package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.schema.TopicSchema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code csv} (RFC 4180): a header row, then one row per record. Each value must be a JSON object;
 * anything else is rejected to the error object.
 *
 * <p>The columns never move, because Athena reads csv by position: with Kafka metadata, the {@code
 * kafka_*} columns first (all of them, {@code kafka_key_base64} and {@code kafka_exact} included,
 * empty where not needed); then {@code _overflow}; then every column of the topic's schema version
 * ({@link TopicSchema}), in its order, so a new column is always appended at the end. Strings are
 * written as is, numbers exactly as received, nested values as compact JSON, null or missing fields
 * as empty cells. A field without a column, or whose value its column's type cannot hold (the same
 * rule as parquet's), goes into {@code _overflow} as one JSON object.
 */
public final class CsvEncoder implements Encoder {
  static final List<String> METADATA_COLUMNS =
      List.of(
          "kafka_topic",
          "kafka_partition",
          "kafka_offset",
          "kafka_timestamp",
          "kafka_timestamp_type",
          "kafka_key",
          "kafka_headers",
          ParquetSchema.KEY_BASE64,
          KafkaColumns.EXACT);

  private final boolean includeKafkaMetadata;
  private final SchemaSource schemas;

  CsvEncoder(boolean includeKafkaMetadata) {
    this(includeKafkaMetadata, SchemaSource.inMemory());
  }

  CsvEncoder(boolean includeKafkaMetadata, SchemaSource schemas) {
    this.includeKafkaMetadata = includeKafkaMetadata;
    this.schemas = schemas;
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
    TabularBatch batch = TabularBatch.read(records, "csv", includeKafkaMetadata);
    List<String> reserved = ColumnPlan.reserved(ParquetSchema.METADATA, List.of());
    TopicSchema version =
        schemas.schemaFor(
            topic, ColumnPlan.additions(batch, schemas.known(topic), 0), reserved, deadline);
    ColumnPlan plan = ColumnPlan.of(version);
    CsvWriter csv = new CsvWriter(out);
    if (includeKafkaMetadata) {
      for (String name : METADATA_COLUMNS) {
        csv.cell(name);
      }
    }
    csv.cell(ColumnPlan.OVERFLOW);
    for (ColumnPlan.Column c : plan.columns()) {
      csv.cell(c.name());
    }
    csv.endRecord();
    List<TabularBatch.Field> rest = new ArrayList<>();
    TabularBatch.Field[] fields = new TabularBatch.Field[plan.columns().size()];
    List<TabularValue.Cell> exactCells = new ArrayList<>();
    Set<String> nulls = new HashSet<>();
    Set<String> strings = new HashSet<>();
    int misfits = 0;
    try (OverflowText overflowText = new OverflowText()) {
      for (TabularBatch.Row row : batch.rows()) {
        rest.clear();
        misfits += plan.cells(row.fields(), fields, rest);
        String overflow = rest.isEmpty() ? null : overflowText.of(rest);
        if (includeKafkaMetadata) {
          writeMetadata(csv, row.record());
          csv.cell(exactCell(row.record(), plan, fields, overflow, exactCells, nulls, strings));
        }
        csv.cell(overflow);
        for (TabularBatch.Field f : fields) {
          if (f != null && f.hasUtf8()) {
            csv.cell(f.utf8Source(), f.utf8Offset(), f.utf8Length());
          } else {
            csv.cell(f == null ? null : f.text());
          }
        }
        csv.endRecord();
      }
    }
    csv.flush();
    return new EncodeResult(
        batch.rows().size(), batch.tombstonesSkipped(), batch.rejected(), misfits);
  }

  /**
   * What the restore could not rebuild from the row's cells ({@link TabularValue}), in the file's
   * order: a csv reader sees every value cell as text, the overflow column as JSON.
   */
  private static String exactCell(
      KafkaRecord record,
      ColumnPlan plan,
      TabularBatch.Field[] fields,
      String overflow,
      List<TabularValue.Cell> cells,
      Set<String> nulls,
      Set<String> strings) {
    cells.clear();
    nulls.clear();
    strings.clear();
    cells.add(new TabularValue.Cell(ColumnPlan.OVERFLOW, overflow, true));
    for (int c = 0; c < fields.length; c++) {
      TabularBatch.Field f = fields[c];
      String name = plan.columns().get(c).name();
      cells.add(new TabularValue.Cell(name, f == null ? null : f.text(), false));
      if (f != null && f.kind() == TabularBatch.Kind.NULL) {
        nulls.add(name);
      } else if (f != null && f.kind() == TabularBatch.Kind.STRING) {
        strings.add(name);
      }
    }
    return TabularValue.exactCell(record, cells, nulls, strings, true);
  }

  private static void writeMetadata(CsvWriter csv, KafkaRecord r) throws IOException {
    csv.cell(r.topic());
    csv.cell(r.partition());
    csv.cell(r.offset());
    csv.cell(r.timestamp());
    csv.cell(r.timestampType());
    boolean textKey = r.key() != null && Utf8.isValid(r.key());
    csv.cell(textKey ? new String(r.key(), StandardCharsets.UTF_8) : null);
    csv.cell(Json.headersText(r));
    csv.cell(r.key() != null && !textKey ? Base64.getEncoder().encodeToString(r.key()) : null);
  }
}
