package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records in the shape an event source mapping with a schema registry and {@code EventRecordFormat:
 * JSON} delivers them (AWS Lambda developer guide, "Using schema registries with Kafka event
 * sources in Lambda": base64 JSON key and value plus {@code keySchemaMetadata} / {@code
 * valueSchemaMetadata} of {@code dataFormat} and {@code schemaId}), archived as Parquet typed by
 * the registry schema, read back with DuckDB.
 *
 * <p>The registry is {@link ConfluentRegistryStub}, a Confluent-compatible endpoint in process;
 * {@code GlueSchemaRegistryIT} runs the same event against moto's Glue.
 */
class SchemaRegistryParquetTest {
  static final Path EVENT = repoFile("events/msk-schema-registry-event.json");
  static final String GLUE_SCHEMA_ID = "a1b2c3d4-5678-90ab-cdef-0123456789ab";

  /** DuckDB's type for each field of order.avsc: the rows of docs/schema-registry.md's table. */
  static final Map<String, String> ORDER_TYPES = orderTypes();

  @TempDir Path dir;
  private ConfluentRegistryStub registry;

  @BeforeEach
  void start() throws IOException {
    registry = new ConfluentRegistryStub();
  }

  @AfterEach
  void stop() {
    registry.close();
  }

  static Map<String, String> orderTypes() {
    Map<String, String> t = new LinkedHashMap<>();
    t.put("orderId", "VARCHAR");
    t.put("placedAt", "TIMESTAMP WITH TIME ZONE");
    t.put("shipDate", "DATE");
    t.put("total", "DECIMAL(12,2)");
    t.put("quantity", "INTEGER");
    t.put("weightKg", "DOUBLE");
    t.put("ratio", "FLOAT");
    t.put("express", "BOOLEAN");
    t.put("status", "VARCHAR");
    t.put("customer", "STRUCT(id BIGINT, address STRUCT(city VARCHAR, zip VARCHAR))");
    t.put("billing", "STRUCT(city VARCHAR, zip VARCHAR)");
    t.put("note", "VARCHAR");
    t.put("tags", "VARCHAR");
    t.put("attributes", "VARCHAR");
    t.put("_overflow", "VARCHAR");
    return t;
  }

  @Test
  void shouldTypeTheColumnsByTheAvroSchemaFromTheRegistry() throws Exception {
    registry.avro(GLUE_SCHEMA_ID, avsc());
    MemoryStore store = run(env(registry.url(), false), Files.readAllBytes(EVENT));

    Path file = store.parquet(dir);
    assertThat(types(file)).containsExactlyEntriesOf(ORDER_TYPES);
    try (DuckDb duck = new DuckDb()) {
      var rows =
          duck.query(
              "SELECT orderId, epoch_ms(placedAt) AS placed, CAST(shipDate AS VARCHAR) AS ship,"
                  + " CAST(total AS VARCHAR) AS total, quantity, express, status,"
                  + " customer.id AS cid, customer.address.city AS city,"
                  + " customer.address.zip AS zip, billing.city AS bcity, note, tags, attributes,"
                  + " _overflow FROM read_parquet("
                  + DuckDb.literal(file)
                  + ") ORDER BY placedAt");
      assertThat(rows).hasSize(3);
      assertThat(rows.get(0))
          .containsEntry("orderId", "2f1e4c1a-8d3b-4c52-9a4e-1b2c3d4e5f60")
          .containsEntry("placed", 1783955045123L)
          .containsEntry("ship", "2026-07-16")
          .containsEntry("total", "1234.50")
          .containsEntry("cid", 9007199254740993L)
          .containsEntry("zip", "411001")
          .containsEntry("tags", "[\"gift\",\"fragile\"]")
          .containsEntry("_overflow", null);
      // Avro's JSON encoding of unions ({"int": ...}, {"Address": {...}}) is unwrapped.
      assertThat(rows.get(1))
          .containsEntry("ship", "2026-07-17")
          .containsEntry("total", "99999999.99")
          .containsEntry("zip", "69001")
          .containsEntry("bcity", "Paris")
          // a union of several types is JSON text, its branch kept
          .containsEntry("note", "{\"string\":\"leave at door\"}");
      assertThat(rows.get(2))
          .containsEntry("ship", null)
          .containsEntry("quantity", 2147483647)
          .containsEntry("note", "{\"long\":7}")
          .containsEntry("_overflow", "{\"addedLater\":\"kept in _overflow\"}");
    }
  }

