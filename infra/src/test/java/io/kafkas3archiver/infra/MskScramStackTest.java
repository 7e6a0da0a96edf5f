package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** MSK with SASL/SCRAM, failed batches to an S3 bucket, and tuned function settings. */
class MskScramStackTest {
  static final String FAILED = "arn:aws:s3:::acme-failed-batches";
  static Template template;
  static List<Templates.Statement> policies;

  @BeforeAll
  static void synthesize() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("mskAuth", "scram");
    c.put("saslScramSecretArn", Fixtures.SCRAM_SECRET_ARN);
    c.put("sourceSecretsKmsKeyArn", Fixtures.SECRETS_KEY_ARN);
    c.put("onFailure", "s3");
    c.put("onFailureBucketArn", FAILED);
    c.put("architecture", "x86_64");
    c.put("memorySize", "2048");
    c.put("timeoutSeconds", "120");
    c.put("logRetentionDays", "90");
    c.put("keyTemplate", "${KEY_PREFIX}/${OBJECT_NAME}/dt=${DATE}/${JOB_ID}");
    c.put("endpointUrlS3", "https://minio.example.com:9000");
    c.put("batchingWindowSeconds", "300");
    c.put("consumerGroupId", "archiver-prod");
    template = Template.fromStack(Fixtures.stack(c));
    policies = Templates.statements(template);
  }

  @Test
  void shouldAuthenticateToMskWithTheScramSecret() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "SourceAccessConfigurations",
            List.of(Map.of("Type", "SASL_SCRAM_512_AUTH", "URI", Fixtures.SCRAM_SECRET_ARN))));
  }

  @Test
  void shouldGrantNoKafkaClusterActionsWithoutIamAuth() {
    assertThat(Templates.allActions(policies))
        .isNotEmpty()
        .noneMatch(a -> a.startsWith("kafka-cluster:"));
  }

  @Test
  void shouldReadOnlyTheScramSecret() {
    assertThat(Templates.resourcesFor(policies, "secretsmanager:GetSecretValue"))
        .containsExactly(Fixtures.SCRAM_SECRET_ARN);
  }

  @Test
  void shouldLetThePollersDecryptTheScramSecretWithItsCustomerManagedKeyOnly() {
    List<Templates.Statement> decrypt =
        policies.stream().filter(s -> s.actions().contains("kms:Decrypt")).toList();
    assertThat(decrypt).hasSize(1);
    assertThat(decrypt.get(0).actions()).containsExactly("kms:Decrypt");
    assertThat(decrypt.get(0).resources()).containsExactly(Fixtures.SECRETS_KEY_ARN);
    assertThat(String.valueOf(decrypt.get(0).condition()))
        .contains("kms:ViaService")
        .contains("secretsmanager.");
  }

  @Test
  void shouldSendFailedBatchesToTheS3Bucket() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of("DestinationConfig", Map.of("OnFailure", Map.of("Destination", FAILED))));
  }

  @Test
  void shouldLetThePollersWriteOnlyToTheFailureBucket() {
    assertThat(Templates.resourcesFor(policies, "s3:PutObject")).contains(FAILED + "/*");
  }

  @Test
  void shouldCreateNoOnFailureQueueForAnS3Destination() {
    template.resourceCountIs("AWS::SQS::Queue", 0);
  }

  @Test
  void shouldUseTheConfiguredFunctionSettings() {
    template.hasResourceProperties(
        "AWS::Lambda::Function",
        Map.of("Architectures", List.of("x86_64"), "MemorySize", 2048, "Timeout", 120));
  }

  @Test
  void shouldKeepLogsForTheConfiguredDays() {
    template.hasResourceProperties("AWS::Logs::LogGroup", Map.of("RetentionInDays", 90));
  }

  @Test
  void shouldPassTheKeyTemplateAndEndpoint() {
    assertThat(Templates.environment(template))
        .containsEntry("KEY_TEMPLATE", "${KEY_PREFIX}/${OBJECT_NAME}/dt=${DATE}/${JOB_ID}")
        .containsEntry("AWS_ENDPOINT_URL_S3", "https://minio.example.com:9000");
  }

  @Test
  void shouldUseTheConfiguredWindowAndGroup() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "MaximumBatchingWindowInSeconds",
            300,
            "AmazonManagedKafkaEventSourceConfig",
            Map.of("ConsumerGroupId", "archiver-prod")));
  }

  @Test
  void shouldPublishOnlyTheLiveAlias() {
    template.resourceCountIs("AWS::Lambda::Alias", 1);
    template.resourcePropertiesCountIs("AWS::Lambda::Alias", Map.of("Name", "live"), 1);
    template.resourcePropertiesCountIs(
        "AWS::Lambda::Alias", Map.of("Name", Match.not(Match.exact("live"))), 0);
  }
}
