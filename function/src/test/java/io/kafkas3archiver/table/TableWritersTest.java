package io.kafkas3archiver.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.testing.UnconditionalStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class TableWritersTest {

  @Test
  void shouldFailInitNamingTheIcebergArtifactWhenThePlainJarIsAskedForIceberg() {
    // Given the plain module's class path, which holds no table writer
    assertThat(ServiceLoader.load(TableWriterProvider.class)).isEmpty();
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "archive", "AWS_REGION", "us-east-1", "OUTPUT_FORMAT", "iceberg"));

    // When the handler is built (the cold start), Then it fails with the artifact to deploy
    assertThatThrownBy(
            () ->
                new ArchiverHandler(
                    config,
                    (UnconditionalStore) (key, body, type, deadline) -> null,
                    Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("OUTPUT_FORMAT='iceberg'")
        .hasMessageContaining("kafka-s3-archiver-iceberg.jar")
        .hasMessageContaining("json, ndjson, csv, parquet");
  }

  @Test
  void shouldRefuseTheMaintainActionWhenTheFunctionWritesFiles() {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(Map.of("BUCKET_NAME", "archive", "AWS_REGION", "us-east-1"));
    var handler =
        new ArchiverHandler(
            config, (UnconditionalStore) (key, body, type, deadline) -> null, Clock.systemUTC());

    assertThatThrownBy(
            () ->
                handler.handleRequest(
                    new ByteArrayInputStream(
                        "{\"action\":\"maintain\"}".getBytes(StandardCharsets.UTF_8)),
                    new ByteArrayOutputStream(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("OUTPUT_FORMAT=iceberg");
  }
}