  /** The Avro row of docs/schema-registry.md's type table that each field of order.avsc uses. */
  static final Map<String, String> ORDER_AVRO_ROWS =
      Map.ofEntries(
          Map.entry("orderId", "`uuid` (string)"),
          Map.entry("placedAt", "`timestamp-millis` (long)"),
          Map.entry("shipDate", "`date` (int)"),
          Map.entry("total", "`decimal(p,s)` (bytes or fixed), p ≤ 38"),
          Map.entry("quantity", "`int`"),
          Map.entry("weightKg", "`double`"),
          Map.entry("ratio", "`float`"),
          Map.entry("express", "`boolean`"),
          Map.entry("status", "`enum`"),
          Map.entry("customer", "`record`"),
          Map.entry("billing", "`record`"),
          Map.entry("note", "union of several types"),
          Map.entry("tags", "`array`, `map`"),
          Map.entry("attributes", "`array`, `map`"));

  @Test
  void shouldWriteTheTypesTheDocumentedTableGives() throws Exception {
    Map<String, String> duckdbByAvro = new HashMap<>();
    for (String line : Files.readAllLines(repoFile("docs/schema-registry.md"))) {
      String[] cells = line.split("\\|");
      if (line.startsWith("| ") && cells.length == 6) {
        duckdbByAvro.put(cells[1].trim(), cells[4].trim().replace("`", ""));
      }
    }
    registry.avro(GLUE_SCHEMA_ID, avsc());
    Map<String, String> written =
        types(run(env(registry.url(), false), Files.readAllBytes(EVENT)).parquet(dir));

    for (var field : ORDER_AVRO_ROWS.entrySet()) {
      String documented = duckdbByAvro.get(field.getValue());
      assertThat(documented).as("docs row %s", field.getValue()).isNotNull();
      String actual = written.get(field.getKey());
      if (documented.equals("STRUCT(…)")) {
        assertThat(actual).as(field.getKey()).startsWith("STRUCT(");
      } else {
        assertThat(actual).as(field.getKey()).isEqualTo(documented.replace("(p,s)", "(12,2)"));
      }
    }
  }

  @Test
  void shouldCarryTheSchemaIdAndDataFormatInTheMetadataColumns() throws Exception {
    registry.avro(GLUE_SCHEMA_ID, avsc());
    MemoryStore store = run(env(registry.url(), true), Files.readAllBytes(EVENT));

    try (DuckDb duck = new DuckDb()) {
      var rows =
          duck.query(
              "SELECT DISTINCT kafka_key_schema_id, kafka_key_data_format, kafka_value_schema_id,"
                  + " kafka_value_data_format FROM read_parquet("
                  + DuckDb.literal(store.parquet(dir))
                  + ")");
      assertThat(rows)
          .containsExactly(
              Map.of(
                  "kafka_key_schema_id", "b7c8d9e0-1111-2222-3333-444455556666",
                  "kafka_key_data_format", "JSON",
                  "kafka_value_schema_id", GLUE_SCHEMA_ID,
                  "kafka_value_data_format", "AVRO"));
    }
  }

  @Test
  void shouldFetchEachSchemaOnceAndKeepIt() throws Exception {
    registry.avro(GLUE_SCHEMA_ID, avsc());
    ArchiverHandler handler = handler(env(registry.url(), false), new MemoryStore());
    for (int i = 0; i < 3; i++) {
      handler.handleRequest(
          new ByteArrayInputStream(Files.readAllBytes(EVENT)),
          new ByteArrayOutputStream(),
          new LocalContext(60_000));
    }
    assertThat(registry.requests.get()).isEqualTo(1);
  }

  @Test
  void shouldFailTheBatchRetryablyWithAdviceWhenTheRegistryIsDown() throws Exception {
    Map<String, String> env = env(registry.url(), false);
    registry.close(); // nothing listens on the port now
    MemoryStore store = new MemoryStore();
    ArchiverHandler handler = handler(env, store);

    assertThatThrownBy(
            () ->
                handler.handleRequest(
                    new ByteArrayInputStream(Files.readAllBytes(EVENT)),
                    new ByteArrayOutputStream(),
                    new LocalContext(60_000)))
        .isInstanceOf(SchemaRegistryException.class)
        .satisfies(e -> assertThat(((SchemaRegistryException) e).retryable()).isTrue())
        .hasMessageContaining("could not read schema " + GLUE_SCHEMA_ID)
        .hasMessageContaining(registry.url())
        .hasMessageContaining("the event source mapping retries it")
        .hasMessageContaining("Check that the function can reach the registry");
    assertThat(store.objects).as("nothing written with another schema").isEmpty();
  }

