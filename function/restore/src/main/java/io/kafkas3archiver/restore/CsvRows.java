package io.kafkas3archiver.restore;

import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.encode.KafkaColumns;
import io.kafkas3archiver.encode.TabularValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/** Reads a {@code csv} object back into records: the {@code kafka_*} columns, then the value. */
final class CsvRows {
  private static final CSVFormat FORMAT =
      CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get();

  private CsvRows() {}

  static ObjectRows read(byte[] body, String topic, long ordinal) throws IOException {
    List<ArchivedRecord> records = new ArrayList<>();
    int otherTopic = 0;
    try (Reader reader =
            new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8);
        CSVParser parser = CSVParser.parse(reader, FORMAT)) {
      List<String> names = parser.getHeaderNames();
      Columns cols = Columns.of(names);
      int row = 0;
      for (CSVRecord r : parser) {
        List<TabularValue.Cell> cells = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
          if (!cols.isMetadata(i)) {
            cells.add(new TabularValue.Cell(names.get(i), r.get(i), false));
          }
        }
        byte[] value = TabularValue.rebuild(cells);
        if (!cols.metadata()) {
          records.add(ArchivedRecord.valueOnly(ordinal, row++, value));
          continue;
        }
        row++;
        if (!topic.equals(r.get(cols.topic))) {
          otherTopic++;
          continue;
        }
        String ts = r.get(cols.timestamp);
        byte[] key = null;
        if (cols.keyBase64 >= 0 && !r.get(cols.keyBase64).isEmpty()) {
          key = Base64.getDecoder().decode(r.get(cols.keyBase64));
        } else if (!r.get(cols.key).isEmpty()) {
          key = r.get(cols.key).getBytes(StandardCharsets.UTF_8);
        }
        List<Header> headers = HeadersText.parse(r.get(cols.headers));
        if (cols.exact >= 0 && !r.get(cols.exact).isEmpty()) {
          TabularValue.Exact exact = TabularValue.exact(r.get(cols.exact));
          key = exact.hasKey() ? exact.key() : key;
          value = TabularValue.value(cells, exact);
        }
        records.add(
            new ArchivedRecord(
                Integer.parseInt(r.get(cols.partition)),
                Long.parseLong(r.get(cols.offset)),
                ts.isEmpty() ? -1 : Long.parseLong(ts),
                key,
                value,
                headers,
                false));
      }
      return new ObjectRows(records, cols.metadata(), otherTopic, 0);
    }
  }

  /** Where the {@code kafka_*} columns are; {@code -1} when absent. */
  record Columns(
      int topic,
      int partition,
      int offset,
      int timestamp,
      int timestampType,
      int key,
      int headers,
      int keyBase64,
      int exact) {
    static Columns of(List<String> names) {
      return new Columns(
          names.indexOf("kafka_topic"),
          names.indexOf("kafka_partition"),
          names.indexOf("kafka_offset"),
          names.indexOf("kafka_timestamp"),
          names.indexOf("kafka_timestamp_type"),
          names.indexOf("kafka_key"),
          names.indexOf("kafka_headers"),
          names.indexOf("kafka_key_base64"),
          names.indexOf(KafkaColumns.EXACT));
    }

    boolean metadata() {
      return offset >= 0 && partition >= 0;
    }

    boolean isMetadata(int i) {
      return metadata()
          && (i == topic
              || i == partition
              || i == offset
              || i == timestamp
              || i == key
              || i == headers
              || i == timestampType
              || i == keyBase64
              || i == exact);
    }
  }
}
