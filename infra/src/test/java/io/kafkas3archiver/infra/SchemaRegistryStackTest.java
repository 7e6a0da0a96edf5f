package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * The schema-registry option: the mapping's SchemaRegistryConfig (AWS CloudFormation,
 * "AWS::Lambda::EventSourceMapping SchemaRegistryConfig"), the grants it needs, and the function's
 * settings. template.yaml's side is compared with this one by SamParityTest and
 * DeploymentParityTest.
 */
class SchemaRegistryStackTest {
  static Template glue;
  static Template confluent;

  @BeforeAll
  static void synthesize() {
    Map<String, Object> g = new LinkedHashMap<>(Fixtures.mskDefaults());
    g.put("outputFormat", "parquet");
    g.put("schemaRegistryUri", InfraMatrix.GLUE_REGISTRY_ARN);
    glue = Template.fromStack(Fixtures.stack(g));
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("schemaRegistryUri", "https://registry.example.com:8081");
    c.put("schemaRegistryAuth", "basic");
    c.put("schemaRegistrySecretArn", InfraMatrix.REGISTRY_SECRET_ARN);
    c.put("schemaValidation", "KEY,VALUE");
    confluent = Template.fromStack(Fixtures.stack(c));
  }

  @Test
  void shouldConvertValuesToJsonWithTheGlueRegistry() {
    glue.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "AmazonManagedKafkaEventSourceConfig",
            Match.objectLike(
                Map.of(
                    "SchemaRegistryConfig",
                    Map.of(
                        "SchemaRegistryURI",
                        InfraMatrix.GLUE_REGISTRY_ARN,
                        "EventRecordFormat",
                        "JSON",
                        "SchemaValidationConfigs",
                        List.of(Map.of("Attribute", "VALUE")))))));
  }

  @Test
  void shouldAuthenticateToTheConfluentRegistryWithItsSecretAndValidateKeyAndValue() {
    confluent.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "AmazonManagedKafkaEventSourceConfig",
            Match.objectLike(
                Map.of(
                    "SchemaRegistryConfig",
                    Map.of(
                        "SchemaRegistryURI",
                        "https://registry.example.com:8081",
                        "EventRecordFormat",
                        "JSON",
                        "AccessConfigs",
                        List.of(
                            Map.of("Type", "BASIC_AUTH", "URI", InfraMatrix.REGISTRY_SECRET_ARN)),
                        "SchemaValidationConfigs",
                        List.of(Map.of("Attribute", "KEY"), Map.of("Attribute", "VALUE")))))));
  }

  @Test
  void shouldKeepTheProvisionedPollersTheRegistryNeeds() {
    glue.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of("ProvisionedPollerConfig", Match.objectLike(Map.of("MinimumPollers", 1))));
  }

  @Test
  void shouldGrantGlueReadsOnTheRegistryAndItsSchemasOnly() {
    var statements = Templates.statements(glue);
    assertThat(Templates.resourcesFor(statements, "glue:GetSchemaVersion"))
        .containsExactlyInAnyOrder(
            InfraMatrix.GLUE_REGISTRY_ARN, "arn:aws:glue:us-east-1:123456789012:schema/orders/*");
    assertThat(Templates.resourcesFor(statements, "glue:GetRegistry"))
        .contains(InfraMatrix.GLUE_REGISTRY_ARN);
  }

  @Test
  void shouldGiveTheFunctionTheRegistryAndTheBasicAuthSecret() {
    assertThat(Templates.environment(glue))
        .containsEntry("SCHEMA_REGISTRY_URI", InfraMatrix.GLUE_REGISTRY_ARN)
        .containsEntry("SCHEMA_REGISTRY_SECRET_ARN", "");
    assertThat(Templates.environment(confluent))
        .containsEntry("SCHEMA_REGISTRY_URI", "https://registry.example.com:8081")
        .containsEntry("SCHEMA_REGISTRY_SECRET_ARN", InfraMatrix.REGISTRY_SECRET_ARN);
    assertThat(
            Templates.resourcesFor(
                Templates.statements(confluent), "secretsmanager:GetSecretValue"))
        .contains(InfraMatrix.REGISTRY_SECRET_ARN);
  }

  @Test
  void shouldRefuseARegistryWithoutProvisionedPollersOrWithAuthForGlue() {
    Map<String, Object> onDemand = new LinkedHashMap<>(Fixtures.mskDefaults());
    onDemand.put("schemaRegistryUri", InfraMatrix.GLUE_REGISTRY_ARN);
    onDemand.put("provisionedPollers", "false");
    assertThatThrownBy(() -> Fixtures.stack(onDemand))
        .hasMessageContaining("schemaRegistryUri needs provisionedPollers=true");

    Map<String, Object> glueAuth = new LinkedHashMap<>(Fixtures.mskDefaults());
    glueAuth.put("schemaRegistryUri", InfraMatrix.GLUE_REGISTRY_ARN);
    glueAuth.put("schemaRegistryAuth", "basic");
    glueAuth.put("schemaRegistrySecretArn", InfraMatrix.REGISTRY_SECRET_ARN);
    assertThatThrownBy(() -> Fixtures.stack(glueAuth))
        .hasMessageContaining("a Glue registry is read with the execution role");

    Map<String, Object> noSecret = new LinkedHashMap<>(Fixtures.mskDefaults());
    noSecret.put("schemaRegistryUri", "https://registry.example.com");
    noSecret.put("schemaRegistryAuth", "client-certificate");
    assertThatThrownBy(() -> Fixtures.stack(noSecret))
        .hasMessageContaining("needs schemaRegistrySecretArn");
  }

  @Test
  void shouldRefuseRegistryCredentialsOverPlainHttp() {
    Map<String, Object> plain = new LinkedHashMap<>(Fixtures.mskDefaults());
    plain.put("schemaRegistryUri", "http://registry.example.com:8081");
    plain.put("schemaRegistryAuth", "basic");
    plain.put("schemaRegistrySecretArn", InfraMatrix.REGISTRY_SECRET_ARN);
    assertThatThrownBy(() -> Fixtures.stack(plain))
        .hasMessageContaining("is plain http")
        .hasMessageContaining("clear text")
        .hasMessageContaining("https://");
  }
}
