package io.kafkas3archiver.infra;

import io.github.cdklabs.cdknag.NagSuppressions;
import io.kafkas3archiver.infra.ArchiverSettings.OnFailure;
import io.kafkas3archiver.infra.ArchiverSettings.SourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awscdk.services.iam.Policy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.AmazonManagedKafkaEventSourceConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.DestinationConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.EndpointsProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.OnFailureProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.ProvisionedPollerConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.SelfManagedEventSourceProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.SelfManagedKafkaEventSourceConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.SourceAccessConfigurationProperty;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * The Kafka event source mapping on the function's alias, and the permissions its pollers use. An
 * L1 resource on purpose: every property the mapping gets is visible here and in the tests.
 *
 * <p>Kafka's error-handling controls (retries, record age, bisect, partial batch response) exist
 * only in provisioned mode, so they are set only with provisioned pollers; without them the
 * function is told not to report item failures (REPORT_BATCH_ITEM_FAILURES=false).
 */
final class KafkaSource {
  private KafkaSource() {}

  static CfnEventSourceMapping mapping(
      Construct scope, ArchiverSettings s, Alias alias, Role role, Optional<Queue> failureQueue) {
    Policy pollerPolicy =
        Policy.Builder.create(scope, "MappingAccess").statements(pollerStatements(s)).build();
    pollerPolicy.attachToRole(role);

    CfnEventSourceMapping.Builder m =
        CfnEventSourceMapping.Builder.create(scope, "KafkaMapping")
            .functionName(alias.getFunctionArn())
            .topics(List.of(s.inputTopic()))
            .startingPosition(s.startingPosition())
            .batchSize(s.batchSize())
            .maximumBatchingWindowInSeconds(s.batchingWindowSeconds())
            .enabled(true);

    List<SourceAccessConfigurationProperty> access = new ArrayList<>();
    if (s.sourceType() == SourceType.MSK) {
      m.eventSourceArn(s.clusterArn().orElseThrow())
          .amazonManagedKafkaEventSourceConfig(
              AmazonManagedKafkaEventSourceConfigProperty.builder()
                  .consumerGroupId(s.consumerGroupId())
                  .build());
      if (!ArchiverStack.isMskIam(s)) {
        access.add(sac("SASL_SCRAM_512_AUTH", s.saslScramSecretArn().orElseThrow()));
      }
    } else {
      m.selfManagedEventSource(
              SelfManagedEventSourceProperty.builder()
                  .endpoints(
                      EndpointsProperty.builder()
                          .kafkaBootstrapServers(s.bootstrapServers())
                          .build())
                  .build())
          .selfManagedKafkaEventSourceConfig(
              SelfManagedKafkaEventSourceConfigProperty.builder()
                  .consumerGroupId(s.consumerGroupId())
                  .build());
      access.add(
          sac(
              s.saslMechanism().equals("SCRAM_256") ? "SASL_SCRAM_256_AUTH" : "SASL_SCRAM_512_AUTH",
              s.saslScramSecretArn().orElseThrow()));
      s.subnetIds().forEach(id -> access.add(sac("VPC_SUBNET", "subnet:" + id)));
      s.securityGroupIds()
          .forEach(id -> access.add(sac("VPC_SECURITY_GROUP", "security_group:" + id)));
    }
    if (!access.isEmpty()) {
      m.sourceAccessConfigurations(access);
    }

    if (s.provisionedPollers()) {
      m.provisionedPollerConfig(
              ProvisionedPollerConfigProperty.builder()
                  .minimumPollers(s.minimumPollers())
                  .maximumPollers(s.maximumPollers())
                  .build())
          .maximumRetryAttempts(s.retryAttempts())
          .maximumRecordAgeInSeconds(s.maximumRecordAgeSeconds())
          .bisectBatchOnFunctionError(s.bisectBatchOnError());
      if (s.reportBatchItemFailures()) {
        m.functionResponseTypes(List.of("ReportBatchItemFailures"));
      }
      Optional<String> destination =
          switch (s.onFailure()) {
            case SQS -> failureQueue.map(Queue::getQueueArn);
            case S3 -> s.onFailureBucketArn();
            case NONE -> Optional.<String>empty();
          };
      destination.ifPresent(
          arn ->
              m.destinationConfig(
                  DestinationConfigProperty.builder()
                      .onFailure(OnFailureProperty.builder().destination(arn).build())
                      .build()));
      failureQueue.ifPresent(q -> q.grantSendMessages(role));
    }

    CfnEventSourceMapping mapping = m.build();
    // The pollers check the role when the mapping is created.
    mapping.getNode().addDependency(pollerPolicy);
    mapping.getNode().addDependency(role);
    if (statementsUseWildcard(s)) {
      NagSuppressions.addResourceSuppressions(
          pollerPolicy,
          List.of(
              ArchiverStack.suppress(
                  "AwsSolutions-IAM5",
                  "EC2 network-interface actions used by Lambda's Kafka pollers in the brokers'"
                      + " VPC support no resource-level permissions (Resource *); S3 on-failure"
                      + " objects are written under keys Lambda chooses, hence <bucket>/*.")));
    }
    return mapping;
  }

