package io.kafkas3archiver.testing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reads back everything under a prefix, straight from the S3 server (never through the function's
 * client or the fault proxy): every object's bytes, and every row parsed by a reader independent of
 * the encoders (Jackson trees, commons-csv's parser, DuckDB for Parquet).
 */
public final class Archive {
  /** Lenient enough for anything the function may legally write: deep nesting, huge numbers. */
  private static final ObjectMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(10_000)
                          .maxNumberLength(1_000_000)
                          .maxStringLength(Integer.MAX_VALUE)
                          .build())
                  .build())
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private Archive() {}

  /** Every object under the prefix: key to raw bytes, in key order. */
  public static Map<String, byte[]> objects(S3Client s3, String bucket, String prefix) {
    Map<String, byte[]> objects = new TreeMap<>();
    String token = null;
    do {
      String t = token;
      var page =
          s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix).continuationToken(t).maxKeys(1000));
      for (S3Object o : page.contents()) {
        if (o.key().contains("/_schemas/")) {
          continue; // a topic's schema versions (csv, parquet): not records
        }
        objects.put(o.key(), ObjectBodies.raw(s3, bucket, o.key()));
      }
      token = page.isTruncated() ? page.nextContinuationToken() : null;
    } while (token != null);
    return objects;
  }

  /** The rows of one object, each as a JSON object (csv cells are strings; empty cells absent). */
  public static List<ObjectNode> rows(S3Client s3, String bucket, String key) {
    byte[] body = ObjectBodies.decompressed(s3, bucket, key);
    return rows(key, body);
  }

  public static List<ObjectNode> rows(String key, byte[] uncompressed) {
    if (uncompressed.length == 0) {
      return List.of(); // a claim-only object (DESIGN §3): zero bytes, zero rows
    }
    String bare = key.replaceAll("\\.(gz|zst|snappy)$", "");
    try {
      if (bare.endsWith(".ndjson")) {
        List<ObjectNode> rows = new ArrayList<>();
        for (String line : new String(uncompressed, StandardCharsets.UTF_8).split("\n")) {
          if (!line.isEmpty()) {
            rows.add(wrap(MAPPER.readTree(line)));
          }
        }
        return rows;
      }
      if (bare.endsWith(".json")) {
        List<ObjectNode> rows = new ArrayList<>();
        MAPPER.readTree(uncompressed).forEach(n -> rows.add(wrap(n)));
        return rows;
      }
      if (bare.endsWith(".csv")) {
        return csvRows(new String(uncompressed, StandardCharsets.UTF_8));
      }
      if (bare.endsWith(".parquet")) {
        return parquetRows(uncompressed);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not parse " + key, e);
    }
    throw new IllegalArgumentException("unknown object type: " + key);
  }

  /** A values-only row that is not an object (a string, a number) is kept under "value". */
  private static ObjectNode wrap(JsonNode node) {
    if (node instanceof ObjectNode o) {
      return o;
    }
    ObjectNode o = MAPPER.createObjectNode();
    o.set("value", node);
    return o;
  }

  private static List<ObjectNode> csvRows(String text) throws IOException {
    List<ObjectNode> rows = new ArrayList<>();
    try (CSVParser parser =
        CSVFormat.RFC4180
            .builder()
            .setHeader()
            .setSkipHeaderRecord(true)
            .get()
            .parse(new StringReader(text))) {
      List<String> header = parser.getHeaderNames();
      for (CSVRecord r : parser) {
        ObjectNode o = MAPPER.createObjectNode();
        for (int i = 0; i < header.size() && i < r.size(); i++) {
          if (!r.get(i).isEmpty()) {
            o.put(header.get(i), r.get(i));
          }
        }
        rows.add(o);
      }
    }
    return rows;
  }

  private static List<ObjectNode> parquetRows(byte[] body) throws IOException {
    Path file = Files.createTempFile("archive-", ".parquet");
    try (DuckDb duck = new DuckDb()) {
      Files.write(file, body);
      List<ObjectNode> rows = new ArrayList<>();
      for (Map<String, Object> row :
          duck.query("SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")")) {
        Map<String, Object> plain = new LinkedHashMap<>();
        row.forEach((k, v) -> plain.put(k, v == null ? null : v.toString()));
        rows.add(MAPPER.valueToTree(plain));
      }
      return rows;
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /**
   * "topic-partition@offset" of a row written with INCLUDE_KAFKA_METADATA (json envelopes and error
   * lines say {@code offset}, csv says {@code kafka_offset}).
   */
  public static String position(JsonNode row) {
    // kafka_* first: a csv or parquet row also holds the value's own fields, which may be named
    // offset or topic (and parquet types a value's numbers as decimals).
    String topic = text(row, "kafka_topic", "topic");
    String partition = text(row, "kafka_partition", "partition");
    String offset = text(row, "kafka_offset", "offset");
    if (topic == null || partition == null || offset == null) {
      throw new IllegalArgumentException("row without Kafka metadata: " + row);
    }
    return topic + "-" + partition + "@" + offset;
  }

  /** The offset of a metadata row or an error line ({@code offset} or {@code kafka_offset}). */
  public static Long offset(JsonNode row) {
    String offset = text(row, "kafka_offset", "offset");
    return offset == null ? null : Long.valueOf(offset);
  }

  private static String text(JsonNode row, String... names) {
    for (String n : names) {
      JsonNode v = row.get(n);
      if (v != null && !v.isNull()) {
        return v.asText();
      }
    }
    return null;
  }
}
