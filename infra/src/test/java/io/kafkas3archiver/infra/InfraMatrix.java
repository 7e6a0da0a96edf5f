package io.kafkas3archiver.infra;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import software.amazon.awscdk.assertions.Template;

/**
 * The configurations both templates are compared over: each MSK and self-managed authentication,
 * each on-failure target, each bucket encryption, Athena on and off. One configuration is written
 * once, in the CDK app's keys; template.yaml's parameter names follow from them.
 */
final class InfraMatrix {
  static final Path TEMPLATE = Path.of("..", "template.yaml");
  static final String BUCKET = "acme-kafka-archive";
  static final String FAILED = "arn:aws:s3:::acme-failed-batches";
  static final String CERT_SECRET_ARN =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:archiver-client-cert-AbCdEf";
  static final String ROOT_CA_SECRET_ARN =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:archiver-root-ca-AbCdEf";
  static final String GLUE_REGISTRY_ARN = "arn:aws:glue:us-east-1:123456789012:registry/orders";
  static final String REGISTRY_SECRET_ARN =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:archiver-registry-AbCdEf";
  static final String TABLE_BUCKET_ARN =
      "arn:aws:s3tables:us-east-1:123456789012:bucket/acme-archive-tables";
  static final String ALARM_TOPIC = "arn:aws:sns:us-east-1:123456789012:ops";
  private static final ObjectMapper JSON = new ObjectMapper();

  private InfraMatrix() {}

  /** One configuration. */
  record Deployment(String name, Map<String, String> cdk) {
    @Override
    public String toString() {
      return name;
    }

    String get(String key) {
      return cdk.get(key);
    }

    boolean is(String key, String value) {
      return value.equalsIgnoreCase(cdk.getOrDefault(key, ""));
    }

    /** template.yaml's parameters: the CDK key with a capital first letter. */
    Map<String, String> sam() {
      Map<String, String> out = new LinkedHashMap<>();
      cdk.forEach(
          (k, v) ->
              out.put(
                  k.equals("region")
                      ? "BucketRegion"
                      : k.substring(0, 1).toUpperCase(Locale.ROOT) + k.substring(1),
                  v));
      return out;
    }
  }