  private static boolean statementsUseWildcard(ArchiverSettings s) {
    return s.sourceType() == SourceType.MSK
        || !s.subnetIds().isEmpty()
        || (s.provisionedPollers() && s.onFailure() == OnFailure.S3);
  }

  /** What Lambda's Kafka pollers need, on the execution role. */
  static List<PolicyStatement> pollerStatements(ArchiverSettings s) {
    List<PolicyStatement> statements = new ArrayList<>();
    // The pollers run in the brokers' VPC through ENIs; these EC2 actions take no resource ARNs.
    boolean vpc = s.sourceType() == SourceType.MSK || !s.subnetIds().isEmpty();
    if (vpc) {
      statements.add(
          AccessPolicy.allow(
              "PollerNetworkInterfaces",
              List.of(
                  "ec2:CreateNetworkInterface",
                  "ec2:DescribeNetworkInterfaces",
                  "ec2:DeleteNetworkInterface",
                  "ec2:DescribeVpcs",
                  "ec2:DescribeSubnets",
                  "ec2:DescribeSecurityGroups"),
              List.of("*")));
    }
    if (s.sourceType() == SourceType.MSK) {
      String cluster = s.clusterArn().orElseThrow();
      statements.add(
          AccessPolicy.allow(
              "DescribeCluster",
              List.of(
                  "kafka:DescribeCluster", "kafka:DescribeClusterV2", "kafka:GetBootstrapBrokers"),
              List.of(cluster)));
      if (ArchiverStack.isMskIam(s)) {
        statements.add(
            AccessPolicy.allow(
                "ConnectToCluster",
                List.of(
                    "kafka-cluster:Connect", "kafka-cluster:DescribeClusterDynamicConfiguration"),
                List.of(cluster)));
        statements.add(
            AccessPolicy.allow(
                "ReadTopic",
                List.of("kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"),
                List.of(mskChildArn(cluster, "topic", s.inputTopic()))));
        statements.add(
            AccessPolicy.allow(
                "ConsumerGroup",
                List.of("kafka-cluster:DescribeGroup", "kafka-cluster:AlterGroup"),
                List.of(mskChildArn(cluster, "group", s.consumerGroupId()))));
      }
    }
    s.saslScramSecretArn()
        .filter(x -> !ArchiverStack.isMskIam(s))
        .ifPresent(
            arn ->
                statements.add(
                    AccessPolicy.allow(
                        "ReadSaslScramSecret",
                        List.of("secretsmanager:GetSecretValue"),
                        List.of(arn))));
    if (s.provisionedPollers() && s.onFailure() == OnFailure.S3) {
      String target = s.onFailureBucketArn().orElseThrow();
      statements.add(
          AccessPolicy.allow(
              "WriteFailedBatches", List.of("s3:PutObject"), List.of(target + "/*")));
      statements.add(
          AccessPolicy.allow("ListFailureBucket", List.of("s3:ListBucket"), List.of(target)));
    }
    return statements;
  }

  /**
   * {@code arn:aws:kafka:r:a:cluster/NAME/UUID} to {@code arn:aws:kafka:r:a:topic/NAME/UUID/x}
   * (MSK's IAM resource layout).
   */
  static String mskChildArn(String clusterArn, String kind, String name) {
    int at = clusterArn.indexOf(":cluster/");
    if (at < 0) {
      throw new IllegalArgumentException(
          "clusterArn='" + clusterArn + "' is not an MSK cluster ARN (…:cluster/NAME/UUID)");
    }
    return clusterArn.substring(0, at)
        + ":"
        + kind
        + "/"
        + clusterArn.substring(at + 9)
        + "/"
        + name;
  }

  private static SourceAccessConfigurationProperty sac(String type, String uri) {
    return SourceAccessConfigurationProperty.builder().type(type).uri(uri).build();
  }
}
