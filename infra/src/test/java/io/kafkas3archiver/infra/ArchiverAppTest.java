package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