  @Test
  void shouldSendBasicAuthFromTheSecretShapeAndExplainARefusal() throws Exception {
    registry.avro(GLUE_SCHEMA_ID, avsc());
    registry.requireBasicAuth("archiver", "s3cret-pw");
    ArchiverHandler handler = handler(env(registry.url(), false), new MemoryStore());

    assertThatThrownBy(
            () ->
                handler.handleRequest(
                    new ByteArrayInputStream(Files.readAllBytes(EVENT)),
                    new ByteArrayOutputStream(),
                    new LocalContext(60_000)))
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageContaining("refused GET /schemas/ids/" + GLUE_SCHEMA_ID + " (HTTP 401)")
        .hasMessageContaining("SCHEMA_REGISTRY_SECRET_ARN");

    var catalog =
        SchemaCatalog.over(
            new ConfluentRegistry(
                java.net.URI.create(registry.url()), java.util.Optional.of("archiver:s3cret-pw")));
    assertThat(
            catalog
                .schemaFor(new io.kafkas3archiver.decode.SchemaMetadata("AVRO", GLUE_SCHEMA_ID))
                .orElseThrow()
                .columns())
        .hasSize(14);
  }

  @Test
  void shouldTypeTheColumnsByAProtobufSchema() throws Exception {
    registry.protobuf(
        GLUE_SCHEMA_ID,
        """
        syntax = "proto3";
        package orders.v1;
        import "google/protobuf/timestamp.proto";
        // the first message is the record's
        message Order {
          string order_id = 1;
          google.protobuf.Timestamp placed_at = 2;
          int32 quantity = 3 [deprecated = true];
          int64 big = 4;
          uint64 huge = 5;
          double weight_kg = 6;
          bool express = 7;
          Status status = 8;
          Customer customer = 9;
          repeated string tags = 10;
          map<string, string> attributes = 11;
          oneof contact { string email = 12; string phone = 13; }
          enum Status { PLACED = 0; SHIPPED = 1; }
        }
        message Customer { int64 id = 1; Address address = 2; message Address { string city = 1; } }
        """);
    String value =
        "{\"orderId\":\"o-1\",\"placedAt\":\"2026-07-13T15:04:05.123456Z\",\"quantity\":3,"
            + "\"big\":\"9007199254740993\",\"huge\":\"18446744073709551615\",\"weightKg\":\"NaN\","
            + "\"express\":true,\"status\":\"SHIPPED\",\"customer\":{\"id\":\"5\","
            + "\"address\":{\"city\":\"Pune\"}},\"tags\":[\"a\"],\"attributes\":{\"k\":\"v\"},"
            + "\"email\":\"x@example.com\"}";
    MemoryStore store = run(env(registry.url(), false), event(value, "PROTOBUF"));

    Path file = store.parquet(dir);
    assertThat(types(file))
        .containsExactly(
            Map.entry("order_id", "VARCHAR"),
            Map.entry("placed_at", "TIMESTAMP WITH TIME ZONE"),
            Map.entry("quantity", "INTEGER"),
            Map.entry("big", "BIGINT"),
            Map.entry("huge", "DECIMAL(20,0)"),
            Map.entry("weight_kg", "DOUBLE"),
            Map.entry("express", "BOOLEAN"),
            Map.entry("status", "VARCHAR"),
            Map.entry("customer", "STRUCT(id BIGINT, address STRUCT(city VARCHAR))"),
            Map.entry("tags", "VARCHAR"),
            Map.entry("attributes", "VARCHAR"),
            Map.entry("email", "VARCHAR"),
            Map.entry("phone", "VARCHAR"),
            Map.entry("_overflow", "VARCHAR"));
    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT order_id, epoch_us(placed_at) AS us, big, CAST(huge AS VARCHAR) AS huge,"
                      + " customer.id AS cid, email, phone FROM read_parquet("
                      + DuckDb.literal(file)
                      + ")"))
          .containsExactly(
              new LinkedHashMap<>(
                      Map.of(
                          "order_id",
                          "o-1",
                          "us",
                          1783955045123456L,
                          "big",
                          9007199254740993L,
                          "huge",
                          "18446744073709551615",
                          "cid",
                          5L,
                          "email",
                          "x@example.com"))
                  .entrySet().stream()
                      .collect(
                          () -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("order_id", null);
                            m.put("us", null);
                            m.put("big", null);
                            m.put("huge", null);
                            m.put("cid", null);
                            m.put("email", null);
                            m.put("phone", null);
                            return m;
                          },
                          (m, e) -> m.put(e.getKey(), e.getValue()),
                          Map::putAll));
    }
  }

  @Test
  void shouldSendAValueThatDoesNotFitItsDeclaredTypeToTheErrorObject() throws Exception {
    registry.avro(GLUE_SCHEMA_ID, avsc());
    String good = new String(Files.readAllBytes(EVENT), StandardCharsets.UTF_8);
    // quantity beyond int, a total with more decimals than the scale: never rounded
    MemoryStore store =
        run(
            env(registry.url(), false),
            event(
                "{\"orderId\":\"x\",\"placedAt\":1,\"total\":1.005,\"quantity\":1,\"weightKg\":1,"
                    + "\"ratio\":1,\"express\":true,\"status\":\"PLACED\",\"customer\":{\"id\":1,"
                    + "\"address\":{\"city\":\"c\"}},\"tags\":[],\"attributes\":{}}",
                "AVRO"));
    assertThat(good).isNotEmpty();
    String errors = store.errors();
    // The reason names the field and the types, never the value (DESIGN §6)
    assertThat(errors)
        .contains(
            "field 'total' is a number with a fraction or exponent, but the registry schema"
                + " declares a decimal(12,2) without rounding")
        .doesNotContain("1.005\"");
    // An error-only group writes its error object alone: no zero-row Parquet file (DESIGN §3)
    assertThat(store.objects.keySet()).noneMatch(k -> k.endsWith(".parquet"));
  }

  @Test
  void shouldPreferTheDeclaredSchemaOverTheRegistrys() throws Exception {
    registry.avro(GLUE_SCHEMA_ID, avsc());
    Map<String, String> env = env(registry.url(), false);
    // the registry says int and decimal(12,2); PARQUET_SCHEMA says bigint and string
    env.put("PARQUET_SCHEMA", "{\"quantity\":\"bigint\",\"orderId\":\"string\"}");
    MemoryStore store = run(env, Files.readAllBytes(EVENT));

    Map<String, String> types = types(store.parquet(dir));
    assertThat(types).containsEntry("quantity", "BIGINT").containsEntry("orderId", "VARCHAR");
    // declared first, in the declared order; the other fields inferred after them
    assertThat(types.keySet()).startsWith("quantity", "orderId").doesNotContain("placedAt_2");
    assertThat(types).containsEntry("weightKg", "DOUBLE").containsEntry("placedAt", "BIGINT");
  }

  // ---- helpers ----

  static String avsc() throws IOException {
    try (var in =
        SchemaRegistryParquetTest.class.getResourceAsStream("/schema-registry/order.avsc")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** One record of the converted shape with this JSON value. */
  static byte[] event(String valueJson, String dataFormat) {
    String b64 =
        java.util.Base64.getEncoder().encodeToString(valueJson.getBytes(StandardCharsets.UTF_8));
    return ("{\"eventSource\":\"aws:kafka\",\"records\":{\"orders-0\":[{\"topic\":\"orders\","
            + "\"partition\":0,\"offset\":7,\"timestamp\":1783955045000,"
            + "\"timestampType\":\"CREATE_TIME\",\"key\":null,\"value\":\""
            + b64
            + "\",\"headers\":[],\"valueSchemaMetadata\":{\"dataFormat\":\""
            + dataFormat
            + "\",\"schemaId\":\""
            + GLUE_SCHEMA_ID
            + "\"}}]}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static Map<String, String> env(String registryUri, boolean metadata) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "registry-bucket");
    env.put("AWS_REGION", "us-east-1");
    env.put("OUTPUT_FORMAT", "parquet");
    env.put("COMPRESSION", "snappy");
    env.put("INCLUDE_KAFKA_METADATA", Boolean.toString(metadata));
    env.put("SCHEMA_REGISTRY_URI", registryUri);
    return env;
  }

  static ArchiverHandler handler(Map<String, String> env, MemoryStore store) {
    return new ArchiverHandler(ArchiverConfig.fromEnv(env), store, Clock.systemUTC());
  }

  static MemoryStore run(Map<String, String> env, byte[] event) throws IOException {
    MemoryStore store = new MemoryStore();
    handler(env, store)
        .handleRequest(
            new ByteArrayInputStream(event), new ByteArrayOutputStream(), new LocalContext(60_000));
    return store;
  }

  static Map<String, String> types(Path file) {
    Map<String, String> types = new LinkedHashMap<>();
    try (DuckDb duck = new DuckDb()) {
      for (var r :
          duck.query("DESCRIBE SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")")) {
        types.put((String) r.get("column_name"), (String) r.get("column_type"));
      }
    }
    types.keySet().removeIf(name -> name.startsWith("kafka_"));
    return types;
  }

  static Path repoFile(String relative) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.exists(d.resolve(relative))) {
        return d.resolve(relative);
      }
    }
    throw new IllegalStateException(relative + " not found");
  }

  /** Keeps every object in memory. */
  static final class MemoryStore extends io.kafkas3archiver.testing.MemoryStore {

    Path parquet(Path dir) throws IOException {
      List<String> keys =
          objects.keySet().stream()
              .filter(k -> k.endsWith(".parquet") && !k.contains("error"))
              .toList();
      assertThat(keys).hasSize(1);
      return Files.write(Files.createTempFile(dir, "data", ".parquet"), objects.get(keys.get(0)));
    }

    String errors() {
      return objects.entrySet().stream()
          .filter(e -> !e.getKey().endsWith(".parquet"))
          .map(e -> new String(e.getValue(), StandardCharsets.UTF_8))
          .reduce("", String::concat);
    }
  }
}
