package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.Pipeline;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.EventDecoder;
import io.kafkas3archiver.decode.Invocation;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.testing.MotoServer;
import io.kafkas3archiver.upload.SchemaRegistryClients;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * The same converted event as {@link SchemaRegistryParquetTest}, typed by a Glue Schema Registry
 * that moto serves: the real SDK client, request signing and GetSchemaVersion by the schema version
 * id the mapping sends. moto because it implements the registry API (CreateRegistry, CreateSchema,
 * GetSchemaVersion) over HTTP with no AWS account.
 */
class GlueSchemaRegistryIT {
  static MotoServer moto;
  static String registryArn;
  static String versionId;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    moto = MotoServer.start();
    try (GlueClient glue = moto.glue()) {
      registryArn = glue.createRegistry(r -> r.registryName("orders")).registryArn();
      versionId =
          glue.createSchema(
                  r ->
                      r.registryId(id -> id.registryName("orders"))
                          .schemaName("orders-value")
                          .dataFormat("AVRO")
                          .compatibility("BACKWARD")
                          .schemaDefinition(avsc()))
              .schemaVersionId();
    }
  }

  @AfterAll
  static void stop() {
    moto.close();
  }

  private static String avsc() {
    try {
      return SchemaRegistryParquetTest.avsc();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void shouldTypeTheColumnsByTheSchemaVersionFromGlue() throws Exception {
    String event =
        Files.readString(SchemaRegistryParquetTest.EVENT)
            .replace(SchemaRegistryParquetTest.GLUE_SCHEMA_ID, versionId);
    SchemaRegistryParquetTest.MemoryStore store = archive(env(), event);

    assertThat(registryArn).isEqualTo("arn:aws:glue:us-east-1:123456789012:registry/orders");
    assertThat(SchemaRegistryParquetTest.types(store.parquet(dir)))
        .containsExactlyEntriesOf(SchemaRegistryParquetTest.ORDER_TYPES);
    assertThat(moto.recorded())
        .filteredOn(r -> r.body().contains(versionId))
        .hasSize(1)
        .allSatisfy(
            r -> assertThat(r.header("X-Amz-Target")).isEqualTo("AWSGlue.GetSchemaVersion"));
  }

  @Test
  void shouldFailTheBatchNamingTheRegistryWhenGlueHasNoSuchSchemaVersion() throws Exception {
    String event = Files.readString(SchemaRegistryParquetTest.EVENT);
    assertThatThrownBy(() -> archive(env(), event))
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageContaining("the Glue schema registry " + registryArn)
        .hasMessageContaining("has no schema " + SchemaRegistryParquetTest.GLUE_SCHEMA_ID)
        .hasMessageContaining("SCHEMA_REGISTRY_URI");
  }

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.putAll(SchemaRegistryParquetTest.env(registryArn, false));
    env.put("AWS_ENDPOINT_URL_GLUE", moto.endpoint().toString());
    return env;
  }

  private static SchemaRegistryParquetTest.MemoryStore archive(
      Map<String, String> env, String event) throws Exception {
    ArchiverConfig config = ArchiverConfig.fromEnv(env);
    SchemaRegistryParquetTest.MemoryStore store = new SchemaRegistryParquetTest.MemoryStore();
    Pipeline pipeline =
        new Pipeline(
            config, store, Clock.systemUTC(), SchemaRegistryClients.catalog(config, env::get));
    Invocation.KafkaBatch batch =
        (Invocation.KafkaBatch)
            new EventDecoder()
                .decode(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)));
    var outcome = pipeline.archive(batch, Deadline.in(60_000, Clock.systemUTC()));
    assertThat(outcome.succeeded()).isTrue();
    return store;
  }
}