  static Deployment deployment(String name, String... keyValues) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("title", "S3_Event.Archive-Prod");
    c.put("bucketName", BUCKET);
    // template.yaml requires BucketName and creates by default; the CDK app creates by default
    // only without a bucketName. Said explicitly, the two agree.
    c.put("createBucket", "true");
    c.put("inputTopic", "vehicle.telemetry-v1");
    for (int i = 0; i < keyValues.length; i += 2) {
      c.put(keyValues[i], keyValues[i + 1]);
    }
    return new Deployment(name, c);
  }

  static List<Deployment> all() {
    String[] selfManaged = {
      "sourceType", "self-managed", "bootstrapServers", "b-1.example.com:9096,b-2.example.com:9096"
    };
    return List.of(
        deployment("msk-iam-sqs-on-failure", "clusterArn", Fixtures.CLUSTER_ARN),
        deployment(
            "msk-iam-glue-schema-registry-key-and-value-parquet",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "outputFormat",
            "parquet",
            "schemaRegistryUri",
            GLUE_REGISTRY_ARN,
            "schemaValidation",
            "KEY,VALUE"),
        deployment(
            "self-managed-confluent-schema-registry-basic-auth",
            concat(
                selfManaged,
                "saslScramSecretArn",
                Fixtures.SCRAM_SECRET_ARN,
                "schemaRegistryUri",
                "https://registry.example.com:8081",
                "schemaRegistryAuth",
                "basic",
                "schemaRegistrySecretArn",
                REGISTRY_SECRET_ARN)),
        deployment(
            "self-managed-confluent-schema-registry-client-certificate",
            concat(
                selfManaged,
                "saslScramSecretArn",
                Fixtures.SCRAM_SECRET_ARN,
                "schemaRegistryUri",
                "https://registry.example.com:8081",
                "schemaRegistryAuth",
                "client-certificate",
                "schemaRegistrySecretArn",
                REGISTRY_SECRET_ARN,
                "schemaValidation",
                "KEY")),
        deployment(
            "msk-scram-s3-on-failure-kms-bucket",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "mskAuth",
            "scram",
            "saslScramSecretArn",
            Fixtures.SCRAM_SECRET_ARN,
            "sourceSecretsKmsKeyArn",
            Fixtures.SECRETS_KEY_ARN,
            "onFailure",
            "s3",
            "onFailureBucketArn",
            FAILED,
            "bucketEncryption",
            "kms",
            "sse",
            "aws:kms"),
        deployment(
            "msk-iam-iceberg-glue-kms-bucket-hourly-maintenance",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "outputFormat",
            "iceberg",
            "icebergDatabase",
            "archive",
            "icebergTable",
            "vehicle_telemetry",
            "icebergMaintenanceRateHours",
            "1",
            "bucketEncryption",
            "kms"),
        deployment(
            "msk-iam-iceberg-existing-database",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "outputFormat",
            "iceberg",
            "icebergDatabase",
            "analytics",
            "createIcebergDatabase",
            "false",
            "icebergTable",
            "orders_v1"),
        deployment(
            "msk-iam-iceberg-s3tables-created-table-bucket-kms-bucket",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "outputFormat",
            "iceberg",
            "icebergCatalog",
            "s3tables",
            "icebergTableBucketName",
            "acme-archive-tables",
            "icebergDatabase",
            "archive",
            "icebergTable",
            "vehicle_telemetry",
            "bucketEncryption",
            "kms"),
        deployment(
            "self-managed-iceberg-s3tables-existing-table-bucket-and-namespace",
            concat(
                selfManaged,
                "saslScramSecretArn",
                Fixtures.SCRAM_SECRET_ARN,
                "outputFormat",
                "iceberg",
                "icebergCatalog",
                "s3tables",
                "icebergTableBucketArn",
                TABLE_BUCKET_ARN,
                "icebergDatabase",
                "analytics",
                "createIcebergDatabase",
                "false",
                "icebergTable",
                "orders_v1")),
        deployment(
            "msk-mtls-given-key-no-on-failure-athena-tracing",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "mskAuth",
            "mtls",
            "clientCertificateSecretArn",
            CERT_SECRET_ARN,
            "kmsKeyArn",
            Fixtures.KMS_KEY_ARN,
            "onFailure",
            "none",
            // No destination: stall rather than skip (finite retries are refused).
            "retryAttempts",
            "-1",
            "athena",
            "true",
            "tracing",
            "true"),
        deployment(
            "self-managed-scram-512-vpc-imported-bucket-secret-role",
            concat(
                selfManaged,
                "saslScramSecretArn",
                Fixtures.SCRAM_SECRET_ARN,
                "subnetIds",
                "subnet-0aaa,subnet-0bbb,subnet-0ccc",
                "securityGroupIds",
                "sg-0ddd,sg-0eee",
                "createBucket",
                "false",
                "region",
                "eu-west-1",
                "credentialsSecretArn",
                Fixtures.CREDENTIALS_SECRET_ARN,
                "roleArn",
                Fixtures.ROLE_ARN,
                "externalId",
                "archiver-external-id",
                "sse",
                "aws:kms",
                "kmsKeyArn",
                Fixtures.KMS_KEY_ARN)),
        deployment(
            "self-managed-scram-256-public-on-demand",
            concat(
                selfManaged,
                "selfManagedAuth",
                "scram-256",
                "saslScramSecretArn",
                Fixtures.SCRAM_SECRET_ARN,
                "provisionedPollers",
                "false")),
        deployment(
            "self-managed-plain-root-ca-at-timestamp",
            concat(
                selfManaged,
                "selfManagedAuth",
                "plain",
                "saslScramSecretArn",
                Fixtures.SCRAM_SECRET_ARN,
                "serverRootCaSecretArn",
                ROOT_CA_SECRET_ARN,
                "startingPosition",
                "AT_TIMESTAMP",
                "startingPositionTimestamp",
                "1767225600")),
        deployment(
            "self-managed-mtls-root-ca-secrets-key-one-subnet-s3-on-failure",
            concat(
                selfManaged,
                "selfManagedAuth",
                "mtls",
                "clientCertificateSecretArn",
                CERT_SECRET_ARN,
                "serverRootCaSecretArn",
                ROOT_CA_SECRET_ARN,
                "sourceSecretsKmsKeyArn",
                Fixtures.SECRETS_KEY_ARN,
                "subnetIds",
                "subnet-0aaa",
                "securityGroupIds",
                "sg-0ddd",
                "onFailure",
                "s3",
                "onFailureBucketArn",
                FAILED)),
        deployment(
            "self-managed-none-in-vpc-athena-tuned",
            concat(
                selfManaged,
                "selfManagedAuth",
                "none",
                "subnetIds",
                "subnet-0aaa,subnet-0bbb",
                "securityGroupIds",
                "sg-0ddd",
                "athena",
                "true",
                "batchSize",
                "500",
                "maximumPollers",
                "5",
                "maximumRecordAgeSeconds",
                "3600",
                "retryAttempts",
                "3",
                "reportBatchItemFailures",
                "false",
                "transitionStorageClass",
                "STANDARD_IA",
                "transitionDays",
                "45",
                "secondTransitionDays",
                "180",
                "secondTransitionStorageClass",
                "DEEP_ARCHIVE",
                "allowArchiveStorageClasses",
                "true",
                "transitionMinObjectSize",
                "0",
                "expirationDays",
                "2555")),
        // Write once, read many: COMPLIANCE retention, and an expiry no earlier than it.
        deployment(
            "msk-iam-object-lock-compliance-expiry-after-retention",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "objectLockMode",
            "COMPLIANCE",
            "objectLockDays",
            "2555",
            "expirationDays",
            "2555"),
        deployment(
            "msk-iam-restore-state-machine",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "restore",
            "true",
            "includeKafkaMetadata",
            "true",
            "restoreBootstrapServers",
            "b-1.dr.example.com:9098,b-2.dr.example.com:9098",
            "restoreTargetTopic",
            "vehicle.telemetry-restored",
            "restoreClusterArn",
            RestoreStackTest.TARGET_CLUSTER,
            "restoreSubnetIds",
            "subnet-0123456789abcdef0,subnet-0fedcba9876543210",
            "restoreSecurityGroupIds",
            "sg-0123456789abcdef0",
            "restoreMaxConcurrency",
            "7",
            // The scheduled audit with its alarms, wired to the alarm topic.
            "auditScheduleMinutes",
            "60",
            "auditLagThreshold",
            "5000",
            "alarmTopicArn",
            ALARM_TOPIC),
        // The restore reads a KMS-encrypted archive: kms:Decrypt through S3 only.
        deployment(
            "msk-iam-restore-kms-bucket",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "bucketEncryption",
            "kms",
            "restore",
            "true",
            "includeKafkaMetadata",
            "true",
            "restoreBootstrapServers",
            "b-1.dr.example.com:9098",
            // Another name than the archived topic: one topic would be granted twice over.
            "restoreTargetTopic",
            "vehicle.telemetry-replayed",
            "restoreClusterArn",
            RestoreStackTest.TARGET_CLUSTER,
            "restoreSubnetIds",
            "subnet-0123456789abcdef0",
            "restoreSecurityGroupIds",
            "sg-0123456789abcdef0"),
        // The redrive's other destination: the failure bucket (read), with a TLS target.
        deployment(
            "tls-restore-s3-failure-bucket",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "onFailure",
            "s3",
            "onFailureBucketArn",
            "arn:aws:s3:::acme-failed-batches",
            "restore",
            "true",
            "includeKafkaMetadata",
            "true",
            "restoreAuth",
            "tls",
            "restoreBootstrapServers",
            "b-1.dr.example.com:9094",
            "restoreSubnetIds",
            "subnet-0123456789abcdef0",
            "restoreSecurityGroupIds",
            "sg-0123456789abcdef0",
            "auditScheduleMinutes",
            "15"),
        // docs/restore.md: restoreAuth=plaintext (a target inside the VPC, no TLS, no IAM).
        deployment(
            "msk-iam-restore-plaintext",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "restore",
            "true",
            "includeKafkaMetadata",
            "true",
            "restoreAuth",
            "plaintext",
            "restoreBootstrapServers",
            "b-1.dr.example.com:9092",
            "restoreSubnetIds",
            "subnet-0123456789abcdef0",
            "restoreSecurityGroupIds",
            "sg-0123456789abcdef0"),
        // docs/object-layout.md's keyTemplate example (a record variable) with the event time
        // from a field (docs/deploy.md: partitionTime=field, timeField, timeFormat).
        deployment(
            "msk-iam-key-template-record-variable-event-time",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "keyTemplate",
            "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.customer.region}/year=${YEAR}"
                + "/month=${MONTH}/day=${DAY}/hour=${HOUR}/${JOB_ID}",
            "partitionTime",
            "field",
            "timeField",
            "meta.eventTime",
            "timeFormat",
            "epoch_millis"),
        // docs/object-layout.md: the function reads its schema from a Glue table of the user's.
        deployment(
            "msk-iam-parquet-schema-from-glue-table",
            "clusterArn",
            Fixtures.CLUSTER_ARN,
            "outputFormat",
            "parquet",
            "parquetSchema",
            "glue:analytics.orders_v1"));
  }

  private static String[] concat(String[] head, String... tail) {
    List<String> out = new ArrayList<>(List.of(head));
    out.addAll(List.of(tail));
    return out.toArray(String[]::new);
  }

  static Stream<Arguments> arguments() {
    return all().stream().map(d -> Arguments.of(d.name(), d));
  }

  private static final Map<String, Map<String, Object>> SYNTHESIZED = new ConcurrentHashMap<>();

  /** The synthesized CDK template as plain JSON (a fresh deep copy each call). */
  static Map<String, Object> cdkJson(Deployment d) {
    Map<String, Object> json =
        SYNTHESIZED.computeIfAbsent(
            d.name(),
            n -> {
              Map<String, Object> c = new LinkedHashMap<>(d.cdk());
              return Template.fromStack(Fixtures.stack(c)).toJSON();
            });
    return copy(json);
  }

  private static final Map<String, Map<String, Object>> RESOLVED = new ConcurrentHashMap<>();

  /** template.yaml resolved for the same configuration (a fresh deep copy each call). */
  static Map<String, Object> samJson(Deployment d) {
    return copy(
        RESOLVED.computeIfAbsent(
            d.name(),
            n -> {
              try {
                SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("Resources", new LinkedHashMap<>(sam.resources()));
                out.put("Outputs", sam.outputs());
                return out;
              } catch (Exception e) {
                throw new IllegalStateException(d.name() + ": " + e.getMessage(), e);
              }
            }));
  }

  static InfraModel model(Map<String, Object> json) {
    Map<String, Map<String, Object>> resources = new LinkedHashMap<>();
    Templates.cast(json.get("Resources")).forEach((k, v) -> resources.put(k, Templates.cast(v)));
    return InfraModel.of(resources, Templates.cast(json.get("Outputs")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> copy(Map<String, Object> json) {
    return JSON.convertValue(json, Map.class);
  }

  /**
   * What AWS documents as needed, derived from the configuration alone (not from either template).
   * Lambda's pollers, from "Configuring Lambda permissions for Amazon MSK event source mappings"
   * (kafka:DescribeClusterV2, kafka:GetBootstrapBrokers; the six EC2 network-interface actions;
   * secretsmanager:GetSecretValue and kms:Decrypt for secrets under a customer managed key) and
   * "Configuring Lambda execution role permissions" for self-managed Apache Kafka (the secret, KMS
   * and VPC permissions); "IAM access control" in the MSK developer guide for kafka-cluster:*; the
   * on-failure destinations from "Capturing discarded batches for Kafka event sources"
   * (sqs:SendMessage, s3:PutObject and s3:ListBucket). The function's own: PutObject on its
   * prefixes, GetBucketLocation and the probe, GenerateDataKey with a KMS key.
   */
  static Set<String> documentedGrants(Deployment d) {
    Set<String> out = new TreeSet<>();
    boolean msk = !d.is("sourceType", "self-managed");
    String bucketArn = "arn:${AWS::Partition}:s3:::" + BUCKET;
    String prefix = bucketArn + "/condense/";
    String topic = d.get("inputTopic");
    out.add("s3:PutObject on " + prefix + topic + "/*");
    out.add("s3:PutObject on " + prefix + "_errors/" + topic + "/*");
    out.add("s3:PutObject on " + prefix + "_preflight/*");
    out.add("s3:DeleteObject on " + prefix + "_preflight/*");
    out.add("s3:ListBucket on " + bucketArn);
    out.add("s3:GetBucketLocation on " + bucketArn);
    // The preflight's Object Lock check (any bucket may be locked, created or imported).
    out.add("s3:GetBucketObjectLockConfiguration on " + bucketArn);
    out.add("logs:PutLogEvents on ${FunctionLogs.Arn}");
    boolean vpc = msk || d.get("subnetIds") != null;
    if (vpc) {
      for (String a :
          List.of(
              "CreateNetworkInterface",
              "DescribeNetworkInterfaces",
              "DeleteNetworkInterface",
              "DescribeVpcs",
              "DescribeSubnets",
              "DescribeSecurityGroups")) {
        out.add("ec2:" + a + " on *");
      }
    }
    String cluster = Fixtures.CLUSTER_ARN;
    List<String> secrets = new ArrayList<>();
    if (msk) {
      out.add("kafka:DescribeClusterV2 on " + cluster);
      out.add("kafka:GetBootstrapBrokers on " + cluster);
      String mskAuth = d.cdk().getOrDefault("mskAuth", "iam");
      if (mskAuth.equals("iam")) {
        String child = cluster.replace(":cluster/", ":%s/");
        out.add("kafka-cluster:Connect on " + cluster);
        out.add(
            "kafka-cluster:DescribeGroup on "
                + child.formatted("group")
                + "/kafka-s3-archiver-"
                + d.get("title"));
        out.add(
            "kafka-cluster:AlterGroup on "
                + child.formatted("group")
                + "/kafka-s3-archiver-"
                + d.get("title"));
        out.add("kafka-cluster:DescribeTopic on " + child.formatted("topic") + "/" + topic);
        out.add("kafka-cluster:ReadData on " + child.formatted("topic") + "/" + topic);
      } else if (mskAuth.equals("scram")) {
        secrets.add(d.get("saslScramSecretArn"));
      } else {
        secrets.add(d.get("clientCertificateSecretArn"));
      }
    } else {
      String auth = d.cdk().getOrDefault("selfManagedAuth", "scram-512");
      if (auth.equals("mtls")) {
        secrets.add(d.get("clientCertificateSecretArn"));
      } else if (!auth.equals("none")) {
        secrets.add(d.get("saslScramSecretArn"));
      }
      if (d.get("serverRootCaSecretArn") != null) {
        secrets.add(d.get("serverRootCaSecretArn"));
      }
    }
    secrets.forEach(s -> out.add("secretsmanager:GetSecretValue on " + s));
    if (!secrets.isEmpty() && d.get("sourceSecretsKmsKeyArn") != null) {
      out.add("kms:Decrypt on " + d.get("sourceSecretsKmsKeyArn"));
    }
    boolean provisioned = !d.is("provisionedPollers", "false");
    String onFailure = d.cdk().getOrDefault("onFailure", "sqs");
    if (provisioned && onFailure.equals("sqs")) {
      out.add("sqs:SendMessage on ${OnFailureQueue.Arn}");
    }
    if (provisioned && onFailure.equals("s3")) {
      out.add("s3:PutObject on " + FAILED + "/*");
      out.add("s3:ListBucket on " + FAILED);
    }
    if (d.get("kmsKeyArn") != null) {
      out.add("kms:GenerateDataKey on " + d.get("kmsKeyArn"));
    } else if (d.is("bucketEncryption", "kms")) {
      out.add("kms:GenerateDataKey on ${ArchiveKey.Arn}");
    }
    if (d.get("credentialsSecretArn") != null) {
      out.add("secretsmanager:GetSecretValue on " + d.get("credentialsSecretArn"));
    }
    // The restore function's {"action":"audit"} (docs/audit.md): its state under _audit/, and with
    // MSK IAM DescribeGroup on the mapping's group ("IAM access control", OffsetFetch).
    if (d.is("restore", "true")) {
      out.add("s3:GetObject on " + prefix + "_audit/" + topic + "/*");
      out.add("s3:PutObject on " + prefix + "_audit/" + topic + "/*");
      if (!d.is("restoreAuth", "tls") && !d.is("restoreAuth", "plaintext")) {
        String restoreCluster =
            d.get("restoreClusterArn") != null ? d.get("restoreClusterArn") : cluster;
        out.add(
            "kafka-cluster:DescribeGroup on "
                + restoreCluster.replace(":cluster/", ":group/")
                + "/kafka-s3-archiver-"
                + d.get("title"));
      }
    }
    if (d.get("roleArn") != null) {
      out.add("sts:AssumeRole on " + d.get("roleArn"));
    }
    // Lambda developer guide, "Using schema registries with Kafka event sources in Lambda": the
    // execution role needs glue:GetRegistry and glue:GetSchemaVersion for a Glue registry, and
    // the secret for a Confluent one.
    String registry = d.get("schemaRegistryUri");
    if (registry != null && registry.startsWith("arn:")) {
      String schemas = registry.replace(":registry/", ":schema/") + "/*";
      for (String action : List.of("glue:GetRegistry", "glue:GetSchemaVersion")) {
        out.add(action + " on " + registry);
        out.add(action + " on " + schemas);
      }
    }
    // PARQUET_SCHEMA=glue:<database>.<table>: Glue's "Identity-based policies" (GetTable is
    // authorized on the catalog, the database and the table), that table only.
    String schema = d.cdk().getOrDefault("parquetSchema", "");
    if (schema.startsWith("glue:")) {
      String glue = "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:";
      String[] name = schema.substring(5).split("\\.");
      out.add("glue:GetTable on " + glue + "catalog");
      out.add("glue:GetTable on " + glue + "database/" + name[0]);
      out.add("glue:GetTable on " + glue + "table/" + name[0] + "/" + name[1]);
    }
    if (d.get("schemaRegistrySecretArn") != null) {
      out.add("secretsmanager:GetSecretValue on " + d.get("schemaRegistrySecretArn"));
    }
    // outputFormat=iceberg: Iceberg's GlueCatalog reads the database, creates the table once and
    // commits by UpdateTable (Glue's "Identity-based policies": each action needs the catalog,
    // database and table ARNs); S3FileIO writes, reads back and (snapshot expiry) deletes files
    // under the table's location, and aborts a failed multipart upload.
    // icebergCatalog=s3tables ("Accessing tables using the Amazon S3 Tables Iceberg REST
    // endpoint"): the catalog's config is GetTableBucket and createTable CreateTable on the table
    // bucket; loadTable, commits and the table storage's objects are GetTableMetadataLocation,
    // UpdateTableMetadataLocation, GetTableData and PutTableData on its tables. Nothing of Glue.
    if (d.is("icebergCatalog", "s3tables")) {
      String bucket =
          d.get("icebergTableBucketArn") != null
              ? d.get("icebergTableBucketArn")
              : "${IcebergTableBucket.TableBucketARN}";
      for (String action : List.of("s3tables:GetTableBucket", "s3tables:CreateTable")) {
        out.add(action + " on " + bucket);
      }
      for (String action :
          List.of(
              "s3tables:GetTableMetadataLocation",
              "s3tables:UpdateTableMetadataLocation",
              "s3tables:GetTableData",
              "s3tables:PutTableData")) {
        out.add(action + " on " + bucket + "/table/*");
      }
    } else if (d.is("outputFormat", "iceberg")) {
      String glue = "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:";
      String db = d.get("icebergDatabase");
      String table = d.get("icebergTable");
      for (String action :
          List.of("glue:GetDatabase", "glue:GetTable", "glue:CreateTable", "glue:UpdateTable")) {
        out.add(action + " on " + glue + "catalog");
        out.add(action + " on " + glue + "database/" + db);
        out.add(action + " on " + glue + "table/" + db + "/" + table);
      }
      for (String action :
          List.of("s3:PutObject", "s3:GetObject", "s3:DeleteObject", "s3:AbortMultipartUpload")) {
        out.add(action + " on " + prefix + db + ".db/" + table + "/*");
      }
      if (d.is("bucketEncryption", "kms") || d.get("kmsKeyArn") != null) {
        out.add("kms:Decrypt on " + icebergKey(d));
      }
    }
    return out;
  }

  /**
   * What keeps data from being lost quietly, checked on one template alone (so a change made to
   * both templates at once is caught too): the on-failure queue at SQS's maximum retention and
   * TLS-only, the created bucket TLS-only, both policies kept with what they protect, a heartbeat
   * that breaches on missing data, an alarm on every on-failure destination and on dropped records,
   * and the restore's key only through S3.
   */
  static List<String> dataSafety(Deployment d, InfraModel m, String side) {
    List<String> out = new ArrayList<>();
    boolean provisioned = !d.is("provisionedPollers", "false");
    String onFailure = d.cdk().getOrDefault("onFailure", "sqs");
    String tls = " if {Bool={aws:SecureTransport=false}}";
    if (!d.is("createBucket", "false")) {
      String arn = "arn:${AWS::Partition}:s3:::" + BUCKET;
      for (String resource : List.of(arn, arn + "/*")) {
        String deny = "Deny s3:* on " + resource + tls + " (AWS::S3::BucketPolicy)";
        if (!m.resourcePolicies().contains(deny)) {
          out.add(side + " lacks the TLS-only bucket policy: " + deny);
        }
      }
      if (m.retained().stream().noneMatch(r -> r.startsWith("AWS::S3::BucketPolicy "))) {
        out.add(side + " deletes the bucket's TLS-only policy with the stack, keeping the bucket");
      }
    }
    if (provisioned && onFailure.equals("sqs")) {
      Map<String, Object> queue = Templates.cast(m.queues().get("OnFailureQueue"));
      if (queue == null || !"1209600".equals(queue.get("MessageRetentionPeriod"))) {
        out.add(side + " keeps failed batches less than SQS's 14 days: " + queue);
      }
      if (queue == null || !"true".equals(queue.get("SqsManagedSseEnabled"))) {
        out.add(side + " leaves the on-failure queue unencrypted: " + queue);
      }
      String deny = "Deny sqs:* on ${OnFailureQueue.Arn}" + tls + " (AWS::SQS::QueuePolicy)";
      if (!m.resourcePolicies().contains(deny)) {
        out.add(side + " lacks the TLS-only queue policy: " + deny);
      }
      if (m.retained().stream().noneMatch(r -> r.startsWith("AWS::SQS::QueuePolicy "))) {
        out.add(side + " deletes the queue's TLS-only policy with the stack, keeping the queue");
      }
    }
    if (!d.is("createBucket", "false")) {
      out.addAll(lifecycleProblems(d, m, side));
      out.addAll(objectLockProblems(d, m, side));
    }
    // Each alarm as docs/deploy.md's table documents it: metrics (namespace, name, dimensions,
    // statistic, period), expression, and "comparison threshold periods datapoints missing-data".
    String mapping = "{EventSourceMappingUUID=${KafkaMapping}}";
    int heartbeat = Integer.parseInt(d.cdk().getOrDefault("heartbeatMinutes", "60")) / 5;
    expectAlarm(
        m,
        side,
        "HeartbeatAlarm",
        List.of(
            "errors=AWS/Lambda Errors {FunctionName=${function}} Sum 300",
            "invocations=AWS/Lambda Invocations {FunctionName=${function}} Sum 300"),
        "FILL(invocations, 0) - FILL(errors, 0)",
        "LessThanThreshold 1 " + heartbeat + " " + heartbeat + " breaching",
        out);
    if (provisioned && onFailure.equals("sqs")) {
      expectAlarm(
          m,
          side,
          "FailedBatchesAlarm",
          List.of(
              "AWS/SQS ApproximateNumberOfMessagesVisible {QueueName=${OnFailureQueue.QueueName}}"
                  + " Maximum 300"),
          "null",
          "GreaterThanOrEqualToThreshold 1 1 1 notBreaching",
          out);
    }
    if (provisioned) {
      expectAlarm(
          m,
          side,
          "MappingNotPollingAlarm",
          List.of("AWS/Lambda PolledEventCount " + mapping + " SampleCount 300"),
          "null",
          "LessThanThreshold 1 3 3 breaching",
          out);
      expectAlarm(
          m,
          side,
          "PollingErrorsAlarm",
          List.of("AWS/Lambda PollingErrorCount " + mapping + " Sum 300"),
          "null",
          "GreaterThanOrEqualToThreshold 1 1 1 notBreaching",
          out);
      expectAlarm(
          m,
          side,
          "DroppedEventsAlarm",
          List.of("AWS/Lambda DroppedEventCount " + mapping + " Sum 300"),
          "null",
          "GreaterThanThreshold 0 1 1 notBreaching",
          out);
      if (!onFailure.equals("none")) {
        expectAlarm(
            m,
            side,
            "OnFailureDestinationAlarm",
            List.of("AWS/Lambda OnFailureDestinationDeliveredEventCount " + mapping + " Sum 300"),
            "null",
            "GreaterThanOrEqualToThreshold 1 1 1 notBreaching",
            out);
        expectAlarm(
            m,
            side,
            "OnFailureDeliveryErrorsAlarm",
            List.of("AWS/Lambda OnFailureDestinationDeliveryErrorCount " + mapping + " Sum 300"),
            "null",
            "GreaterThanOrEqualToThreshold 1 1 1 notBreaching",
            out);
      }
    }
    out.addAll(auditProblems(d, m, side));
    if (d.is("restore", "true")
        && (d.is("bucketEncryption", "kms") || d.get("kmsKeyArn") != null)) {
      String via =
          " if {StringEquals={kms:ViaService=s3.${AWS::Region}.${AWS::URLSuffix}}} (restore"
              + " function)";
      for (String action : List.of("kms:Decrypt", "kms:GenerateDataKey")) {
        String need = "Allow " + action + " on " + icebergKey(d) + via;
        if (!m.grants().contains(need)) {
          out.add(side + " lacks the restore's " + need);
        }
      }
    }
    return out;
  }

  /**
   * The lifecycle tiers and expires the archive's own folders only (never the Iceberg table or
   * anything else in the bucket), needs allowArchiveStorageClasses for a class that must be
   * restored before reading, and cleans up expired delete markers.
   */
  private static List<String> lifecycleProblems(Deployment d, InfraModel m, String side) {
    List<String> out = new ArrayList<>();
    Map<String, Object> lifecycle = Templates.cast(m.bucket().get("LifecycleConfiguration"));
    List<?> rules = lifecycle == null ? List.of() : (List<?>) lifecycle.get("Rules");
    String topic = d.get("inputTopic");
    Set<String> folders = Set.of("condense/" + topic + "/", "condense/_errors/" + topic + "/");
    boolean housekeeping = false;
    for (Object r : rules) {
      Map<String, Object> rule = Templates.cast(r);
      boolean moves = rule.containsKey("Transitions") || rule.containsKey("ExpirationInDays");
      if (moves && !folders.contains(String.valueOf(rule.get("Prefix")))) {
        out.add(side + " tiers or expires beyond the archive's folders: " + rule);
      }
      if (rule.get("Transitions") instanceof List<?> tiers
          && !d.is("allowArchiveStorageClasses", "true")) {
        for (Object tier : tiers) {
          String c = String.valueOf(Templates.cast(tier).get("StorageClass"));
          if (c.equals("GLACIER") || c.equals("DEEP_ARCHIVE")) {
            out.add(side + " moves objects to " + c + " without allowArchiveStorageClasses");
          }
        }
      }
      housekeeping |= "true".equals(rule.get("ExpiredObjectDeleteMarker"));
    }
    if (!housekeeping) {
      out.add(side + " never removes expired delete markers");
    }
    long tiered = rules.stream().filter(r -> Templates.cast(r).containsKey("Transitions")).count();
    if (!d.is("transitionDays", "0") && tiered != 2) {
      out.add(side + " tiers " + tiered + " folders, not the archive's and its errors'");
    }
    return out;
  }

  /**
   * objectLockMode/objectLockDays (docs/deploy.md, Object Lock): the created bucket has Object Lock
   * with exactly that default retention, versioning (which the lock needs), and no expiry before
   * the retention ends; without them, no lock at all.
   */
  static List<String> objectLockProblems(Deployment d, InfraModel m, String side) {
    List<String> out = new ArrayList<>();
    Map<String, Object> bucket = m.bucket();
    Object configuration = bucket.get("ObjectLockConfiguration");
    if (d.get("objectLockMode") == null) {
      if (configuration != null || bucket.containsKey("ObjectLockEnabled")) {
        out.add(side + " locks the bucket without objectLockMode: " + configuration);
      }
      return out;
    }
    String expected =
        "{ObjectLockEnabled=Enabled, Rule={DefaultRetention={Days="
            + d.get("objectLockDays")
            + ", Mode="
            + d.get("objectLockMode")
            + "}}}";
    if (!expected.equals(String.valueOf(sorted(configuration)))) {
      out.add(side + " bucket's Object Lock is " + configuration + ", documented: " + expected);
    }
    if (!"true".equals(String.valueOf(bucket.get("ObjectLockEnabled")))) {
      out.add(side + " bucket lacks ObjectLockEnabled=true: " + bucket.get("ObjectLockEnabled"));
    }
    if (!String.valueOf(bucket.get("VersioningConfiguration")).equals("{Status=Enabled}")) {
      out.add(
          side + " locks a bucket without versioning: " + bucket.get("VersioningConfiguration"));
    }
    Map<String, Object> lifecycle = Templates.cast(bucket.get("LifecycleConfiguration"));
    List<?> rules = lifecycle == null ? List.of() : (List<?>) lifecycle.get("Rules");
    int days = Integer.parseInt(d.get("objectLockDays"));
    for (Object r : rules) {
      Object expiry = Templates.cast(r).get("ExpirationInDays");
      if (expiry != null && Integer.parseInt(String.valueOf(expiry)) < days) {
        out.add(side + " expires objects before their retention ends: " + r);
      }
    }
    return out;
  }

  /** A parsed JSON value with its maps' keys in order, for comparing by text. */
  private static Object sorted(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new java.util.TreeMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), sorted(v)));
      return out;
    }
    return value;
  }

  /**
   * One of the alarms that report a stall or a loss, as documented in docs/deploy.md: its metrics,
   * expression, and "comparison threshold evaluation-periods datapoints-to-alarm missing-data".
   */
  private static void expectAlarm(
      InfraModel m,
      String side,
      String id,
      List<String> metrics,
      String expression,
      String rule,
      List<String> out) {
    String alarm = m.alarms().get(id);
    if (alarm == null) {
      out.add(side + " has no " + id);
      return;
    }
    String[] f = alarm.split(" \\| ");
    String actual =
        f[0] + " | " + f[1] + " | " + f[2] + " " + f[3] + " " + f[4] + " " + f[5] + " " + f[6];
    String expected = metrics.stream().sorted().toList() + " | " + expression + " | " + rule;
    if (!actual.equals(expected)) {
      out.add(side + " " + id + " is " + actual + ", documented: " + expected);
    }
  }

  /** The audit alarms of docs/audit.md, each "logical id" and "comparison threshold missing". */
  static final List<String> AUDIT_ALARMS =
      List.of("AuditGapsAlarm", "AuditDuplicatesAlarm", "AuditLagAlarm", "AuditHeartbeatAlarm");

  /**
   * The scheduled audit as docs/audit.md documents it, on one template alone: the restore function
   * lists only the state's folder besides the archive; with auditScheduleMinutes the schedule runs
   * {"action":"audit"} on the restore function at that rate, and the four alarms watch its figures
   * (gaps and duplicates above 0, the lag above auditLagThreshold, the heartbeat on missing data).
   */
  static List<String> auditProblems(Deployment d, InfraModel m, String side) {
    List<String> out = new ArrayList<>();
    if (!d.is("restore", "true")) {
      return out;
    }
    String folder = "condense/_audit/" + d.get("inputTopic") + "/*";
    String list =
        "Allow s3:ListBucket on arn:${AWS::Partition}:s3:::"
            + BUCKET
            + " if {StringLike={s3:prefix=["
            + folder
            + "]}} (restore function)";
    if (!m.grants().contains(list)) {
      out.add(side + " lacks the audit's " + list);
    }
    String minutes = d.cdk().getOrDefault("auditScheduleMinutes", "0");
    String rule = m.names().get("rule AuditSchedule");
    if (minutes.equals("0")) {
      if (rule != null || AUDIT_ALARMS.stream().anyMatch(m.alarms()::containsKey)) {
        out.add(side + " schedules the audit though auditScheduleMinutes is 0");
      }
      return out;
    }
    String expected =
        "rate("
            + minutes
            + " minutes) ENABLED ${RestoreFunction.Arn} {\"action\":\"audit\"} retries 0";
    if (!expected.equals(rule)) {
      out.add(side + " AuditSchedule is " + rule + ", documented: " + expected);
    }
    String title = d.get("title");
    String dims = "{Title=" + title + ", Topic=" + d.get("inputTopic") + "}";
    String lag = d.cdk().getOrDefault("auditLagThreshold", "100000");
    String seconds = Integer.toString(Integer.parseInt(minutes) * 60);
    String[][] documented = {
      {"AuditGapsAlarm", "ArchiveGapOffsets", "Maximum 300", "GreaterThanThreshold 0 1 1 ignore"},
      {
        "AuditDuplicatesAlarm",
        "ArchiveDuplicateOffsets",
        "Maximum 300",
        "GreaterThanThreshold 0 1 1 ignore"
      },
      {
        "AuditLagAlarm",
        "ArchiveLagOffsets",
        "Maximum 300",
        "GreaterThanThreshold " + lag + " 1 1 ignore"
      },
      {
        "AuditHeartbeatAlarm",
        "ArchiveGapOffsets",
        "SampleCount " + seconds,
        "LessThanThreshold 1 2 2 breaching"
      }
    };
    for (String[] a : documented) {
      expectAlarm(
          m,
          side,
          a[0],
          List.of("KafkaS3Archiver " + a[1] + " " + dims + " " + a[2]),
          "null",
          a[3],
          out);
    }
    return out;
  }

  /** The bucket's key, which the iceberg function decrypts with (compaction reads files back). */
  private static String icebergKey(Deployment d) {
    return d.get("kmsKeyArn") != null ? d.get("kmsKeyArn") : "${ArchiveKey.Arn}";
  }

  /** The few grants whose resource may be "*": AWS documents no resource-level permission. */
  static boolean wildcardAllowed(String actionOnResource) {
    return actionOnResource.startsWith("ec2:") || actionOnResource.startsWith("xray:");
  }

  /** Problems one model has on its own: missing documented grants, wildcards, kms:Decrypt. */
  static List<String> problems(Deployment d, InfraModel m, String side) {
    List<String> out = new ArrayList<>();
    Set<String> allowed = m.allowed();
    for (String need : documentedGrants(d)) {
      if (!allowed.contains(need)) {
        out.add(side + " lacks documented grant " + need);
      }
    }
    for (String g : allowed) {
      if (g.endsWith(" on *") && !wildcardAllowed(g)) {
        out.add(side + " grants on *: " + g);
      }
      // The plain function uses single-part PutObject only: kms:Decrypt belongs to the pollers'
      // secret key and, for iceberg, the bucket's key (compaction reads files back).
      if (g.startsWith("kms:Decrypt on ")
          && !g.equals("kms:Decrypt on " + d.get("sourceSecretsKmsKeyArn"))
          && !(d.is("restore", "true") && g.equals("kms:Decrypt on " + icebergKey(d)))
          && !(d.is("outputFormat", "iceberg")
              && !d.is("icebergCatalog", "s3tables")
              && g.equals("kms:Decrypt on " + icebergKey(d)))) {
        out.add(side + " grants kms:Decrypt beyond the source secrets' key: " + g);
      }
    }
    // Only the archive's own table bucket: an s3tables grant on a wider resource is a problem.
    for (String g : allowed) {
      if (g.startsWith("s3tables:") && !documentedGrants(d).contains(g)) {
        out.add(side + " grants beyond the REST catalog's documented needs: " + g);
      }
    }
    for (String g : m.grants()) {
      if (g.contains("s3:ListBucket on arn:${AWS::Partition}:s3:::" + BUCKET)
          && !g.contains("s3:prefix")) {
        out.add(side + " lists the archive bucket without an s3:prefix condition: " + g);
      }
    }
    if (m.mapping().isEmpty()) {
      out.add(side + " has no event source mapping");
    }
    out.addAll(dataSafety(d, m, side));
    return out;
  }
}
