package io.kafkas3archiver.esm;

import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.ObjectBodies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reads back everything archived under a prefix: downloads every object and reads the rows with
 * DuckDB (an independent reader), from the metadata envelope that {@code
 * INCLUDE_KAFKA_METADATA=true} writes.
 */
public final class ArchivedRows {
  /** One archived row. {@code value} is the JSON text DuckDB reads back. */
  public record Row(
      String object,
      String topic,
      int partition,
      long offset,
      String key,
      String value,
      String headers) {
    public String id() {
      return topic + "-" + partition + "@" + offset;
    }
  }

  private ArchivedRows() {}

  public static List<String> keys(S3Client s3, String bucket, String prefix) {
    return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
        .map(S3Object::key)
        .sorted()
        .toList();
  }

  public static List<Row> read(S3Client s3, String bucket, String prefix, Path temp) {
    List<String> keys = keys(s3, bucket, prefix);
    if (keys.isEmpty()) {
      return List.of();
    }
    try {
      Path dir = Files.createTempDirectory(temp, "readback-");
      for (int i = 0; i < keys.size(); i++) {
        // Keep the object's key in the row: one file per object, named by its index.
        Files.write(dir.resolve(i + ".ndjson"), ObjectBodies.decompressed(s3, bucket, keys.get(i)));
      }
      try (DuckDb duck = new DuckDb()) {
        return duck
            .query(
                "SELECT filename, json->>'topic' AS topic,"
                    + " CAST(json->>'partition' AS INTEGER) AS p,"
                    + " CAST(json->>'offset' AS BIGINT) AS o, json->>'key' AS k,"
                    + " CAST(json->'value' AS VARCHAR) AS v, CAST(json->'headers' AS VARCHAR) AS h"
                    + " FROM read_ndjson_objects("
                    + DuckDb.literal(dir.resolve("*.ndjson"))
                    + ", filename=true) ORDER BY topic, p, o")
            .stream()
            .map(r -> row(r, keys))
            .toList();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Row row(Map<String, Object> r, List<String> keys) {
    String file = Path.of((String) r.get("filename")).getFileName().toString();
    String object = keys.get(Integer.parseInt(file.substring(0, file.indexOf('.'))));
    return new Row(
        object,
        (String) r.get("topic"),
        ((Number) r.get("p")).intValue(),
        ((Number) r.get("o")).longValue(),
        (String) r.get("k"),
        (String) r.get("v"),
        (String) r.get("h"));
  }
}
