package io.kafkas3archiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.RecordingStore;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Parquet objects written by the handler are queryable with no hints: DuckDB finds the Hive
 * partition columns (year, month, day, hour) in the key layout and the types in the footers.
 */
class ParquetHivePartitionIT {
  private static final String BUCKET = "hive-layout";
  private static final String TOPIC = "vehicle-telemetry";

  private static S3ProxyServer server;
  private static S3Client s3;
  private static DuckDb duck;

  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    s3 = server.client();
    duck = new DuckDb();
  }

  @AfterAll
  static void stop() {
    duck.close();
    s3.close();
    server.close();
  }

  @Test
  void shouldBeQueryableOverAGlobOfPartitionFoldersWithNoHints() throws IOException {
    // Given three batches in three hours across two days, archived as Parquet with snappy
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME",
                BUCKET,
                "AWS_REGION",
                S3ProxyServer.REGION,
                "AWS_ENDPOINT_URL_S3",
                server.endpoint().toString(),
                "S3_FORCE_PATH_STYLE",
                "true",
                "OUTPUT_FORMAT",
                "parquet",
                "COMPRESSION",
                "snappy"));
    RecordingStore store =
        new RecordingStore(
            S3ObjectStore.create(
                config,
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))));
    ArchiverHandler handler = new ArchiverHandler(config, store, Clock.systemUTC());
    archive(handler, "2026-07-13T15:10:00Z", 0, 10, 60.5);
    archive(handler, "2026-07-13T16:20:00Z", 10, 5, 80.25);
    archive(handler, "2026-07-14T00:05:00Z", 15, 7, 42.0);
    assertThat(store.keys()).hasSize(3);

    // When the objects are copied to disk under their keys
    for (String key : store.keys()) {
      Path file = dir.resolve(key);
      Files.createDirectories(file.getParent());
      Files.write(file, ObjectBodies.raw(s3, BUCKET, key));
    }
    String glob = DuckDb.literal(dir.resolve("condense/" + TOPIC + "/*/*/*/*/*.parquet"));

    // Then a plain read_parquet over the glob has the Hive partition columns. DuckDB types a
    // partition column from its values: month=07 and hour=00 stay VARCHAR (the zero would be
    // lost), year=2026 becomes BIGINT, so the query casts.
    assertThat(
            duck.query(
                "SELECT CAST(year AS BIGINT) AS year, CAST(month AS BIGINT) AS month,"
                    + " CAST(day AS BIGINT) AS day, CAST(hour AS BIGINT) AS hour,"
                    + " count(*) AS n, CAST(max(speedKmh) AS DOUBLE) AS top FROM read_parquet("
                    + glob
                    + ") GROUP BY ALL ORDER BY ALL"))
        .containsExactly(
            row(2026L, 7L, 13L, 15L, 10L, 60.5 + 9),
            row(2026L, 7L, 13L, 16L, 5L, 80.25 + 4),
            row(2026L, 7L, 14L, 0L, 7L, 42.0 + 6));
    // And the partition columns filter like any other column
    assertThat(
            duck.query(
                "SELECT count(*) AS n, CAST(max(speedKmh) AS DOUBLE) AS top FROM read_parquet("
                    + glob
                    + ") WHERE year = '2026' AND month = '07' AND day = '13'"))
        .containsExactly(Map.of("n", 15L, "top", 84.25));
  }

  private static void archive(
      ArchiverHandler handler, String time, int firstOffset, int count, double speed)
      throws IOException {
    long millis = Instant.parse(time).toEpochMilli();
    EventBuilder event = new EventBuilder();
    for (int i = 0; i < count; i++) {
      event.add(
          TOPIC,
          0,
          firstOffset + i,
          millis + i,
          "KA-01",
          "{\"vehicleId\": \"KA-01\", \"speedKmh\": "
              + (speed + i)
              + ", \"ts\": \""
              + time
              + "\"}");
    }
    handler.handleRequest(event.stream(), new ByteArrayOutputStream(), new LocalContext(60_000));
  }

  private static Map<String, Object> row(
      long year, long month, long day, long hour, long n, double top) {
    var row = new java.util.LinkedHashMap<String, Object>();
    row.put("year", year);
    row.put("month", month);
    row.put("day", day);
    row.put("hour", hour);
    row.put("n", n);
    row.put("top", top);
    return row;
  }
}
