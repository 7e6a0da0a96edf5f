package io.kafkas3archiver.partitioning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * DESIGN §8 end to end, in every format: the handler partitions by {@code customer.region} and by
 * the ISO-8601 {@code eventTime} in the value; DuckDB, reading the written objects with {@code
 * hive_partitioning}, finds each record under its region and its event hour, records without the
 * field under {@code __HIVE_DEFAULT_PARTITION__}, and records without a usable time under their
 * Kafka hour, which the log line and the EMF document count.
 */
class FieldPartitionRoundTripIT {
  static final String TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.customer.region}/year=${YEAR}/month=${MONTH}"
          + "/day=${DAY}/hour=${HOUR}/${JOB_ID}";
  private static final String TOPIC = "orders";
  private static final long KAFKA_TIME = Instant.parse("2026-07-14T09:10:00Z").toEpochMilli();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static S3ProxyServer server;
  private static S3Client s3;
  private static DuckDb duck;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    s3 = server.client();
    duck = new DuckDb();
  }

  @AfterAll
  static void stop() {
    duck.close();
    s3.close();
    server.close();
  }

  /** id, region (or null), eventTime (or null): what each record carries. */
  private record Input(int id, String region, String eventTime) {
    String json() {
      StringBuilder b = new StringBuilder("{\"id\":").append(id);
      if (region != null) {
        b.append(",\"customer\":{\"region\":\"").append(region).append("\"}");
      } else {
        b.append(",\"customer\":{\"name\":\"x\"}");
      }
      if (eventTime != null) {
        b.append(",\"eventTime\":\"").append(eventTime).append('"');
      }
      return b.append('}').toString();
    }
  }

  private static final List<Input> INPUTS =
      List.of(
          new Input(1, "eu-west-1", "2026-07-13T15:30:00Z"),
          new Input(2, "us-east-1", "2026-07-13T15:45:10.250Z"),
          new Input(3, "eu-west-1", "2026-07-13T16:05:00Z"),
          // +02:00: 21:59 UTC on the 12th, a day and a half before Kafka stored it
          new Input(4, "eu-west-1", "2026-07-12T23:59:59+02:00"),
          new Input(5, null, "2026-07-13T15:00:00Z"),
          new Input(6, "us-east-1", "yesterday"),
          new Input(7, "eu-west-1", null),
          new Input(8, "ap-south-1", "2026-07-13T15:59:59Z"));

  /** region, year, month, day, hour per id, as the key layout must give them. */
  private static final Map<Integer, String> EXPECTED = new LinkedHashMap<>();

  static {
    EXPECTED.put(1, "eu-west-1 2026 07 13 15");
    EXPECTED.put(2, "us-east-1 2026 07 13 15");
    EXPECTED.put(3, "eu-west-1 2026 07 13 16");
    EXPECTED.put(4, "eu-west-1 2026 07 12 21");
    EXPECTED.put(5, "null 2026 07 13 15");
    EXPECTED.put(6, "us-east-1 2026 07 14 09"); // unusable time: its Kafka hour
    EXPECTED.put(7, "eu-west-1 2026 07 14 09"); // no time: its Kafka hour
    EXPECTED.put(8, "ap-south-1 2026 07 13 15");
  }

  @ParameterizedTest
  @EnumSource(
      value = Format.class,
      names = {"JSON", "NDJSON", "CSV", "PARQUET"}) // iceberg: a table, not key folders
  void shouldLandEachRecordUnderItsRegionAndEventHour(Format format) throws Exception {
    String bucket = "field-" + format.configName();
    server.createBucket(bucket);
    EventBuilder event = new EventBuilder();
    for (Input in : INPUTS) {
      event.add(TOPIC, in.id() % 2, 100 + in.id(), KAFKA_TIME + in.id(), "k", in.json());
    }
    List<String> lines;
    String response;
    Harness.Invocation handler;
    try (StdoutCapture out = new StdoutCapture()) {
      // Built inside the capture: the handler's log and metrics hold the stdout of their init.
      handler =
          Harness.against(server.endpoint().toString(), bucket)
              .with("OUTPUT_FORMAT", format.configName())
              .with("KEY_TEMPLATE", TEMPLATE)
              .with("PARTITION_TIME", "field")
              .with("TIME_FIELD", "eventTime")
              .with("TIME_FORMAT", "iso8601")
              .with("REPORT_BATCH_ITEM_FAILURES", "true")
              .handler();
      response = handler.invoke(event.stream());
      lines = out.lines();
    }

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    List<String> keys = handler.store().keys();
    assertThat(keys)
        .allMatch(
            k ->
                k.matches(
                    "condense/orders/region=[A-Za-z0-9_.-]+/year=2026/month=07/day=1[234]/hour=\\d\\d/"
                        + "[0-9a-f-]{36}\\."
                        + format.extension()));
    assertThat(keys).anyMatch(k -> k.contains("/region=__HIVE_DEFAULT_PARTITION__/"));

    for (String key : keys) {
      Path file = dir.resolve(key);
      Files.createDirectories(file.getParent());
      Files.write(file, ObjectBodies.raw(s3, bucket, key));
    }
    String glob = DuckDb.literal(dir.resolve("condense/orders/*/*/*/*/*/*"));
    String from =
        switch (format) {
          case PARQUET, ICEBERG -> "read_parquet(" + glob + ", hive_partitioning = true)";
          case CSV -> "read_csv(" + glob + ", hive_partitioning = true, header = true)";
          case JSON -> "read_json(" + glob + ", format = 'array', hive_partitioning = true)";
          case NDJSON ->
              "read_json(" + glob + ", format = 'newline_delimited', hive_partitioning = true)";
        };
    Map<Integer, String> actual = new LinkedHashMap<>();
    for (var row :
        duck.query(
            "SELECT CAST(id AS INTEGER) AS id, region, CAST(year AS VARCHAR) AS year,"
                + " lpad(CAST(month AS VARCHAR), 2, '0') AS month,"
                + " lpad(CAST(day AS VARCHAR), 2, '0') AS day,"
                + " lpad(CAST(hour AS VARCHAR), 2, '0') AS hour FROM "
                + from
                + " ORDER BY id")) {
      actual.put(
          (Integer) row.get("id"),
          String.format(
              Locale.ROOT,
              "%s %s %s %s %s",
              row.get("region"),
              row.get("year"),
              row.get("month"),
              row.get("day"),
              row.get("hour")));
    }
    assertThat(actual).isEqualTo(EXPECTED);

    JsonNode log = json(lines, "batch archived");
    assertThat(log.get("recordsIn").asInt()).isEqualTo(8);
    assertThat(log.get("recordsWritten").asInt()).isEqualTo(8);
    assertThat(log.get("timeFallbacks").asInt()).isEqualTo(2);
    JsonNode emf =
        lines.stream()
            .filter(l -> l.contains("\"_aws\""))
            .map(l -> read(l))
            .findFirst()
            .orElseThrow();
    assertThat(emf.get("TimeFallbacks").asInt()).isEqualTo(2);
    assertThat(emf.get("RecordsDeferred").asInt()).isZero();
    List<String> declared = new ArrayList<>();
    emf.at("/_aws/CloudWatchMetrics/0/Metrics").forEach(m -> declared.add(m.get("Name").asText()));
    assertThat(declared).contains("TimeFallbacks", "RecordsDeferred");
  }

  static JsonNode json(List<String> lines, String message) {
    return lines.stream()
        .filter(l -> l.startsWith("{"))
        .map(FieldPartitionRoundTripIT::read)
        .filter(n -> message.equals(n.path("message").asText()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no '" + message + "' line in " + lines));
  }

  static JsonNode read(String line) {
    try {
      return MAPPER.readTree(line);
    } catch (Exception e) {
      throw new AssertionError(line, e);
    }
  }
}
