package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * Self-managed Kafka with SASL/SCRAM in a VPC, an imported bucket in another region, static keys
 * from a secret, a cross-account role, SSE-KMS, and on-demand pollers. One check a test.
 */
class SelfManagedStackTest {
  static Template template;
  static List<Templates.Statement> policies;

  @BeforeAll
  static void synthesize() {
    template = Template.fromStack(Fixtures.stack(Fixtures.selfManaged()));
    policies = Templates.statements(template);
  }

  @Test
  void shouldImportTheBucketInsteadOfCreatingOne() {
    template.resourceCountIs("AWS::S3::Bucket", 0);
  }

  @Test
  void shouldNameTheImportedBucketAndItsRegion() {
    assertThat(Templates.environment(template))
        .containsEntry("BUCKET_NAME", "acme-kafka-archive")
        .containsEntry("BUCKET_REGION", "eu-west-1");
  }

  @Test
  void shouldScopePutObjectToThePrefixesOfTheImportedBucket() {
    assertThat(Templates.resourcesFor(policies, "s3:PutObject"))
        .containsExactlyInAnyOrder(
            "arn:${AWS::Partition}:s3:::acme-kafka-archive/condense/vehicle-telemetry/*",
            "arn:${AWS::Partition}:s3:::acme-kafka-archive/condense/_errors/vehicle-telemetry/*",
            "arn:${AWS::Partition}:s3:::acme-kafka-archive/condense/_preflight/*");
  }

  @Test
  void shouldReadOnlyTheCredentialsAndScramSecrets() {
    assertThat(Templates.resourcesFor(policies, "secretsmanager:GetSecretValue"))
        .containsExactlyInAnyOrder(Fixtures.CREDENTIALS_SECRET_ARN, Fixtures.SCRAM_SECRET_ARN);
  }

  @Test
  void shouldAssumeOnlyTheConfiguredRole() {
    assertThat(Templates.resourcesFor(policies, "sts:AssumeRole"))
        .containsExactly(Fixtures.ROLE_ARN);
  }

  @Test
  void shouldUseTheKmsKeyOnlyThroughS3InTheBucketRegion() {
    assertThat(policies)
        .filteredOn(s -> s.actions().contains("kms:GenerateDataKey"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.resources()).containsExactly(Fixtures.KMS_KEY_ARN);
              // The partition's own suffix (amazonaws.com.cn in aws-cn), not a literal.
              assertThat(
                      Templates.render(
                          Templates.cast(Templates.cast(s.condition()).get("StringEquals"))
                              .get("kms:ViaService")))
                  .isEqualTo("s3.eu-west-1.${AWS::URLSuffix}");
            });
  }

  @Test
  void shouldPassCredentialsRoleAndKmsSettingsToTheFunction() {
    assertThat(Templates.environment(template))
        .containsEntry("CREDENTIALS_SECRET_ARN", Fixtures.CREDENTIALS_SECRET_ARN)
        .containsEntry("ROLE_ARN", Fixtures.ROLE_ARN)
        .containsEntry("EXTERNAL_ID", "archiver-external-id")
        .containsEntry("SSE", "aws:kms")
        .containsEntry("KMS_KEY_ID", Fixtures.KMS_KEY_ARN);
  }

  @Test
  void shouldPointTheMappingAtTheBootstrapServers() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "SelfManagedEventSource",
            Map.of(
                "Endpoints",
                Map.of(
                    "KafkaBootstrapServers",
                    List.of("b-1.example.com:9096", "b-2.example.com:9096")))));
  }

  @Test
  void shouldAuthenticateWithScramAndRunInTheBrokersVpc() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "SourceAccessConfigurations",
            List.of(
                Map.of("Type", "SASL_SCRAM_512_AUTH", "URI", Fixtures.SCRAM_SECRET_ARN),
                Map.of("Type", "VPC_SUBNET", "URI", "subnet:subnet-0aaa"),
                Map.of("Type", "VPC_SUBNET", "URI", "subnet:subnet-0bbb"),
                Map.of("Type", "VPC_SECURITY_GROUP", "URI", "security_group:sg-0ccc"))));
  }

  @Test
  void shouldSetTheConsumerGroupOnTheSelfManagedConfig() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "SelfManagedKafkaEventSourceConfig",
            Map.of("ConsumerGroupId", "kafka-s3-archiver-S3_Event_Archive_Prod")));
  }

  @Test
  void shouldOmitErrorHandlingControlsWithoutProvisionedPollers() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "ProvisionedPollerConfig", Match.absent(),
            "FunctionResponseTypes", Match.absent(),
            "MaximumRetryAttempts", Match.absent(),
            "DestinationConfig", Match.absent()));
  }

  @Test
  void shouldTellTheFunctionNotToReportItemFailuresTheMappingWouldIgnore() {
    assertThat(Templates.environment(template))
        .containsEntry("REPORT_BATCH_ITEM_FAILURES", "false");
  }

  @Test
  void shouldGrantNoMskActionsForSelfManagedKafka() {
    assertThat(Templates.allActions(policies)).isNotEmpty().noneMatch(a -> a.startsWith("kafka"));
  }

  @Test
  void shouldCreateNoOnFailureQueueWithoutProvisionedPollers() {
    template.resourceCountIs("AWS::SQS::Queue", 0);
  }
}
