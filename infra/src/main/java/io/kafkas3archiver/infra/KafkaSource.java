package io.kafkas3archiver.infra;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.kafkas3archiver.infra.ArchiverSettings.OnFailure;
import io.kafkas3archiver.infra.ArchiverSettings.SourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.Policy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.AmazonManagedKafkaEventSourceConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.DestinationConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.EndpointsProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.MetricsConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.OnFailureProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.ProvisionedPollerConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.SchemaRegistryAccessConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.SchemaRegistryConfigProperty;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping.SchemaValidationConfigProperty;
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

    SchemaRegistryConfigProperty registry = schemaRegistry(s).orElse(null);
    if (s.sourceType() == SourceType.MSK) {
      m.eventSourceArn(s.clusterArn().orElseThrow())
          .amazonManagedKafkaEventSourceConfig(
              AmazonManagedKafkaEventSourceConfigProperty.builder()
                  .consumerGroupId(s.consumerGroupId())
                  .schemaRegistryConfig(registry)
                  .build());
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
                  .schemaRegistryConfig(registry)
                  .build());
    }
    s.startingPositionTimestamp().ifPresent(m::startingPositionTimestamp);
    List<SourceAccessConfigurationProperty> access = sourceAccess(s);
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
          .bisectBatchOnFunctionError(s.bisectBatchOnError())
          // The mapping's own Kafka metrics (consumer lag per partition, errors) exist only in
          // provisioned mode.
          .metricsConfig(
              MetricsConfigProperty.builder()
                  .metrics(List.of("EventCount", "ErrorCount", "KafkaMetrics"))
                  .build());
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
    List<Object> wildcards = new ArrayList<>();
    if (s.sourceType() == SourceType.MSK || !s.subnetIds().isEmpty()) {
      wildcards.add("Resource::*");
    }
    if (s.provisionedPollers() && s.onFailure() == OnFailure.S3) {
      wildcards.add("Resource::" + s.onFailureBucketArn().orElseThrow() + "/*");
    }
    if (s.glueRegistry()) {
      String schemas = s.schemaRegistryUri().orElseThrow().replaceFirst(":registry/", ":schema/");
      NagSuppressions.addResourceSuppressions(
          pollerPolicy,
          List.of(
              NagPackSuppression.builder()
                  .id("AwsSolutions-IAM5")
                  .appliesTo(List.of("Resource::" + schemas + "/*"))
                  .reason(
                      "glue:GetSchemaVersion on the schemas of this one registry: the mapping"
                          + " looks a record's schema up by the version id the producer wrote,"
                          + " so which schema of the registry it names is known only per record"
                          + " (Lambda developer guide, schema registries with Kafka).")
                  .build()));
    }
    if (!wildcards.isEmpty()) {
      ArchiverStack.checkovSkip(
          pollerPolicy,
          "CKV_AWS_111",
          "ec2:CreateNetworkInterface and ec2:DeleteNetworkInterface support no resource-level"
              + " permissions; AWS documents them with Resource * for Kafka pollers in a VPC.");
      NagSuppressions.addResourceSuppressions(
          pollerPolicy,
          List.of(
              NagPackSuppression.builder()
                  .id("AwsSolutions-IAM5")
                  .appliesTo(wildcards)
                  .reason(
                      "EC2 network-interface actions used by Lambda's Kafka pollers in the"
                          + " brokers' VPC support no resource-level permissions (Resource *);"
                          + " S3 on-failure objects are written under keys Lambda chooses, hence"
                          + " <failure bucket>/*.")
                  .build()));
    }
    return mapping;
  }

  /**
   * The mapping's SourceAccessConfigurations: the authentication secret, then the server root CA,
   * then the VPC. template.yaml lists them in the same order.
   */
  static List<SourceAccessConfigurationProperty> sourceAccess(ArchiverSettings s) {
    List<SourceAccessConfigurationProperty> access = new ArrayList<>();
    if (s.sourceType() == SourceType.MSK) {
      switch (s.mskAuth()) {
        case IAM -> {}
        case SCRAM -> access.add(sac("SASL_SCRAM_512_AUTH", s.saslScramSecretArn().orElseThrow()));
        case MTLS ->
            access.add(
                sac("CLIENT_CERTIFICATE_TLS_AUTH", s.clientCertificateSecretArn().orElseThrow()));
      }
    } else {
      switch (s.selfManagedAuth()) {
        case SCRAM_512, SCRAM_256, PLAIN ->
            access.add(sac(s.selfManagedAuth().accessType, s.saslScramSecretArn().orElseThrow()));
        case MTLS ->
            access.add(
                sac(s.selfManagedAuth().accessType, s.clientCertificateSecretArn().orElseThrow()));
        case NONE -> {}
      }
      s.serverRootCaSecretArn()
          .ifPresent(arn -> access.add(sac("SERVER_ROOT_CA_CERTIFICATE", arn)));
      s.subnetIds().forEach(id -> access.add(sac("VPC_SUBNET", "subnet:" + id)));
      s.securityGroupIds()
          .forEach(id -> access.add(sac("VPC_SECURITY_GROUP", "security_group:" + id)));
    }
    return access;
  }

  /** The Secrets Manager secrets the pollers read: every secret named in the source access. */
  static List<String> mappingSecrets(ArchiverSettings s) {
    return sourceAccess(s).stream()
        .filter(a -> !a.getType().startsWith("VPC_"))
        .map(SourceAccessConfigurationProperty::getUri)
        .toList();
  }

  /**
   * What Lambda's Kafka pollers need, on the execution role. From AWS's pages "Configuring Lambda
   * permissions for Amazon MSK event source mappings" (cluster: kafka:DescribeClusterV2 and
   * kafka:GetBootstrapBrokers; VPC: the six EC2 network-interface actions; secrets:
   * secretsmanager:GetSecretValue, and kms:Decrypt where a secret is under a customer managed key)
   * and "Configuring Lambda execution role permissions" for self-managed Apache Kafka (the same
   * secret, KMS and VPC permissions; VPC ones only when the brokers are in a VPC). The
   * kafka-cluster actions for IAM auth are from "IAM access control" in the MSK developer guide.
   */
  /**
   * The mapping's SchemaRegistryConfig. Names and values as AWS CloudFormation's reference gives
   * them: "AWS::Lambda::EventSourceMapping SchemaRegistryConfig" (SchemaRegistryURI,
   * EventRecordFormat JSON | SOURCE, AccessConfigs, SchemaValidationConfigs), "...
   * SchemaRegistryAccessConfig" (Type BASIC_AUTH | CLIENT_CERTIFICATE_TLS_AUTH |
   * SERVER_ROOT_CA_CERTIFICATE, URI a secret ARN) and "... SchemaValidationConfig" (Attribute KEY |
   * VALUE). JSON, so the function receives JSON values with valueSchemaMetadata.
   */
  static Optional<SchemaRegistryConfigProperty> schemaRegistry(ArchiverSettings s) {
    if (s.schemaRegistryUri().isEmpty()) {
      return Optional.empty();
    }
    List<SchemaValidationConfigProperty> validate = new ArrayList<>();
    for (String attribute : s.schemaValidation().split(",")) {
      validate.add(SchemaValidationConfigProperty.builder().attribute(attribute).build());
    }
    SchemaRegistryConfigProperty.Builder b =
        SchemaRegistryConfigProperty.builder()
            .schemaRegistryUri(s.schemaRegistryUri().get())
            .eventRecordFormat("JSON")
            .schemaValidationConfigs(validate);
    String type =
        switch (s.schemaRegistryAuth()) {
          case "basic" -> "BASIC_AUTH";
          case "client-certificate" -> "CLIENT_CERTIFICATE_TLS_AUTH";
          default -> null;
        };
    if (type != null) {
      b.accessConfigs(
          List.of(
              SchemaRegistryAccessConfigProperty.builder()
                  .type(type)
                  .uri(s.schemaRegistrySecretArn().orElseThrow())
                  .build()));
    }
    return Optional.of(b.build());
  }

  /**
   * What the schema registry needs of the execution role, which the mapping and the function share:
   * Glue's two read actions on the registry and its schemas, or the Confluent secret.
   */
  static List<PolicyStatement> registryStatements(ArchiverSettings s) {
    List<PolicyStatement> statements = new ArrayList<>();
    if (s.glueRegistry()) {
      String registry = s.schemaRegistryUri().orElseThrow();
      String schemas =
          registry.replaceFirst(":registry/", ":schema/") + "/*"; // schema/<registry>/<schema>
      statements.add(
          AccessPolicy.allow(
              "ReadSchemaRegistry",
              List.of("glue:GetRegistry", "glue:GetSchemaVersion"),
              List.of(registry, schemas)));
    }
    s.schemaRegistrySecretArn()
        .ifPresent(
            secret ->
                statements.add(
                    AccessPolicy.allow(
                        "ReadSchemaRegistrySecret",
                        List.of("secretsmanager:GetSecretValue"),
                        List.of(secret))));
    return statements;
  }

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
    statements.addAll(registryStatements(s));
    List<String> secrets = mappingSecrets(s);
    if (!secrets.isEmpty()) {
      statements.add(
          AccessPolicy.allow(
              "ReadSourceSecrets", List.of("secretsmanager:GetSecretValue"), secrets));
    }
    s.sourceSecretsKmsKeyArn()
        .filter(k -> !secrets.isEmpty())
        .ifPresent(
            key ->
                statements.add(
                    PolicyStatement.Builder.create()
                        .sid("DecryptSourceSecrets")
                        .effect(Effect.ALLOW)
                        .actions(List.of("kms:Decrypt"))
                        .resources(List.of(key))
                        // Only through Secrets Manager: the key opens the mapping's secrets,
                        // nothing else.
                        .conditions(
                            Map.of(
                                "StringEquals",
                                Map.of(
                                    "kms:ViaService",
                                    "secretsmanager." + Aws.REGION + "." + Aws.URL_SUFFIX)))
                        .build()));
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
