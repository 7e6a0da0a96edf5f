package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;

/**
 * {@code PARQUET_SCHEMA=glue:<database>.<table>}: a Glue table that moto serves (CreateDatabase,
 * CreateTable, GetTable over HTTP) drives the Parquet columns, read once after the restore and
 * never while priming; a record that does not match goes to the error object.
 */
class GlueTableSchemaIT {
  static MotoServer moto;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    moto = MotoServer.start();
    try (GlueClient glue = moto.glue()) {
      glue.createDatabase(r -> r.databaseInput(d -> d.name("analytics")));
      glue.createTable(
          r ->
              r.databaseName("analytics")
                  .tableInput(
                      t ->
                          t.name("telemetry")
                              .tableType("EXTERNAL_TABLE")
                              .partitionKeys(Column.builder().name("dt").type("string").build())
                              .storageDescriptor(
                                  sd ->
                                      sd.location("s3://glue-bucket/telemetry/")
                                          .columns(
                                              column("vehicleid", "string"),
                                              column("speedkmh", "double"),
                                              column("at", "timestamp"),
                                              column("price", "decimal(10,2)"),
                                              column("day", "date"),
                                              column("loc", "struct<lat:double,lon:double>"),
                                              column("tags", "array<string>"),
                                              column("attrs", "map<string,int>")))));
    }
  }

  @AfterAll
  static void stop() {
    moto.close();
  }

  private static Column column(String name, String type) {
    return Column.builder().name(name).type(type).build();
  }

  @Test
  void shouldWriteTheGlueTablesColumnsAndSendAMismatchToTheErrorObject() throws Exception {
    Map<String, String> env = env("glue:analytics.telemetry");
    long before = moto.count("AWSGlue.GetTable");
    SchemaRegistryParquetTest.MemoryStore store = new SchemaRegistryParquetTest.MemoryStore();
    // Init (before the snapshot) reads nothing either
    ArchiverHandler handler =
        new ArchiverHandler(
            ArchiverConfig.fromEnv(env), store, java.time.Clock.systemUTC(), env::get);
    // Priming runs the pipeline on a synthetic batch before the snapshot: no Glue call there
    handler.prime();
    assertThat(moto.count("AWSGlue.GetTable")).isEqualTo(before);

    handle(
        handler,
        "{\"vehicleId\":\"V-1\",\"speedKmh\":87.5,\"at\":\"2026-12-06T01:02:03.456Z\","
            + "\"price\":19.99,\"day\":\"2026-12-06\",\"loc\":{\"lat\":48.85,\"lon\":2.35},"
            + "\"tags\":[\"a\"],\"attrs\":{\"doors\":4},\"extra\":7}",
        "{\"vehicleId\":\"V-2\",\"speedKmh\":\"fast\"}");
    handle(handler, "{\"vehicleId\":\"V-3\",\"speedKmh\":1}");

    // read once, after the restore, and kept
    assertThat(moto.count("AWSGlue.GetTable")).isEqualTo(before + 1);
    List<String> parquet =
        store.objects.keySet().stream()
            .filter(k -> k.endsWith(".parquet") && !k.contains("_errors"))
            .sorted()
            .toList();
    assertThat(parquet).hasSize(2);
    Path first =
        java.nio.file.Files.write(dir.resolve("a.parquet"), store.objects.get(parquet.get(0)));
    java.nio.file.Files.write(dir.resolve("b.parquet"), store.objects.get(parquet.get(1)));
    // both objects carry every column, the second batch's too (it has no extra, loc, ...)
    assertThat(SchemaRegistryParquetTest.types(first))
        .containsExactly(
            Map.entry("vehicleid", "VARCHAR"),
            Map.entry("speedkmh", "DOUBLE"),
            Map.entry("at", "TIMESTAMP WITH TIME ZONE"),
            Map.entry("price", "DECIMAL(10,2)"),
            Map.entry("day", "DATE"),
            Map.entry("loc", "STRUCT(lat DOUBLE, lon DOUBLE)"),
            Map.entry("tags", "VARCHAR[]"),
            Map.entry("attrs", "MAP(VARCHAR, INTEGER)"),
            Map.entry("extra", "BIGINT"),
            Map.entry("_overflow", "VARCHAR"));
    try (DuckDb duck = new DuckDb()) {
      assertThat(
              duck.query(
                  "SELECT vehicleid, speedkmh, epoch_ms(\"at\") AS ts, CAST(price AS VARCHAR) AS"
                      + " price, CAST(\"day\" AS VARCHAR) AS d, loc.lat AS lat, CAST(tags AS VARCHAR) AS tags, CAST(attrs AS VARCHAR) AS attrs, extra FROM"
                      + " read_parquet("
                      + DuckDb.literal(dir.resolve("*.parquet"))
                      + ") ORDER BY vehicleid"))
          .extracting(Map::toString)
          .containsExactly(
              "{vehicleid=V-1, speedkmh=87.5, ts=1796518923456, price=19.99, d=2026-12-06,"
                  + " lat=48.85, tags=[a], attrs={doors=4}, extra=7}",
              "{vehicleid=V-3, speedkmh=1.0, ts=null, price=null, d=null, lat=null, tags=null,"
                  + " attrs=null, extra=null}");
    }
    // pyarrow, a second reader: the same types, the list and the struct as Arrow's own
    com.fasterxml.jackson.databind.JsonNode arrow = pyarrow(first);
    assertThat(arrow.get("types").toString())
        .isEqualTo(
            "{\"vehicleid\":\"string\",\"speedkmh\":\"double\",\"at\":\"timestamp[ms, tz=UTC]\","
                + "\"price\":\"decimal128(10, 2)\",\"day\":\"date32[day]\","
                + "\"loc\":\"struct<lat: double, lon: double>\",\"tags\":\"list<element: string>\","
                + "\"attrs\":\"map<string, int32 ('attrs')>\","
                + "\"extra\":\"int64\",\"_overflow\":\"string\"}");
    String errors = store.errors();
    assertThat(errors)
        .contains(
            "field 'speedkmh' is a string, but the Glue table analytics.telemetry declares it"
                + " double")
        .doesNotContain("ZmFzd"); // "fast" stays in the base64 value only, not in the reason
  }

  @Test
  void shouldFailTheBatchNamingTheMissingTableAndTheFix() {
    Map<String, String> env = env("glue:analytics.nosuchtable");
    ArchiverHandler handler =
        new ArchiverHandler(
            ArchiverConfig.fromEnv(env),
            new SchemaRegistryParquetTest.MemoryStore(),
            java.time.Clock.systemUTC(),
            env::get);
    assertThatThrownBy(() -> handle(handler, "{\"vehicleId\":\"V-1\"}"))
        .isInstanceOf(DeclaredSchemaException.class)
        .hasMessageContaining("the Glue table analytics.nosuchtable does not exist")
        .hasMessageContaining("EntityNotFoundException")
        .hasMessageContaining("PARQUET_SCHEMA=glue:<database>.<table>");
  }

  @Test
  void shouldNameTheGrantWhenGlueRefusesGetTable() throws Exception {
    // moto does not enforce IAM: a local server answers as Glue does to a role without the grant
    HttpServer glue = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    glue.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("{\"__type\":\"AccessDeniedException\",\"Message\":\"User is not authorized to"
                      + " perform: glue:GetTable\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(400, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    glue.start();
    try {
      GlueTableSchema table =
          new GlueTableSchema(
              new DeclaredSchemaRef.GlueTable("analytics", "telemetry"),
              URI.create("http://127.0.0.1:" + glue.getAddress().getPort()),
              "eu-west-1",
              software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                  software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                      "AKIDTEST", "secret")));
      assertThatThrownBy(table::get)
          .isInstanceOf(DeclaredSchemaException.class)
          .hasMessageContaining("may not read the Glue table analytics.telemetry")
          .hasMessageContaining("AccessDeniedException")
          .hasMessageContaining(
              "grant the execution role glue:GetTable on arn:aws:glue:eu-west-1:<account>:catalog,"
                  + " database/analytics and table/analytics/telemetry")
          .satisfies(e -> assertThat(((DeclaredSchemaException) e).retryable()).isFalse());
    } finally {
      glue.stop(0);
    }
  }

  /** The file's column types as pyarrow reads them ({@code arrow_types.py}). */
  private static com.fasterxml.jackson.databind.JsonNode pyarrow(Path file) throws Exception {
    Path python = null;
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (java.nio.file.Files.isExecutable(d.resolve(".venv/bin/python"))) {
        python = d.resolve(".venv/bin/python");
        break;
      }
    }
    assertThat(python).as(".venv/bin/python (pyarrow: .ci/requirements.txt)").isNotNull();
    Path script = Path.of("src/test/resources/schema/arrow_types.py").toAbsolutePath();
    Path out = java.nio.file.Files.createTempFile(file.getParent(), "arrow", ".json");
    Process p =
        new ProcessBuilder(python.toString(), script.toString(), file.toString())
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("pyarrow read").isZero();
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toFile());
  }

  @Test
  void shouldNameAnUnwritableColumnTypeAndAnUnreachableGlue() throws Exception {
    String union =
        "{\"Table\":{\"Name\":\"telemetry\",\"StorageDescriptor\":{\"Columns\":["
            + "{\"Name\":\"u\",\"Type\":\"uniontype<int,string>\"}]}}}";
    assertThatThrownBy(() -> localGlue(200, union).get())
        .isInstanceOf(DeclaredSchemaException.class)
        .hasMessageContaining(
            "the Glue table analytics.telemetry has column 'u' of a type the archiver cannot write"
                + " (unknown type 'uniontype')")
        .hasMessageContaining("change the column's type in the table")
        .satisfies(e -> assertThat(((DeclaredSchemaException) e).retryable()).isFalse());
    assertThatThrownBy(() -> localGlue(503, "{}").get())
        .isInstanceOf(DeclaredSchemaException.class)
        .hasMessageContaining("could not read the Glue table analytics.telemetry from Glue")
        .hasMessageContaining("a NAT gateway or a Glue interface endpoint")
        .satisfies(e -> assertThat(((DeclaredSchemaException) e).retryable()).isTrue());
  }

  /**
   * A {@link GlueTableSchema} against a local server that answers every call with {@code status}
   * and {@code body}, as Glue would; the server stops after one answer.
   */
  private static GlueTableSchema localGlue(int status, String body) throws Exception {
    HttpServer glue = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    glue.createContext(
        "/",
        exchange -> {
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
          new Thread(() -> glue.stop(0)).start();
        });
    glue.start();
    return new GlueTableSchema(
        new DeclaredSchemaRef.GlueTable("analytics", "telemetry"),
        URI.create("http://127.0.0.1:" + glue.getAddress().getPort()),
        "eu-west-1",
        software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                "AKIDTEST", "secret")));
  }

  private static Map<String, String> env(String parquetSchema) {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", "glue-bucket");
    env.put("OUTPUT_FORMAT", "parquet");
    env.put("PARQUET_SCHEMA", parquetSchema);
    env.put("AWS_ENDPOINT_URL_GLUE", moto.endpoint().toString());
    return env;
  }

  private static void handle(ArchiverHandler handler, String... values) throws Exception {
    List<KafkaEvents.Rec> records = new java.util.ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      records.add(KafkaEvents.Rec.of("telemetry", 0, offset++, 1796518923000L, values[i]));
    }
    handler.handleRequest(
        new ByteArrayInputStream(KafkaEvents.event(records)),
        new ByteArrayOutputStream(),
        new LocalContext(60_000));
  }

  private static long offset = 100;
}
