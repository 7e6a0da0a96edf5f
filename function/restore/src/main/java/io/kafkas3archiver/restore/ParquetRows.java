package io.kafkas3archiver.restore;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.encode.KafkaColumns;
import io.kafkas3archiver.encode.TabularValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Reads a {@code parquet} object back into records, without Hadoop: the file is in memory (one
 * object at a time), pages are decompressed by {@link ParquetDecompressors}.
 */
final class ParquetRows {
  /**
   * Every metadata column an archive object may have, the schema registry's ids included: none of
   * them is part of the value (the archiver renames a value field that would collide).
   */
  private static final Set<String> METADATA_COLUMNS =
      Set.of(
          KafkaColumns.TOPIC,
          KafkaColumns.PARTITION,
          KafkaColumns.OFFSET,
          KafkaColumns.TIMESTAMP,
          KafkaColumns.TIMESTAMP_TYPE,
          KafkaColumns.KEY,
          KafkaColumns.HEADERS,
          KafkaColumns.EXACT,
          "kafka_key_base64",
          "kafka_key_schema_id",
          "kafka_key_data_format",
          "kafka_value_schema_id",
          "kafka_value_data_format");

  private ParquetRows() {}

  static ObjectRows read(byte[] body, String topic, long ordinal) throws IOException {
    ParquetReadOptions options =
        ParquetReadOptions.builder(new PlainParquetConfiguration())
            .withCodecFactory(ParquetDecompressors.INSTANCE)
            .build();
    List<ArchivedRecord> records = new ArrayList<>();
    int otherTopic = 0;
    boolean metadata;
    try (ParquetFileReader reader = ParquetFileReader.open(new BytesInputFile(body), options)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      List<Type> fields = schema.getFields();
      int topicCol = index(schema, "kafka_topic");
      int partitionCol = index(schema, "kafka_partition");
      int offsetCol = index(schema, "kafka_offset");
      int timestampCol = index(schema, "kafka_timestamp");
      int timestampTypeCol = index(schema, "kafka_timestamp_type");
      int keyCol = index(schema, "kafka_key");
      int headersCol = index(schema, "kafka_headers");
      int keyBase64Col = index(schema, "kafka_key_base64");
      int exactCol = index(schema, KafkaColumns.EXACT);
      metadata = partitionCol >= 0 && offsetCol >= 0;
      int row = 0;
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> rr =
            new ColumnIOFactory()
                .getColumnIO(schema)
                .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = rr.read();
          List<TabularValue.Cell> cells = new ArrayList<>();
          for (int c = 0; c < fields.size(); c++) {
            if (metadata && METADATA_COLUMNS.contains(fields.get(c).getName())) {
              continue;
            }
            cells.add(cell(g, c, fields.get(c)));
          }
          byte[] value = TabularValue.rebuild(cells);
          if (!metadata) {
            records.add(ArchivedRecord.valueOnly(ordinal, row++, value));
            continue;
          }
          row++;
          if (topicCol >= 0 && !topic.equals(g.getString(topicCol, 0))) {
            otherTopic++;
            continue;
          }
          byte[] key = null;
          if (keyBase64Col >= 0 && present(g, keyBase64Col)) {
            key = Base64.getDecoder().decode(g.getString(keyBase64Col, 0));
          } else if (keyCol >= 0 && present(g, keyCol)) {
            key = g.getString(keyCol, 0).getBytes(StandardCharsets.UTF_8);
          }
          List<Header> headers =
              headersCol >= 0 && present(g, headersCol)
                  ? HeadersText.parse(g.getString(headersCol, 0))
                  : List.of();
          long timestamp =
              timestampCol >= 0 && present(g, timestampCol) ? g.getLong(timestampCol, 0) : -1;
          if (exactCol >= 0 && present(g, exactCol)) {
            TabularValue.Exact exact = TabularValue.exact(g.getString(exactCol, 0));
            key = exact.hasKey() ? exact.key() : key;
            value = TabularValue.value(cells, exact);
          }
          records.add(
              new ArchivedRecord(
                  g.getInteger(partitionCol, 0),
                  g.getLong(offsetCol, 0),
                  timestamp,
                  key,
                  value,
                  headers,
                  false));
        }
      }
    }
    return new ObjectRows(records, metadata, otherTopic, 0);
  }

  private static int index(MessageType schema, String name) {
    return schema.containsField(name) ? schema.getFieldIndex(name) : -1;
  }

  private static boolean present(Group g, int c) {
    return g.getFieldRepetitionCount(c) > 0;
  }

  /** A value column's cell as JSON text (numbers, booleans) or as text (strings, instants). */
  private static TabularValue.Cell cell(Group g, int c, Type type) {
    String name = type.getName();
    if (!present(g, c)) {
      return new TabularValue.Cell(name, null, false);
    }
    if (!type.isPrimitive()) {
      // A declared struct<…>, array<…> or map<string,…> (a Parquet group, LIST or MAP): its JSON.
      return new TabularValue.Cell(name, json(g.getGroup(c, 0), type.asGroupType()), true);
    }
    PrimitiveType p = type.asPrimitiveType();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    return switch (p.getPrimitiveTypeName()) {
      case BOOLEAN -> new TabularValue.Cell(name, Boolean.toString(g.getBoolean(c, 0)), true);
      case INT32 -> new TabularValue.Cell(name, Integer.toString(g.getInteger(c, 0)), true);
      case INT64 -> {
        long v = g.getLong(c, 0);
        if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
          Instant instant =
              switch (ts.getUnit()) {
                case MILLIS -> Instant.ofEpochMilli(v);
                case MICROS ->
                    Instant.ofEpochSecond(
                        Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1_000L);
                case NANOS ->
                    Instant.ofEpochSecond(
                        Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
              };
          yield new TabularValue.Cell(name, instant.toString(), false);
        }
        yield new TabularValue.Cell(name, Long.toString(v), true);
      }
      case DOUBLE -> new TabularValue.Cell(name, Double.toString(g.getDouble(c, 0)), true);
      case FLOAT -> new TabularValue.Cell(name, Float.toString(g.getFloat(c, 0)), true);
      case FIXED_LEN_BYTE_ARRAY, BINARY -> {
        // The archiver types every JSON number DECIMAL(38,9): back to the shortest plain text
        // ("19.400000000" -> "19.4"); other binary columns are UTF-8 text.
        if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
          BigDecimal v = new BigDecimal(new BigInteger(g.getBinary(c, 0).getBytes()), d.getScale());
          yield new TabularValue.Cell(name, TabularValue.decimalText(v), true);
        }
        yield new TabularValue.Cell(name, g.getString(c, 0), false);
      }
      default -> new TabularValue.Cell(name, g.getString(c, 0), false);
    };
  }

  /** A group column's value as JSON: a LIST as an array, a MAP as an object, a struct as one. */
  private static String json(Group g, GroupType type) {
    LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
    StringBuilder out = new StringBuilder();
    if (logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      out.append('[');
      int n = g.getFieldRepetitionCount(0); // repeated group list { optional element }
      for (int i = 0; i < n; i++) {
        Group item = g.getGroup(0, i);
        out.append(i > 0 ? "," : "")
            .append(jsonOf(item, 0, type.getType(0).asGroupType().getType(0)));
      }
      return out.append(']').toString();
    }
    if (logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation) {
      out.append('{');
      int n = g.getFieldRepetitionCount(0); // repeated group key_value { key, value }
      GroupType entry = type.getType(0).asGroupType();
      for (int i = 0; i < n; i++) {
        Group kv = g.getGroup(0, i);
        out.append(i > 0 ? "," : "")
            .append(quoted(kv.getString(0, 0)))
            .append(':')
            .append(jsonOf(kv, 1, entry.getType(1)));
      }
      return out.append('}').toString();
    }
    out.append('{');
    boolean first = true;
    for (int f = 0; f < type.getFieldCount(); f++) {
      if (!present(g, f)) {
        continue;
      }
      out.append(first ? "" : ",")
          .append(quoted(type.getType(f).getName()))
          .append(':')
          .append(jsonOf(g, f, type.getType(f)));
      first = false;
    }
    return out.append('}').toString();
  }

  private static String jsonOf(Group g, int c, Type type) {
    TabularValue.Cell cell = cell(g, c, type);
    if (cell.text() == null) {
      return "null";
    }
    return cell.json() ? cell.text() : quoted(cell.text());
  }

  private static String quoted(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }

  /** A whole Parquet file held in memory. */
  private record BytesInputFile(byte[] data) implements InputFile {
    @Override
    public long getLength() {
      return data.length;
    }

    @Override
    public SeekableInputStream newStream() {
      Positioned in = new Positioned(data);
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() {
          return in.position();
        }

        @Override
        public void seek(long newPos) {
          in.seek(newPos);
        }
      };
    }
  }

  private static final class Positioned extends ByteArrayInputStream {
    Positioned(byte[] data) {
      super(data);
    }

    long position() {
      return pos;
    }

    void seek(long newPos) {
      pos = (int) newPos;
    }
  }
}
