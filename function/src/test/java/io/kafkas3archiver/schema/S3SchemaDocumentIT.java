package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * {@code PARQUET_SCHEMA=s3://<bucket>/<key>}: a schema document in S3 (S3Proxy on 127.0.0.1, read
 * with the function's own S3 settings and execution role) drives the Parquet columns, read on the
 * first batch, never while priming, and kept.
 */
class S3SchemaDocumentIT {
  static S3ProxyServer s3;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    s3 = S3ProxyServer.inMemory();
    s3.createBucket("conf");
    put(
        "schemas/orders.json",
        "{\"orderId\":\"string\",\"total\":\"decimal(12,2)\",\"at\":\"timestamp\"}");
    put("schemas/broken.json", "{\"orderId\":\"text\"}");
  }

  @AfterAll
  static void stop() {
    s3.close();
  }

  private static void put(String key, String body) {
    try (var client = s3.client()) {
      client.putObject(b -> b.bucket("conf").key(key), RequestBody.fromString(body));
    }
  }

  @Test
  void shouldWriteTheDocumentsColumnsReadOnceAfterPriming() throws Exception {
    Map<String, String> env = env("s3://conf/schemas/orders.json");
    SchemaRegistryParquetTest.MemoryStore store = new SchemaRegistryParquetTest.MemoryStore();
    ArchiverHandler handler =
        new ArchiverHandler(ArchiverConfig.fromEnv(env), store, Clock.systemUTC(), env::get);
    handler.prime();
    handle(handler, "{\"orderId\":\"o-1\",\"total\":12.5,\"at\":1796518923456,\"qty\":2}");
    // replaced after the first read: the function keeps what it read
    put("schemas/orders.json", "{\"orderId\":\"bigint\"}");
    try {
      handle(handler, "{\"orderId\":\"o-2\",\"total\":1.25}", "{\"total\":1.255}");
    } finally {
      put(
          "schemas/orders.json",
          "{\"orderId\":\"string\",\"total\":\"decimal(12,2)\",\"at\":\"timestamp\"}");
    }

    List<String> parquet =
        store.objects.keySet().stream()
            .filter(k -> k.endsWith(".parquet") && !k.contains("_errors"))
            .toList();
    assertThat(parquet).hasSize(2);
    for (String key : parquet) {
      Path file = Files.write(Files.createTempFile(dir, "o", ".parquet"), store.objects.get(key));
      assertThat(SchemaRegistryParquetTest.types(file))
          .containsExactly(
              Map.entry("orderId", "VARCHAR"),
              Map.entry("total", "DECIMAL(12,2)"),
              Map.entry("at", "TIMESTAMP WITH TIME ZONE"),
              Map.entry("qty", "BIGINT"),
              Map.entry("_overflow", "VARCHAR"));
    }
    assertThat(store.errors())
        .contains(
            "field 'total' is a number with a fraction or exponent, but the schema document"
                + " s3://conf/schemas/orders.json declares it decimal(12,2)");
  }

  @Test
  void shouldFailTheBatchNamingAMissingOrInvalidDocument() {
    assertThatThrownBy(() -> handle(handler(env("s3://conf/schemas/missing.json")), "{}"))
        .isInstanceOf(DeclaredSchemaException.class)
        .hasMessageContaining("could not read the schema document s3://conf/schemas/missing.json")
        .hasMessageContaining("404")
        .hasMessageContaining("upload the schema document there, or fix PARQUET_SCHEMA");
    assertThatThrownBy(() -> handle(handler(env("s3://conf/schemas/broken.json")), "{}"))
        .isInstanceOf(DeclaredSchemaException.class)
        .hasMessageContaining("the schema document s3://conf/schemas/broken.json is not a valid")
        .hasMessageContaining("field 'orderId': unknown type 'text'");
  }

  private static ArchiverHandler handler(Map<String, String> env) {
    return new ArchiverHandler(
        ArchiverConfig.fromEnv(env),
        new SchemaRegistryParquetTest.MemoryStore(),
        Clock.systemUTC(),
        env::get);
  }

  private static Map<String, String> env(String parquetSchema) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "archive-bucket");
    env.put("AWS_REGION", S3ProxyServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
    env.put("OUTPUT_FORMAT", "parquet");
    env.put("PARQUET_SCHEMA", parquetSchema);
    return env;
  }

  private static long offset = 1;

  private static void handle(ArchiverHandler handler, String... values) throws Exception {
    List<KafkaEvents.Rec> records = new java.util.ArrayList<>();
    for (String v : values) {
      records.add(KafkaEvents.Rec.of("orders", 0, offset++, 1796518923000L, v));
    }
    handler.handleRequest(
        new ByteArrayInputStream(KafkaEvents.event(records)),
        new ByteArrayOutputStream(),
        new LocalContext(60_000));
  }
}
