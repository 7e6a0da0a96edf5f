package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.ParseProblem;
import io.kafkas3archiver.decode.RejectedRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code csv} (RFC 4180): a header row, then one row per record. Each value must be a JSON object;
 * the columns are the union of the batch's top-level fields in first-seen order, nested values are
 * JSON text, and null or missing fields are empty cells. Anything else is rejected to the error
 * object. With Kafka metadata, {@code kafka_*} columns come first.
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

  private record Row(KafkaRecord record, ObjectNode fields) {}

  @Override
  public EncodeResult encode(List<KafkaRecord> records, OutputStream out) throws IOException {
    List<Row> rows = new ArrayList<>(records.size());
    List<RejectedRecord> rejected = new ArrayList<>();
    Set<String> columns = new LinkedHashSet<>();
    boolean binaryKeys = false;
    int tombstones = 0;
    for (KafkaRecord record : records) {
      if (record.isTombstone()) {
        if (includeKafkaMetadata) {
          rows.add(new Row(record, null));
          binaryKeys |= record.key() != null && !Utf8.isValid(record.key());
        } else {
          tombstones++;
        }
        continue;
      }
      String problem = null;
      ObjectNode fields = null;
      if (!Utf8.isValid(record.value())) {
        problem = "csv needs a JSON object value; this value is not UTF-8 text";
      } else {
        try {
          JsonNode node = Json.TREE_MAPPER.readTree(record.value());
          if (node instanceof ObjectNode object) {
            fields = object;
          } else {
            problem =
                "csv needs a JSON object value; this value is "
                    + (node == null
                        ? "empty"
                        : "a JSON " + node.getNodeType().name().toLowerCase());
          }
        } catch (JacksonException e) {
          problem =
              "csv needs a JSON object value; this value is not JSON: " + ParseProblem.describe(e);
        }
      }
      if (problem != null) {
        rejected.add(RejectedRecord.of(record, problem));
        continue;
      }
      fields.fieldNames().forEachRemaining(columns::add);
      binaryKeys |= record.key() != null && !Utf8.isValid(record.key());
      rows.add(new Row(record, fields));
    }
    if (rows.isEmpty()) {
      return new EncodeResult(0, tombstones, rejected);
    }
    List<String> header = new ArrayList<>();
    if (includeKafkaMetadata) {
      header.addAll(METADATA_COLUMNS);
      if (binaryKeys) {
        header.add(KEY_BASE64_COLUMN);
      }
    }
    header.addAll(columns);
    BufferedWriter writer =
        new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 64 * 1024);
    CSVPrinter printer = new CSVPrinter(writer, FORMAT);
    printer.printRecord(header);
    List<Object> cells = new ArrayList<>(header.size());
    for (Row row : rows) {
      cells.clear();
      if (includeKafkaMetadata) {
        addMetadata(cells, row.record(), binaryKeys);
      }
      for (String column : columns) {
        cells.add(Json.cellText(row.fields() == null ? null : row.fields().get(column)));
      }
      printer.printRecord(cells);
    }
    printer.flush();
    writer.flush();
    return new EncodeResult(rows.size(), tombstones, rejected);
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
