package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
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
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One schema per topic (DESIGN §4, issue 24), end to end: 20 batches of one topic whose shapes
 * drift go through the handler into S3Proxy, with a cold start (a new handler, so the schema comes
 * back from {@code _schemas/}) every few batches; the folder is then read as a data team would,
 * with DuckDB ({@code read_parquet(glob, union_by_name=true)}) and pyarrow.dataset, and by position
 * for csv.
 */
class TopicSchemaIT {
  private static final String BUCKET = "topic-schema";
  private static final ObjectMapper EXACT =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

  private static S3ProxyServer server;
  private static S3Client s3;
  private static DuckDb duck;

  @TempDir Path dir;

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

  /** The 20 drifting batches: offset -> value (null: tombstone), with the seed printed. */
  private static List<Map<Long, String>> driftingBatches(long seed) {
    Random rnd = new Random(seed);
    List<Map<Long, String>> batches = new ArrayList<>();
    long offset = 0;
    for (int b = 0; b < 20; b++) {
      Map<Long, String> batch = new LinkedHashMap<>();
      for (int i = 0; i < 12; i++, offset++) {
        if (b == 6) {
          batch.put(offset, null); // tombstone-only
          continue;
        }
        if (b == 9) {
          batch.put(offset, "engine fault " + i); // text-only: error object
          continue;
        }
        StringBuilder v = new StringBuilder("{\"id\":").append(offset);
        // integral first, then fractional, then a string where numbers were
        String n =
            switch (b % 5) {
              case 0, 1 -> Integer.toString(rnd.nextInt(1000));
              case 2 -> Double.toString(rnd.nextDouble() * 100);
              case 3 -> "\"E" + i + "\"";
              default -> "1.0e" + i;
            };
        v.append(",\"n\":").append(n);
        v.append(",\"temp\":").append(Double.toString(rnd.nextGaussian() * 30));
        if (b < 10 && rnd.nextInt(4) > 0) {
          v.append(",\"Name\":\"A").append(i).append('"');
        }
        if (b >= 3 && rnd.nextInt(4) > 0) {
          v.append(",\"name\":\"b").append(i).append('"');
        }
        if (b % 4 == 1) {
          v.append(",\"f").append(b).append("\":").append(rnd.nextBoolean());
        }
        if (b >= 12 && i % 2 == 0) {
          v.append(",\"loc\":{\"lat\":").append(i).append(".5,\"tags\":[1,\"x\"]}");
        }
        if (b == 15) {
          v.append(",\"big\":123456789012345678901234567890");
        }
        batch.put(offset, v.append('}').toString());
      }
      batches.add(batch);
    }
    return batches;
  }

