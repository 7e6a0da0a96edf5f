package io.kafkas3archiver.encode;

import io.kafkas3archiver.decode.KafkaRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code csv} (RFC 4180): a header row, then one row per record. Each value must be a JSON object;
 * the columns are the batch's top-level fields in first-seen order, capped by {@link ColumnPlan}
 * (fields past the cap go into {@code _overflow} as one JSON object). Strings are written as is,
 * numbers exactly as received, nested values as compact JSON, null or missing fields as empty
 * cells. Anything else is rejected to the error object. With Kafka metadata, {@code kafka_*}
 * columns come first, and header names stay unique.
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
          "kafka_headers");
  private static final String KEY_BASE64_COLUMN = "kafka_key_base64";

  private static final CSVFormat FORMAT =
      CSVFormat.RFC4180.builder().setRecordSeparator("\r\n").get();

  private final boolean includeKafkaMetadata;

  CsvEncoder(boolean includeKafkaMetadata) {
    this.includeKafkaMetadata = includeKafkaMetadata;
  }

  @Override
  public EncodeResult encode(List<KafkaRecord> records, OutputStream out) throws IOException {
    TabularBatch batch = TabularBatch.read(records, "csv", includeKafkaMetadata);
    if (batch.rows().isEmpty()) {
      return new EncodeResult(0, batch.tombstonesSkipped(), batch.rejected());
    }
    boolean binaryKeys = batch.binaryKeys();
    List<String> metadata = new ArrayList<>();
    if (includeKafkaMetadata) {
      metadata.addAll(METADATA_COLUMNS);
      if (binaryKeys) {
        metadata.add(KEY_BASE64_COLUMN);
      }
    }
    List<String> reserved = new ArrayList<>(METADATA_COLUMNS);
    reserved.add(KEY_BASE64_COLUMN);
    reserved.add(KafkaColumns.EXACT);
    ColumnPlan plan = ColumnPlan.plan(batch, reserved, false);
    boolean overflow = false;
    for (TabularBatch.Row row : batch.rows()) {
      if (row.fields() != null) {
        for (TabularBatch.Field f : row.fields()) {
          if (plan.indexOf(f.name()) < 0) {
            overflow = true;
            break;
          }
        }
      }
      if (overflow) {
        break;
      }
    }
    List<String> header = new ArrayList<>(metadata);
    plan.columns().forEach(c -> header.add(c.name()));
    if (overflow) {
      header.add(ColumnPlan.OVERFLOW);
    }
    String[] exact = includeKafkaMetadata ? exactCells(batch, plan, overflow) : null;
    boolean exactColumn = exact != null && Arrays.stream(exact).anyMatch(e -> e != null);
    if (exactColumn) {
      header.add(includeKafkaMetadata ? metadata.size() : 0, KafkaColumns.EXACT);
    }
    BufferedWriter writer =
        new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 64 * 1024);
    CSVPrinter printer = new CSVPrinter(writer, FORMAT);
    printer.printRecord(header);
    List<Object> cells = new ArrayList<>(header.size());
    List<TabularBatch.Field> rest = new ArrayList<>();
    int rowIndex = 0;
    for (TabularBatch.Row row : batch.rows()) {
      cells.clear();
      rest.clear();
      if (includeKafkaMetadata) {
        addMetadata(cells, row.record(), binaryKeys);
      }
      if (exactColumn) {
        cells.add(exact[rowIndex]);
      }
      rowIndex++;
      for (TabularBatch.Field f : plan.cells(row.fields(), rest, null)) {
        cells.add(f == null ? null : f.text());
      }
      if (overflow) {
        cells.add(rest.isEmpty() ? null : TabularBatch.objectText(rest));
      }
      printer.printRecord(cells);
    }
    printer.flush();
    writer.flush();
    return new EncodeResult(batch.rows().size(), batch.tombstonesSkipped(), batch.rejected());
  }

  /**
   * Per row, what the restore could not rebuild from the row's cells ({@link TabularValue}): a csv
   * reader sees every value cell as text, the overflow column as JSON.
   */
  private static String[] exactCells(TabularBatch batch, ColumnPlan plan, boolean overflow) {
    String[] exact = new String[batch.rows().size()];
    List<TabularBatch.Field> rest = new ArrayList<>();
    List<TabularValue.Cell> cells = new ArrayList<>();
    Set<String> nulls = new HashSet<>();
    Set<String> strings = new HashSet<>();
    for (int i = 0; i < exact.length; i++) {
      TabularBatch.Row row = batch.rows().get(i);
      rest.clear();
      cells.clear();
      nulls.clear();
      strings.clear();
      TabularBatch.Field[] fields = plan.cells(row.fields(), rest, null);
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
      if (overflow && !rest.isEmpty()) {
        cells.add(new TabularValue.Cell(ColumnPlan.OVERFLOW, TabularBatch.objectText(rest), true));
      }
      exact[i] = TabularValue.exactCell(row.record(), cells, nulls, strings, true);
    }
    return exact;
  }

  private static void addMetadata(List<Object> cells, KafkaRecord r, boolean binaryKeys)
      throws IOException {
    cells.add(r.topic());
    cells.add(r.partition());
    cells.add(r.offset());
    cells.add(r.timestamp());
    cells.add(r.timestampType());
    boolean textKey = r.key() != null && Utf8.isValid(r.key());
    cells.add(textKey ? new String(r.key(), StandardCharsets.UTF_8) : null);
    cells.add(Json.headersText(r));
    if (binaryKeys) {
      cells.add(r.key() != null && !textKey ? Base64.getEncoder().encodeToString(r.key()) : null);
    }
  }
}
