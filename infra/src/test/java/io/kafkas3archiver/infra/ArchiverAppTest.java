package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;

class ArchiverAppTest {

  @Test
  void shouldNameTheStackAfterTheTitle() {
    assertThat(Fixtures.stack(Fixtures.mskDefaults()).getStackName())
        .isEqualTo("KafkaS3Archiver-S3-Event-Archive-Prod");
  }

  @Test
  void shouldExplainAMissingFunctionJar() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("jarPath", "no/such/kafka-s3-archiver.jar");
    App app = App.Builder.create().context(c).build();
    assertThatThrownBy(() -> ArchiverApp.createStack(app))
        .hasMessageContaining("does not exist")
        .hasMessageContaining("./mvnw -B -DskipTests package");
  }

  @Test
  void shouldRejectAMisspelledContextKey() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormt", "xml");
    c.put("jarPath", Fixtures.jar()); // without the check, the stack would then synthesize
    App app = App.Builder.create().context(c).build();
    assertThatThrownBy(() -> ArchiverApp.createStack(app))
        .hasMessageContaining("unknown context key(s) [outputFormt]")
        .hasMessageContaining("outputFormat");
  }

  @Test
  void shouldSynthesizeTheShippedConnectorExample() {
    // docs/deploy.md runs `cdk synth -c configFile=connector.json` in infra/: the file must work.
    App app =
        App.Builder.create()
            .context(Map.of("configFile", "connector.json", "jarPath", Fixtures.jar()))
            .build();

    assertThat(ArchiverApp.createStack(app).getStackName())
        .isEqualTo("KafkaS3Archiver-S3-Event-Archive-Prod");
    assertThat(ArchiverSettings.readJsonFile(Path.of("connector.json")))
        .containsKeys("title", "bucketName", "region", "inputTopic", "accessKey", "secretKey");
  }
}