  private ArchiverConfig config(String format, String prefix) {
    return ArchiverConfig.fromEnv(
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
            format,
            "KEY_PREFIX",
            prefix));
  }

  private RecordingStore store(ArchiverConfig config) {
    return new RecordingStore(
        S3ObjectStore.create(
            config,
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))));
  }

  /**
   * Archives the batches, a cold start every 4, and copies the data objects to {@code dir}; returns
   * the keys of the schema versions written.
   */
  private List<String> archive(
      String format, String prefix, String topic, List<Map<Long, String>> batches)
      throws IOException {
    ArchiverConfig config = config(format, prefix);
    List<String> schemaKeys = new ArrayList<>();
    RecordingStore store = null;
    ArchiverHandler handler = null;
    long t0 = 1_783_955_045_000L;
    for (int b = 0; b < batches.size(); b++) {
      if (b % 4 == 0) {
        if (store != null) {
          copy(store, schemaKeys);
        }
        store = store(config);
        handler = new ArchiverHandler(config, store, Clock.systemUTC());
      }
      EventBuilder event = new EventBuilder();
      for (var r : batches.get(b).entrySet()) {
        // one hour folder per batch, so each batch is its own object
        event.add(topic, 0, r.getKey(), t0 + b * 3_600_000L, null, r.getValue());
      }
      handler.handleRequest(event.stream(), new ByteArrayOutputStream(), new LocalContext(60_000));
    }
    copy(store, schemaKeys);
    return schemaKeys;
  }

  private void copy(RecordingStore store, List<String> schemaKeys) throws IOException {
    for (String key : store.keys()) {
      if (key.contains("/_errors/")) {
        continue;
      }
      Path file = dir.resolve("data").resolve(key);
      Files.createDirectories(file.getParent());
      Files.write(file, ObjectBodies.raw(s3, BUCKET, key));
    }
    schemaKeys.addAll(store.schemaKeys());
  }

  @Test
  void shouldReadTwentyDriftingParquetBatchesBackExactlyWithOneTypePerColumn() throws Exception {
    long seed = System.nanoTime();
    System.out.println("TopicSchemaIT parquet seed " + seed);
    List<Map<Long, String>> batches = driftingBatches(seed);
    List<String> versions = archive("parquet", "pq", "drift", batches);

    Map<Long, String> sent = new TreeMap<>();
    batches.forEach(
        b ->
            b.forEach(
                (o, v) -> {
                  if (v != null && v.startsWith("{")) {
                    sent.put(o, v);
                  }
                }));
    assertThat(versions)
        .as("the schema grew by appending versions under _schemas/")
        .isNotEmpty()
        .allMatch(k -> k.startsWith("pq/_schemas/drift/v"));
    // Zero-row objects (the tombstone-only and text-only batches) carry every column too.
    String glob = DuckDb.literal(dir.resolve("data/pq/drift/*/*/*/*/*.parquet"));
    List<Map<String, Object>> types =
        duck.query(
            "SELECT name, count(DISTINCT type || coalesce(logical_type::VARCHAR, '')) AS types"
                + " FROM parquet_schema("
                + glob
                + ") WHERE name <> 'kafka_record' GROUP BY name HAVING types > 1");
    assertThat(types).as("one type per column name in all files").isEmpty();
    List<Map<String, Object>> rows =
        duck.query(
            "SELECT * EXCLUDE (year, month, day, hour) FROM read_parquet("
                + glob
                + ", union_by_name=true) ORDER BY id");
    assertThat(rows)
        .extracting(r -> ((Number) r.get("id")).longValue())
        .as("every JSON record once")
        .containsExactlyElementsOf(sent.keySet());
    int overflowed = 0;
    for (Map<String, Object> row : rows) {
      long id = ((Number) row.get("id")).longValue();
      assertThat(rebuild(row))
          .as("record %d, sent as %s", id, sent.get(id))
          .isEqualTo(normal(EXACT.readTree(sent.get(id))));
      overflowed += row.get("_overflow") == null ? 0 : 1;
    }
    assertThat(rows.get(0)).containsKeys("Name", "name_2");
    assertThat(column(rows, "Name")).allMatch(v -> v == null || ((String) v).startsWith("A"));
    assertThat(column(rows, "name_2")).allMatch(v -> v == null || ((String) v).startsWith("b"));
    assertThat(overflowed).as("the string and fractional n, the 30-digit big").isGreaterThan(0);

    // pyarrow.dataset over the same files: one unified schema, natural pandas dtypes
    JsonNode arrow = pyarrow(dir.resolve("data/pq/drift"));
    System.out.println("pyarrow dtypes: " + arrow.get("dtypes"));
    assertThat(arrow.get("dtypes").get("id").asText()).isEqualTo("int64");
    assertThat(arrow.get("dtypes").get("n").asText()).isIn("int64", "float64", "Int64");
    assertThat(arrow.get("dtypes").get("temp").asText()).isEqualTo("float64");
    Map<Long, JsonNode> arrowRows = new HashMap<>();
    for (JsonNode r : arrow.get("rows")) {
      arrowRows.put(r.get("id").asLong(), r);
    }
    assertThat(arrowRows.keySet()).containsExactlyInAnyOrderElementsOf(sent.keySet());
    for (var e : arrowRows.entrySet()) {
      Map<String, Object> row = new LinkedHashMap<>();
      e.getValue().fields().forEachRemaining(f -> row.put(f.getKey(), plain(f.getValue())));
      assertThat(rebuild(row))
          .as("pyarrow: record %d", e.getKey())
          .isEqualTo(normal(EXACT.readTree(sent.get(e.getKey()))));
    }
  }

  @Test
  void shouldKeepTenThousandJavaDoublesInTheirColumn() throws Exception {
    long seed = System.nanoTime();
    System.out.println("TopicSchemaIT doubles seed " + seed);
    Random rnd = new Random(seed);
    List<Map<Long, String>> batches = new ArrayList<>();
    Map<Long, Double> sent = new HashMap<>();
    for (int b = 0; b < 4; b++) {
      Map<Long, String> batch = new LinkedHashMap<>();
      for (int i = 0; i < 2_500; i++) {
        long offset = b * 2_500L + i;
        double temp = rnd.nextDouble() * 80 - 20;
        sent.put(offset, temp);
        batch.put(offset, "{\"id\":" + offset + ",\"temp\":" + temp + "}");
      }
      batches.add(batch);
    }
    archive("parquet", "doubles", "telemetry", batches);

    String glob = DuckDb.literal(dir.resolve("data/doubles/telemetry/*/*/*/*/*.parquet"));
    List<Map<String, Object>> rows =
        duck.query("SELECT id, temp, _overflow FROM read_parquet(" + glob + ") ORDER BY id");
    assertThat(rows).hasSize(10_000);
    assertThat(rows).filteredOn(r -> r.get("_overflow") != null).as("in _overflow").isEmpty();
    for (Map<String, Object> r : rows) {
      assertThat((Double) r.get("temp")).isEqualTo(sent.get(((Number) r.get("id")).longValue()));
    }
    System.out.println("10,000 Java doubles: 0 in _overflow, all equal to the sent doubles");
  }

  @Test
  void shouldNeverMoveACsvColumnSoOnePositionalColumnListReadsEveryFile() throws Exception {
    long seed = System.nanoTime();
    System.out.println("TopicSchemaIT csv seed " + seed);
    List<Map<Long, String>> batches = driftingBatches(seed);
    archive("csv", "csv", "drift", batches);

    List<Path> files;
    try (var walk = Files.walk(dir.resolve("data/csv/drift"))) {
      files = walk.filter(p -> p.toString().endsWith(".csv")).sorted().toList();
    }
    List<String> longest = List.of();
    List<List<String>> headers = new ArrayList<>();
    for (Path f : files) {
      String first = Files.readAllLines(f, StandardCharsets.UTF_8).get(0);
      List<String> header = List.of(first.split(",", -1));
      headers.add(header);
      if (header.size() > longest.size()) {
        longest = header;
      }
    }
    for (List<String> header : headers) {
      assertThat(longest.subList(0, header.size()))
          .as("a header is a prefix of the newest: no column moved")
          .isEqualTo(header);
    }
    StringBuilder columns = new StringBuilder("{");
    for (int i = 0; i < longest.size(); i++) {
      columns.append(i == 0 ? "" : ", ").append("'c").append(i).append("': 'VARCHAR'");
    }
    columns.append('}');
    List<Map<String, Object>> rows =
        duck.query(
            "SELECT * FROM read_csv("
                + DuckDb.literal(dir.resolve("data/csv/drift/*/*/*/*/*.csv"))
                + ", header=false, skip=1, auto_detect=false, delim=',', quote='\"', escape='\"',"
                + " hive_partitioning=false, null_padding=true, columns="
                + columns
                + ") ORDER BY CAST(c"
                + longest.indexOf("id")
                + " AS BIGINT)");
    Map<Long, String> sent = new TreeMap<>();
    batches.forEach(
        b ->
            b.forEach(
                (o, v) -> {
                  if (v != null && v.startsWith("{")) {
                    sent.put(o, v);
                  }
                }));
    assertThat(rows).hasSize(sent.size());
    for (Map<String, Object> row : rows) {
      Map<String, Object> byName = new LinkedHashMap<>();
      for (int i = 0; i < longest.size(); i++) {
        Object cell = row.get("c" + i);
        String name = longest.get(i);
        byName.put(name, cell == null || name.equals("_overflow") ? cell : csvCell((String) cell));
      }
      long id = ((BigDecimal) byName.get("id")).longValueExact();
      assertThat(rebuild(byName))
          .as("csv record %d, sent as %s", id, sent.get(id))
          .isEqualTo(normal(EXACT.readTree(sent.get(id))));
    }
  }

  /** A csv cell as JSON would hold it: a number, boolean, object or array, else the text. */
  private static Object csvCell(String text) {
    if (text.isEmpty()) {
      return null;
    }
    try {
      JsonNode n = EXACT.readTree(text);
      if (n != null && !n.isTextual() && !n.isNull()) {
        return normal(n);
      }
    } catch (IOException e) {
      // text
    }
    return text;
  }

  /** The record's value from a row: its non-null value columns, plus the overflow's fields. */
  private static Map<String, Object> rebuild(Map<String, Object> row) throws IOException {
    Map<String, Object> value = new TreeMap<>();
    for (var e : row.entrySet()) {
      if (e.getValue() == null
          || e.getKey().startsWith("kafka_")
          || e.getKey().equals("_overflow")) {
        continue;
      }
      String field =
          switch (e.getKey()) {
            case "name_2" -> "name";
            default -> e.getKey();
          };
      Object v = e.getValue();
      if (field.equals("loc") && v instanceof String s) {
        v = normal(EXACT.readTree(s));
      }
      value.put(field, number(v));
    }
    Object overflow = row.get("_overflow");
    if (overflow != null) {
      Iterator<Map.Entry<String, JsonNode>> it = EXACT.readTree((String) overflow).fields();
      while (it.hasNext()) {
        var f = it.next();
        assertThat(value)
            .as("a field is in its column or in _overflow, never both")
            .doesNotContainKey(f.getKey());
        value.put(f.getKey(), normal(f.getValue()));
      }
    }
    return value;
  }

  private static Object number(Object v) {
    if (v instanceof Double d) {
      return strip(new BigDecimal(Double.toString(d)));
    }
    if (v instanceof Long || v instanceof Integer || v instanceof java.math.BigInteger) {
      return strip(new BigDecimal(v.toString()));
    }
    if (v instanceof BigDecimal b) {
      return strip(b);
    }
    return v;
  }

  private static BigDecimal strip(BigDecimal b) {
    return b.signum() == 0 ? BigDecimal.ZERO : b.stripTrailingZeros();
  }

  /** A JSON tree as plain values, numbers as stripped BigDecimals. */
  private static Object normal(JsonNode n) {
    if (n.isObject()) {
      Map<String, Object> m = new TreeMap<>();
      n.fields().forEachRemaining(f -> m.put(f.getKey(), normal(f.getValue())));
      return m;
    }
    if (n.isArray()) {
      List<Object> l = new ArrayList<>();
      n.forEach(x -> l.add(normal(x)));
      return l;
    }
    if (n.isNumber()) {
      return strip(n.decimalValue());
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    return n.isNull() ? null : n.textValue();
  }

  /** A pyarrow row's cell as DuckDB's JDBC would give it. */
  private static Object plain(JsonNode n) {
    if (n.isNull()) {
      return null;
    }
    if (n.isIntegralNumber()) {
      return n.longValue();
    }
    if (n.isNumber()) {
      return n.decimalValue();
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    return n.textValue();
  }

  private static List<Object> column(List<Map<String, Object>> rows, String name) {
    return rows.stream().map(r -> r.get(name)).toList();
  }

  private static JsonNode pyarrow(Path folder) throws Exception {
    Path python = null;
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isExecutable(d.resolve(".venv/bin/python"))) {
        python = d.resolve(".venv/bin/python");
        break;
      }
    }
    assertThat(python).as(".venv/bin/python (pyarrow, pandas: .ci/requirements.txt)").isNotNull();
    Path script = Path.of("src/test/resources/schema/read_with_pyarrow.py").toAbsolutePath();
    Path out = Files.createTempFile(folder.getParent(), "pyarrow", ".json");
    Process p =
        new ProcessBuilder(python.toString(), script.toString(), folder.toString())
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("pyarrow read").isZero();
    return EXACT.readTree(out.toFile());
  }
}
