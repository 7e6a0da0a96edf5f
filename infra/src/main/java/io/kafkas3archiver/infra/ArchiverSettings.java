package io.kafkas3archiver.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Everything the stack is configured with, validated once. It is read from CDK context or from a
 * JSON file in the seed's connector shape ({@code title}, {@code bucketName}, {@code region},
 * {@code inputTopic}, plus the cluster settings); context keys have the same names and win over the
 * file.
 *
 * <p>Secret values are never part of it: {@code accessKey} / {@code secretKey} found in a file are
 * dropped (and reported in {@link #droppedSecrets()}); the user puts them into the stack's secret.
 */
public record ArchiverSettings(
    String title,
    Optional<String> bucketName,
    boolean createBucket,
    Optional<String> bucketRegion,
    String inputTopic,
    String outputFormat,
    String compression,
    String keyPrefix,
    Optional<String> keyTemplate,
    String partitionTime,
    Optional<String> timeField,
    Optional<String> timeFormat,
    int maxFoldersPerPartition,
    String timeZone,
    boolean includeKafkaMetadata,
    String logLevel,
    // credentials and encryption
    Optional<String> credentialsSecretArn,
    boolean createCredentialsSecret,
    Optional<String> roleArn,
    Optional<String> externalId,
    Optional<String> sse,
    Optional<String> kmsKeyArn,
    String bucketEncryption,
    Optional<String> endpointUrlS3,
    boolean s3ForcePathStyle,
    Optional<String> expectedBucketOwner,
    Optional<String> parquetSchema,
    // the mapping's schema registry (docs/schema-registry.md)
    Optional<String> schemaRegistryUri,
    String schemaRegistryAuth,
    Optional<String> schemaRegistrySecretArn,
    String schemaValidation,
    // created bucket
    int transitionDays,
    String transitionStorageClass,
    int secondTransitionDays,
    String secondTransitionStorageClass,
    long transitionMinObjectSize,
    boolean allowArchiveStorageClasses,
    int expirationDays,
    int noncurrentVersionExpirationDays,
    Optional<String> serverAccessLogsBucketName,
    // S3 Object Lock of the created bucket (write once, read many): empty = off
    Optional<ObjectLock> objectLock,
    // Kafka source
    SourceType sourceType,
    Optional<String> clusterArn,
    MskAuth mskAuth,
    Optional<String> saslScramSecretArn,
    SelfManagedAuth selfManagedAuth,
    Optional<String> clientCertificateSecretArn,
    Optional<String> serverRootCaSecretArn,
    Optional<String> sourceSecretsKmsKeyArn,
    List<String> bootstrapServers,
    List<String> subnetIds,
    List<String> securityGroupIds,
    // event source mapping
    String startingPosition,
    Optional<Long> startingPositionTimestamp,
    int batchSize,
    int batchingWindowSeconds,
    String consumerGroupId,
    boolean provisionedPollers,
    int minimumPollers,
    int maximumPollers,
    int retryAttempts,
    int maximumRecordAgeSeconds,
    boolean bisectBatchOnError,
    boolean reportBatchItemFailures,
    OnFailure onFailure,
    Optional<String> onFailureBucketArn,
    // function
    int memorySize,
    int timeoutSeconds,
    String architecture,
    int logRetentionDays,
    // monitoring
    long offsetLagThreshold,
    int uploadRetriesThreshold,
    int batchAgeThresholdMs,
    int heartbeatMinutes,
    Optional<String> alarmTopicArn,
    boolean tracing,
    // Athena
    boolean athena,
    String glueDatabaseName,
    String athenaTableName,
    List<String> athenaColumns,
    Map<String, List<String>> athenaPartitionValues,
    // OUTPUT_FORMAT=iceberg only (docs/iceberg.md)
    Optional<Iceberg> iceberg,
    List<String> droppedSecrets) {

  /**
   * The Iceberg table of {@code outputFormat=iceberg}: where it lives and how the scheduled {@code
   * {"action":"maintain"}} keeps it lean. With the Glue catalog the table's files go under {@code
   * s3://<bucket>/<keyPrefix>/<database>.db/<table>/}, the location Iceberg's GlueCatalog gives a
   * table of a database without a LocationUri; with S3 Tables, into the table bucket's storage.
   *
   * @param database ICEBERG_DATABASE: the Glue database, or the S3 Tables namespace
   * @param createDatabase create the Glue database (or the namespace) in the stack, or use an
   *     existing one
   * @param table ICEBERG_TABLE
   * @param maintenanceRateHours how often the schedule invokes {@code {"action":"maintain"}}
   * @param targetFileMb ICEBERG_TARGET_FILE_MB
   * @param snapshotRetentionHours ICEBERG_SNAPSHOT_RETENTION_HOURS
   * @param snapshotsRetained ICEBERG_SNAPSHOTS_RETAINED
   * @param catalog the Glue Data Catalog, or an S3 Tables table bucket
   */
  public record Iceberg(
      String database,
      boolean createDatabase,
      String table,
      int maintenanceRateHours,
      int targetFileMb,
      int snapshotRetentionHours,
      int snapshotsRetained,
      IcebergCatalog catalog) {
    public Iceberg {
      icebergName("icebergDatabase", database);
      icebergName("icebergTable", table);
      range("icebergMaintenanceRateHours", maintenanceRateHours, 1, 168);
      // The function's own bounds (IcebergSettings), checked at synth instead of at cold start.
      range("icebergTargetFileMb", targetFileMb, 1, 4096);
      range("icebergSnapshotRetentionHours", snapshotRetentionHours, 0, 24 * 3650);
      range("icebergSnapshotsRetained", snapshotsRetained, 1, 10_000);
    }

    /**
     * Whether the stack schedules {@code {"action":"maintain"}}: not for S3 Tables, which compacts,
     * expires snapshots and removes unreferenced files itself (docs/iceberg.md).
     */
    public boolean maintenanceScheduled() {
      return catalog instanceof IcebergCatalog.Glue;
    }
  }

  /** Where the Iceberg table's metadata and files live ({@code icebergCatalog}). */
  public sealed interface IcebergCatalog {
    /** The Glue Data Catalog; the files go under the archive bucket's table folder. */
    record Glue() implements IcebergCatalog {}

    /**
     * An S3 Tables table bucket, through its Iceberg REST endpoint with SigV4 signing name {@code
     * s3tables}; S3 Tables keeps the files in the table's own storage.
     *
     * @param bucketName the table bucket's name
     * @param existingBucketArn the ARN of a table bucket that exists; empty = the stack creates
     *     {@code bucketName}
     */
    record S3Tables(String bucketName, Optional<String> existingBucketArn)
        implements IcebergCatalog {
      public S3Tables {
        existingBucketArn.ifPresent(
            arn -> {
              if (!TABLE_BUCKET_ARN.matcher(arn).matches()) {
                throw new IllegalArgumentException(
                    "icebergTableBucketArn='"
                        + arn
                        + "' is not valid; legal values: a table bucket ARN such as"
                        + " arn:aws:s3tables:us-east-1:123456789012:bucket/archive-tables");
              }
            });
        if (!TABLE_BUCKET_NAME.matcher(bucketName).matches()) {
          throw new IllegalArgumentException(
              "icebergTableBucketName='"
                  + bucketName
                  + "' is not valid; legal values: 3-63 of lower-case letters, digits and '-',"
                  + " starting and ending with a letter or digit (the rule of S3 Tables); set"
                  + " icebergTableBucketName, or icebergTableBucketArn for an existing bucket");
        }
      }
    }
  }

  /** S3 Tables' naming rule for table buckets. */
  static final Pattern TABLE_BUCKET_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]");

  /** A table bucket's ARN, as AWS::S3Tables::Namespace's TableBucketARN accepts it. */
  static final Pattern TABLE_BUCKET_ARN =
      Pattern.compile(
          "arn:aws[a-z-]*:s3tables:[a-z0-9-]+:[0-9]{12}:bucket/([a-z0-9][a-z0-9-]{1,61}[a-z0-9])");

  /** The table bucket the CDK app names after the title when icebergTableBucketName is unset. */
  static String tableBucketNameFor(String title) {
    return title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
  }

  /** The smallest memory the iceberg jar is deployed with: its Parquet writers and compaction. */
  static final int ICEBERG_MIN_MEMORY_MB = 1024;

  private static final Pattern ICEBERG_NAME = Pattern.compile("[a-z0-9][a-z0-9_]{0,254}");

  private static void icebergName(String key, String value) {
    if (!ICEBERG_NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          key
              + "='"
              + value
              + "' is not valid; legal values: 1-255 of lower-case letters, digits and '_',"
              + " starting with a letter or digit (the rule of Glue and S3 Tables)");
    }
  }

  /** The table the function names after the topic when ICEBERG_TABLE is unset (its tableFor). */
  static String icebergTableFor(String topic) {
    String name = topic.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return name.startsWith("_") ? "t" + name : name;
  }

  /** Where the records come from. */
  public enum SourceType {
    MSK,
    SELF_MANAGED
  }

  /** How the mapping authenticates to MSK. */
  public enum MskAuth {
    IAM,
    SCRAM,
    MTLS
  }

  /**
   * How the mapping authenticates to a self-managed cluster. NONE is accepted only inside a VPC: an
   * unauthenticated cluster must not be reachable from the internet.
   */
  public enum SelfManagedAuth {
    SCRAM_512("SASL_SCRAM_512_AUTH"),
    SCRAM_256("SASL_SCRAM_256_AUTH"),
    PLAIN("BASIC_AUTH"),
    MTLS("CLIENT_CERTIFICATE_TLS_AUTH"),
    NONE(null);

    /** The SourceAccessConfiguration type of this method's secret (none for NONE). */
    final String accessType;

    SelfManagedAuth(String accessType) {
      this.accessType = accessType;
    }

    boolean usesSaslSecret() {
      return this == SCRAM_512 || this == SCRAM_256 || this == PLAIN;
    }
  }

  /** Where the mapping sends a batch it gives up on (provisioned mode only). */
  public enum OnFailure {
    SQS,
    S3,
    NONE
  }

  /**
   * S3 Object Lock on the created bucket, with a default retention that every new object version
   * gets: no one can delete or overwrite a version before its retention ends (GOVERNANCE: except a
   * principal granted s3:BypassGovernanceRetention; COMPLIANCE: no one, the account's root
   * included). docs/deploy.md, Object Lock.
   *
   * @param mode GOVERNANCE or COMPLIANCE (objectLockMode)
   * @param days the default retention in days (objectLockDays)
   */
  public record ObjectLock(String mode, int days) {
    static final List<String> MODES = List.of("GOVERNANCE", "COMPLIANCE");

    /** S3's largest default retention is 100 years. */
    static final int MAX_DAYS = 36_500;

    public ObjectLock {
      if (!MODES.contains(mode)) {
        throw new IllegalArgumentException(
            "objectLockMode='"
                + mode
                + "' is not valid; legal values: "
                + String.join(", ", MODES)
                + " (or leave it unset for no Object Lock)");
      }
      if (days < 1 || days > MAX_DAYS) {
        throw new IllegalArgumentException(
            "objectLockDays="
                + days
                + " is out of range; legal values: 1.."
                + MAX_DAYS
                + " (the default retention of every object version, in days)");
      }
    }
  }

  /** objectLockMode/objectLockDays: both or neither. */
  private static Optional<ObjectLock> objectLock(Reader r, Function<String, Optional<String>> get) {
    Optional<String> mode = get.apply("objectLockMode");
    Optional<String> days = get.apply("objectLockDays");
    if (mode.isEmpty() && days.isEmpty()) {
      return Optional.empty();
    }
    if (mode.isEmpty() || days.isEmpty()) {
      throw new IllegalArgumentException(
          (mode.isEmpty() ? "objectLockDays" : "objectLockMode")
              + " is set without "
              + (mode.isEmpty() ? "objectLockMode" : "objectLockDays")
              + ": Object Lock needs both, a mode (GOVERNANCE or COMPLIANCE) and a default"
              + " retention in days (1.."
              + ObjectLock.MAX_DAYS
              + "), or neither");
    }
    return Optional.of(
        new ObjectLock(mode.get().toUpperCase(Locale.ROOT), r.integer("objectLockDays", 0)));
  }

  /** The seed's secret fields; they never enter the template. */
  static final Set<String> SECRET_KEYS =
      Set.of("accessKey", "secretKey", "accessKeyId", "secretAccessKey");

  static final Set<String> KNOWN_KEYS =
      Set.of(
          "title",
          "bucketName",
          "createBucket",
          "region",
          "inputTopic",
          "outputFormat",
          "compression",
          "keyPrefix",
          "keyTemplate",
          "partitionTime",
          "timeField",
          "timeFormat",
          "maxFoldersPerPartition",
          "timeZone",
          "includeKafkaMetadata",
          "logLevel",
          "credentialsSecretArn",
          "createCredentialsSecret",
          "roleArn",
          "externalId",
          "sse",
          "kmsKeyArn",
          "bucketEncryption",
          "endpointUrlS3",
          "s3ForcePathStyle",
          "expectedBucketOwner",
          "parquetSchema",
          "schemaRegistryUri",
          "schemaRegistryAuth",
          "schemaRegistrySecretArn",
          "schemaValidation",
          "transitionDays",
          "transitionStorageClass",
          "secondTransitionDays",
          "secondTransitionStorageClass",
          "transitionMinObjectSize",
          "allowArchiveStorageClasses",
          "expirationDays",
          "noncurrentVersionExpirationDays",
          "serverAccessLogsBucketName",
          "objectLockMode",
          "objectLockDays",
          "sourceType",
          "clusterArn",
          "mskAuth",
          "saslScramSecretArn",
          "selfManagedAuth",
          "clientCertificateSecretArn",
          "serverRootCaSecretArn",
          "sourceSecretsKmsKeyArn",
          "bootstrapServers",
          "subnetIds",
          "securityGroupIds",
          "startingPosition",
          "startingPositionTimestamp",
          "batchSize",
          "batchingWindowSeconds",
          "consumerGroupId",
          "provisionedPollers",
          "minimumPollers",
          "maximumPollers",
          "retryAttempts",
          "maximumRecordAgeSeconds",
          "bisectBatchOnError",
          "reportBatchItemFailures",
          "onFailure",
          "onFailureBucketArn",
          "memorySize",
          "timeoutSeconds",
          "architecture",
          "logRetentionDays",
          "offsetLagThreshold",
          "uploadRetriesThreshold",
          "batchAgeThresholdMs",
          "heartbeatMinutes",
          "alarmTopicArn",
          "tracing",
          "athena",
          "glueDatabaseName",
          "athenaTableName",
          "athenaColumns",
          "athenaPartitionValues",
          "icebergDatabase",
          "createIcebergDatabase",
          "icebergTable",
          "icebergMaintenanceRateHours",
          "icebergTargetFileMb",
          "icebergSnapshotRetentionHours",
          "icebergSnapshotsRetained",
          "icebergCatalog",
          "icebergTableBucketName",
          "icebergTableBucketArn");

  /** {@code ${value.…}}, {@code ${key}}, {@code ${header.…}}: the function's record variables. */
  private static final Pattern RECORD_VARIABLE =
      Pattern.compile("\\$\\{(value(\\.[^}]*)?|key|header\\.[^}]*)}");

  /** CloudFormation's Topics take 2 to 249 characters, though Kafka itself accepts one. */
  static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{2,249}");

  /** An MSK cluster ARN; the example goes into every message about one. */
  static final Pattern CLUSTER_ARN =
      Pattern.compile("arn:aws[a-z-]*:kafka:[a-z0-9-]+:[0-9]{12}:cluster/[^/]+/[^/]+");

  static final String CLUSTER_ARN_EXAMPLE =
      "arn:aws:kafka:us-east-1:123456789012:cluster/my-cluster/abcd1234-0123-4567-89ab-cdef01234567-1";

  /** Subnet and security group ids, for the mapping's VPC and the restore Lambda's alike. */
  static List<String> vpcIds(String key, List<String> ids, String kind) {
    for (String id : ids) {
      if (!id.matches(kind + "-[0-9a-f]{1,17}")) {
        throw new IllegalArgumentException(
            key
                + " holds '"
                + id
                + "', which is not a "
                + kind
                + "- id (e.g. "
                + kind
                + "-0123456789abcdef0)");
      }
    }
    return List.copyOf(ids);
  }

  private static final Pattern GROUP_ID = Pattern.compile("[a-zA-Z0-9\\-/*:_+=.@]{1,200}");
  private static final Pattern ARN = Pattern.compile("arn:aws[a-z-]*:[a-z0-9-]+:.*");
  private static final Pattern ACCOUNT_ID = Pattern.compile("[0-9]{12}");

  /** A Glue schema registry's ARN, which the mapping's SchemaRegistryURI takes for Glue. */
  static final Pattern GLUE_REGISTRY =
      Pattern.compile("arn:aws[a-z-]*:glue:[a-z0-9-]+:[0-9]{12}:registry/[A-Za-z0-9_$#.-]+");

  /** Whether the registry is Glue's (an ARN) rather than a Confluent URL. */
  boolean glueRegistry() {
    return schemaRegistryUri.map(u -> GLUE_REGISTRY.matcher(u).matches()).orElse(false);
  }

  /**
   * The mapping accepts a SchemaRegistryConfig in provisioned mode only (Lambda developer guide,
   * "Using schema registries with Kafka event sources in Lambda"), with a Glue registry ARN or a
   * Confluent URL, and a Secrets Manager secret for a Confluent registry's authentication.
   */
  private static void validateSchemaRegistry(
      Optional<String> uri, String auth, Optional<String> secret, boolean provisioned) {
    if (uri.isEmpty()) {
      if (!auth.equals("none") || secret.isPresent()) {
        throw new IllegalArgumentException(
            "schemaRegistryAuth/schemaRegistrySecretArn need schemaRegistryUri (a Confluent"
                + " registry URL); see docs/schema-registry.md");
      }
      return;
    }
    String u = uri.get();
    boolean glue = GLUE_REGISTRY.matcher(u).matches();
    if (!glue && !u.startsWith("https://") && !u.startsWith("http://")) {
      throw new IllegalArgumentException(
          "schemaRegistryUri='"
              + u
              + "' is not valid; legal values: a Glue registry ARN such as"
              + " arn:aws:glue:us-east-1:123456789012:registry/orders, or a Confluent registry URL");
    }
    if (!provisioned) {
      throw new IllegalArgumentException(
          "schemaRegistryUri needs provisionedPollers=true: the event source mapping supports a"
              + " schema registry in provisioned mode only");
    }
    if (glue && !auth.equals("none")) {
      throw new IllegalArgumentException(
          "schemaRegistryAuth='"
              + auth
              + "' applies to a Confluent registry; a Glue registry is read with the execution"
              + " role: set schemaRegistryAuth=none");
    }
    if (!auth.equals("none") && secret.isEmpty()) {
      throw new IllegalArgumentException(
          "schemaRegistryAuth=" + auth + " needs schemaRegistrySecretArn (the registry's secret)");
    }
    if (auth.equals("none") && secret.isPresent()) {
      throw new IllegalArgumentException(
          "schemaRegistrySecretArn is set but schemaRegistryAuth=none; set"
              + " schemaRegistryAuth=basic or client-certificate, or remove the secret");
    }
    if (!auth.equals("none") && u.startsWith("http://")) {
      // The function refuses it at init too (DESIGN §6); failing the synth says so before a deploy.
      throw new IllegalArgumentException(
          "schemaRegistryUri='"
              + u
              + "' is plain http, but schemaRegistryAuth="
              + auth
              + " gives the registry credentials, which would cross the network in clear text;"
              + " use the registry's https:// URL");
    }
  }

  /** What a storage class that needs a restore before reading stops; the warning says it too. */
  static final String ARCHIVE_CLASS_LOSS =
      "after the transition the archive's objects cannot be read until restored one by one, so"
          + " Athena queries, the restore and redrive commands, the preflight of old objects and"
          + " the function's own claim reads (a redelivery that meets an archived object) fail.";

  /** GLACIER and DEEP_ARCHIVE in the lifecycle, if any (each needs a restore to be read). */
  static List<String> archiveClassesInUse(
      int firstDays, String first, int secondDays, String second) {
    List<String> out = new java.util.ArrayList<>();
    if (firstDays > 0 && (first.equals("GLACIER") || first.equals("DEEP_ARCHIVE"))) {
      out.add(first);
    }
    if (secondDays > 0 && (second.equals("GLACIER") || second.equals("DEEP_ARCHIVE"))) {
      out.add(second);
    }
    return out;
  }

  /** Which restore-needing storage classes this configuration transitions to. */
  List<String> archiveClassesInUse() {
    return archiveClassesInUse(
        transitionDays, transitionStorageClass, secondTransitionDays, secondTransitionStorageClass);
  }

  /** template.yaml's HeartbeatMinutes AllowedValues (its Mappings turn each into periods). */
  static final List<Integer> HEARTBEAT_MINUTES =
      List.of(10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 360, 480, 720, 1440);

  public ArchiverSettings {
    if (createBucket && bucketRegion.isPresent()) {
      throw new IllegalArgumentException(
          "region: a created bucket lives in the stack's region; leave region unset or import"
              + " an existing bucket with bucketName and createBucket=false");
    }
    if (!createBucket && bucketName.isEmpty()) {
      throw new IllegalArgumentException("bucketName is required when createBucket is false");
    }
    if (keyTemplate.isPresent() && !keyTemplate.get().startsWith("${KEY_PREFIX}/${OBJECT_NAME}/")) {
      throw new IllegalArgumentException(
          "keyTemplate='"
              + keyTemplate.get()
              + "' must begin with ${KEY_PREFIX}/${OBJECT_NAME}/ so the IAM policy can confine"
              + " writes to the archive prefix");
    }
    if (sse.isPresent() && sse.get().equals("aws:kms") && kmsKeyArn.isEmpty() && !createBucket) {
      throw new IllegalArgumentException(
          "sse=aws:kms needs kmsKeyArn for an imported bucket (the policy grants KMS on that key"
              + " only)");
    }
    switch (sourceType) {
      case MSK -> {
        if (clusterArn.isEmpty()) {
          throw new IllegalArgumentException(
              "clusterArn is required when sourceType=msk, e.g. " + CLUSTER_ARN_EXAMPLE);
        }
        if (!CLUSTER_ARN.matcher(clusterArn.get()).matches()) {
          throw new IllegalArgumentException(
              "clusterArn='"
                  + clusterArn.get()
                  + "' is not an MSK cluster ARN (the cluster's ARN, not its name), e.g. "
                  + CLUSTER_ARN_EXAMPLE);
        }
        if (mskAuth == MskAuth.SCRAM && saslScramSecretArn.isEmpty()) {
          throw new IllegalArgumentException(
              "saslScramSecretArn is required when mskAuth=scram (an AmazonMSK_ secret)");
        }
        // MSK refuses SCRAM secrets under the default aws/secretsmanager key, and the mapping's
        // role must be allowed to decrypt with the customer managed key (NOTES.md).
        if (mskAuth == MskAuth.SCRAM && sourceSecretsKmsKeyArn.isEmpty()) {
          throw new IllegalArgumentException(
              "sourceSecretsKmsKeyArn is required when mskAuth=scram: MSK needs the SCRAM secret"
                  + " encrypted with a customer managed KMS key, and the mapping's role gets"
                  + " kms:Decrypt on exactly that key");
        }
        if (mskAuth == MskAuth.MTLS && clientCertificateSecretArn.isEmpty()) {
          throw new IllegalArgumentException(
              "clientCertificateSecretArn is required when mskAuth=mtls (the client certificate"
                  + " chain and private key, PEM, in Secrets Manager)");
        }
        if (serverRootCaSecretArn.isPresent()) {
          throw new IllegalArgumentException(
              "serverRootCaSecretArn applies to self-managed Kafka only; MSK brokers present"
                  + " certificates Lambda already trusts");
        }
      }
      case SELF_MANAGED -> {
        if (bootstrapServers.isEmpty()) {
          throw new IllegalArgumentException(
              "bootstrapServers is required when sourceType=self-managed");
        }
        if (selfManagedAuth.usesSaslSecret() && saslScramSecretArn.isEmpty()) {
          throw new IllegalArgumentException(
              "saslScramSecretArn is required when selfManagedAuth="
                  + selfManagedAuth.name().toLowerCase(Locale.ROOT).replace('_', '-')
                  + " (the SASL username and password secret)");
        }
        if (selfManagedAuth == SelfManagedAuth.MTLS && clientCertificateSecretArn.isEmpty()) {
          throw new IllegalArgumentException(
              "clientCertificateSecretArn is required when selfManagedAuth=mtls");
        }
        if (subnetIds.isEmpty() != securityGroupIds.isEmpty()) {
          throw new IllegalArgumentException(
              "subnetIds and securityGroupIds go together (the brokers' VPC), or neither");
        }
        if (selfManagedAuth == SelfManagedAuth.NONE && subnetIds.isEmpty()) {
          throw new IllegalArgumentException(
              "selfManagedAuth=none needs subnetIds and securityGroupIds: an unauthenticated"
                  + " cluster is accepted only inside a VPC; otherwise choose scram-512,"
                  + " scram-256, plain or mtls");
        }
      }
    }
    // Lambda's limits for a Kafka mapping's VPC: 16 subnets, 5 security groups.
    if (subnetIds.size() > 16 || securityGroupIds.size() > 5) {
      throw new IllegalArgumentException(
          "subnetIds: at most 16, securityGroupIds: at most 5 (got "
              + subnetIds.size()
              + " and "
              + securityGroupIds.size()
              + ")");
    }
    if (startingPosition.equals("AT_TIMESTAMP") != startingPositionTimestamp.isPresent()) {
      throw new IllegalArgumentException(
          "startingPositionTimestamp (Unix seconds) goes with startingPosition=AT_TIMESTAMP, and"
              + " only with it");
    }
    for (String c :
        archiveClassesInUse(
            transitionDays,
            transitionStorageClass,
            secondTransitionDays,
            secondTransitionStorageClass)) {
      if (!allowArchiveStorageClasses) {
        throw new IllegalArgumentException(
            "transitionStorageClass "
                + c
                + " needs a restore before any read: "
                + ARCHIVE_CLASS_LOSS
                + " Use GLACIER_IR (instant reads, the default), or set"
                + " allowArchiveStorageClasses=true to accept that");
      }
    }
    if (secondTransitionDays > 0 && secondTransitionDays <= transitionDays) {
      throw new IllegalArgumentException(
          "secondTransitionDays="
              + secondTransitionDays
              + " must be later than transitionDays="
              + transitionDays
              + " (the second tier follows the first)");
    }
    if (objectLock.isPresent()) {
      ObjectLock lock = objectLock.get();
      if (!createBucket) {
        throw new IllegalArgumentException(
            "objectLockMode is set but createBucket=false: the stack configures Object Lock on"
                + " the bucket it creates only; for an existing bucket enable it there (aws s3api"
                + " put-object-lock-configuration), the preflight reports it");
      }
      // Expiring a current version before its retention ends cannot delete it: S3 only adds a
      // delete marker, so the objects vanish from listings (Athena, the restore, the audit see
      // gaps) while their bytes stay, billed, until the retention ends.
      if (expirationDays > 0 && expirationDays < lock.days()) {
        throw new IllegalArgumentException(
            "expirationDays="
                + expirationDays
                + " is shorter than objectLockDays="
                + lock.days()
                + ": a locked version cannot be deleted before its retention ends, so the"
                + " expiry would only hide objects behind delete markers (Athena, the restore and"
                + " the audit would see gaps) while S3 keeps and bills them; set expirationDays to"
                + " 0 or to "
                + lock.days()
                + " or more (docs/deploy.md, Object Lock)");
      }
    }
    if (transitionMinObjectSize < 0) {
      throw new IllegalArgumentException(
          "transitionMinObjectSize=" + transitionMinObjectSize + " must be 0 or more (bytes)");
    }
    // S3 refuses a lifecycle transition to STANDARD_IA before an object is 30 days old.
    if (transitionDays > 0 && transitionDays < 30 && transitionStorageClass.equals("STANDARD_IA")) {
      throw new IllegalArgumentException(
          "transitionDays="
              + transitionDays
              + " with transitionStorageClass=STANDARD_IA: S3 requires at least 30 days before"
              + " STANDARD_IA; use 30 or more, or INTELLIGENT_TIERING / GLACIER_IR");
    }
    // The Glue table's partition projection follows keyTemplate (AthenaTable), which refuses at
    // synth a layout projection cannot describe.
    if (keyTemplate.isPresent()
        && RECORD_VARIABLE.matcher(keyTemplate.get()).find()
        && partitionTime.equals("batch")) {
      throw new IllegalArgumentException(
          "partitionTime=batch cannot be used with keyTemplate='"
              + keyTemplate.get()
              + "', which partitions by record content: a redelivery's time folder would depend"
              + " on where it starts, so the function refuses it at cold start; legal values with"
              + " record variables: record (the default for such a template)");
    }
    if (partitionTime.equals("field") && timeField.isEmpty()) {
      throw new IllegalArgumentException(
          "partitionTime=field needs timeField, the dotted path of the event time in the value"
              + " (e.g. eventTime or meta.createdAt)");
    }
    if (!partitionTime.equals("field") && (timeField.isPresent() || timeFormat.isPresent())) {
      throw new IllegalArgumentException(
          "timeField and timeFormat take the time folders from the value, which needs"
              + " partitionTime=field (it is "
              + partitionTime
              + "); set partitionTime=field or remove them");
    }
    range("maxFoldersPerPartition", maxFoldersPerPartition, 1, 10_000);
    boolean recordsChooseFolders =
        partitionTime.equals("field")
            || keyTemplate.filter(t -> RECORD_VARIABLE.matcher(t).find()).isPresent();
    if (recordsChooseFolders && !(provisionedPollers && reportBatchItemFailures)) {
      // The function refuses this at cold start: its fan-out guard defers through batch item
      // failures, which only a provisioned mapping with ReportBatchItemFailures honours.
      throw new IllegalArgumentException(
          "a keyTemplate with record variables or partitionTime=field needs"
              + " reportBatchItemFailures=true and provisionedPollers=true: the fan-out guard"
              + " defers the rest of a partition through batch item failures");
    }
    if (onFailure == OnFailure.S3 && onFailureBucketArn.isEmpty()) {
      throw new IllegalArgumentException("onFailureBucketArn is required when onFailure=s3");
    }
    if (minimumPollers < 1 || maximumPollers < minimumPollers || maximumPollers > 2000) {
      throw new IllegalArgumentException(
          "minimumPollers/maximumPollers: need 1 <= minimumPollers <= maximumPollers <= 2000");
    }
    range("batchSize", batchSize, 1, 10_000);
    range("batchingWindowSeconds", batchingWindowSeconds, 0, 300);
    range("memorySize", memorySize, 128, 10_240);
    if (iceberg.isPresent() != outputFormat.equals("iceberg")) {
      throw new IllegalArgumentException("iceberg settings are present iff outputFormat=iceberg");
    }
    if (iceberg.isPresent() && memorySize < ICEBERG_MIN_MEMORY_MB) {
      throw new IllegalArgumentException(
          "memorySize="
              + memorySize
              + " is too small for outputFormat=iceberg: its Parquet writers and the maintenance"
              + " compaction need at least "
              + ICEBERG_MIN_MEMORY_MB
              + " MB; set memorySize to 1024 or more");
    }
    if (iceberg.map(Iceberg::catalog).orElse(null) instanceof IcebergCatalog.S3Tables) {
      // The function signs S3 Tables calls for BUCKET_REGION and reaches the table's storage
      // through its S3 client: both must be the stack's region and AWS's own endpoint.
      if (bucketRegion.isPresent()) {
        throw new IllegalArgumentException(
            "region cannot be used with icebergCatalog=s3tables: the function signs its S3 Tables"
                + " calls for the bucket's region, and the table bucket lives in the stack's"
                + " region; deploy the stack in the archive bucket's region and leave region unset");
      }
      if (endpointUrlS3.isPresent()) {
        throw new IllegalArgumentException(
            "endpointUrlS3 cannot be used with icebergCatalog=s3tables: the table's files are read"
                + " and written through AWS's S3 endpoint; leave endpointUrlS3 unset");
      }
    }
    if (iceberg.isPresent() && athena) {
      throw new IllegalArgumentException(
          "athena=true cannot be used with outputFormat=iceberg: the athena option describes the"
              + " file formats' folders; Athena reads the Iceberg table straight from the Glue"
              + " catalog (docs/iceberg.md, Reading the table), so leave athena unset");
    }
    range("timeoutSeconds", timeoutSeconds, 1, 900);
    range("uploadRetriesThreshold", uploadRetriesThreshold, 0, 1_000_000);
    // A batch may wait up to the batching window (at most 5 min) before it is invoked at all.
    range("batchAgeThresholdMs", batchAgeThresholdMs, 60_000, 604_800_000);
    if (retryAttempts != -1) {
      range("retryAttempts", retryAttempts, 0, 10_000);
    }
    if (maximumRecordAgeSeconds != -1) {
      range("maximumRecordAgeSeconds", maximumRecordAgeSeconds, 60, 604_800);
    }
    if (!HEARTBEAT_MINUTES.contains(heartbeatMinutes)) {
      throw new IllegalArgumentException(
          "heartbeatMinutes="
              + heartbeatMinutes
              + " is not valid; legal values: "
              + HEARTBEAT_MINUTES
              + " (the HeartbeatAlarm fires when no invocation succeeds for that long)");
    }
    if (provisionedPollers
        && onFailure == OnFailure.NONE
        && (retryAttempts != -1 || maximumRecordAgeSeconds != -1)) {
      // The mapping skips a batch past its retries or record age; without a destination nothing
      // records which offsets it skipped, and the archive has a gap no one can find or redrive.
      throw new IllegalArgumentException(
          "onFailure=none with retryAttempts="
              + retryAttempts
              + " and maximumRecordAgeSeconds="
              + maximumRecordAgeSeconds
              + " would skip failed batches and record nothing: keep onFailure=sqs or s3 (the"
              + " skipped offsets can then be redriven), or set retryAttempts=-1 and"
              + " maximumRecordAgeSeconds=-1 to stall rather than skip");
    }
    expectedBucketOwner.ifPresent(
        owner -> {
          if (!ACCOUNT_ID.matcher(owner).matches()) {
            throw new IllegalArgumentException(
                "expectedBucketOwner='"
                    + owner
                    + "' is not valid; legal values: the 12-digit AWS account id that owns the"
                    + " bucket, such as 123456789012, or unset");
          }
        });
    if (parquetSchema.isPresent()) {
      if (!outputFormat.equals("parquet")) {
        throw new IllegalArgumentException(
            "parquetSchema is set but outputFormat is '"
                + outputFormat
                + "'; it declares Parquet column types: set outputFormat=parquet or remove"
                + " parquetSchema");
      }
      validateParquetSchema(parquetSchema.get());
    }
    validateSchemaRegistry(
        schemaRegistryUri, schemaRegistryAuth, schemaRegistrySecretArn, provisionedPollers);
    // athena=true with parquet: the table's columns come from the declared schema, and the
    // function reads its schema back from the table (functionParquetSchema), one schema for both.
    if (athena && outputFormat.equals("parquet")) {
      if (!athenaColumns.isEmpty()) {
        throw new IllegalArgumentException(
            "athenaColumns is for an ndjson table; a parquet table takes its columns from"
                + " parquetSchema (the declared schema, e.g. {\"id\":\"bigint\"}), which the"
                + " function then reads from the table: remove athenaColumns");
      }
      if (parquetSchema.isEmpty() || DeclaredSchema.glueTable(parquetSchema.get()).isPresent()) {
        throw new IllegalArgumentException(
            "athena=true with outputFormat=parquet needs parquetSchema as a JSON object from"
                + " field name to type (e.g. {\"id\":\"bigint\",\"at\":\"timestamp\"}): the"
                + " stack makes the table's columns from it and the function reads its schema"
                + " from that table"
                + parquetSchema
                    .map(v -> "; with " + v + " the table exists already: set athena=false")
                    .orElse(""));
      }
      DeclaredSchema.parse(parquetSchema.get()).tableColumns();
      if (DeclaredSchema.glueTable("glue:" + glueDatabaseName + "." + athenaTableName).isEmpty()) {
        throw new IllegalArgumentException(
            "glueDatabaseName='"
                + glueDatabaseName
                + "' and athenaTableName='"
                + athenaTableName
                + "' must be Glue names (letters, digits, _ and -): the function reads its"
                + " schema from glue:<database>.<table>");
      }
    }
    if (athena && !outputFormat.equals("parquet") && !outputFormat.equals("ndjson")) {
      throw new IllegalArgumentException(
          "athena=true covers outputFormat ndjson and parquet, not " + outputFormat);
    }
    for (String column : athenaColumns) {
      if (!column.matches("[a-z_][a-z0-9_]*:[a-z][a-z0-9_<>,()]*")) {
        throw new IllegalArgumentException(
            "athenaColumns entry '" + column + "' is not name:type (e.g. vehicleid:string)");
      }
    }
    athenaColumns = List.copyOf(athenaColumns);
    athenaPartitionValues.forEach(
        (column, values) ->
            values.forEach(
                v -> {
                  // The function escapes anything else as %XX; an enum must list the key's form.
                  if (!v.matches("[A-Za-z0-9._-]+")) {
                    throw new IllegalArgumentException(
                        "athenaPartitionValues: the value '"
                            + v
                            + "' of "
                            + column
                            + " holds characters the key escapes; list values of letters, digits"
                            + " and . _ - only, or leave the column injected");
                  }
                }));
    athenaPartitionValues = Map.copyOf(athenaPartitionValues);
    droppedSecrets = List.copyOf(droppedSecrets);
    bootstrapServers = List.copyOf(bootstrapServers);
    subnetIds = List.copyOf(subnetIds);
    securityGroupIds = List.copyOf(securityGroupIds);
  }

  /** True when the function must return batchItemFailures: the mapping reports them. */
  public boolean mappingReportsItemFailures() {
    return provisionedPollers && reportBatchItemFailures;
  }

  /** Reads a JSON file in the seed's connector shape. */
  public static Map<String, Object> readJsonFile(Path file) {
    try {
      JsonNode root = new ObjectMapper().readTree(Files.readString(file));
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException(file + ": expected a JSON object");
      }
      Map<String, Object> values = new LinkedHashMap<>();
      root.properties()
          .forEach(
              e -> {
                JsonNode v = e.getValue();
                if (v.isArray()) {
                  List<String> items = new ArrayList<>();
                  v.forEach(item -> items.add(item.asText()));
                  values.put(e.getKey(), items);
                } else if (!v.isNull()) {
                  values.put(e.getKey(), v.asText());
                }
              });
      return values;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read configuration file " + file, e);
    }
  }

  /** Context keys of the app itself that are not settings. */
  static final Set<String> APP_KEYS = Set.of("configFile", "jarPath", "stackName");

  /** Context the CDK CLI and cdk.json pass that has no ':' or '/' in its name. */
  private static final Set<String> CDK_KEYS = Set.of("cli-telemetry", "acknowledged-issue-numbers");

  /**
   * Rejects a context key ({@code -c name=value}) that is neither a setting, nor one of the app's,
   * nor the CDK's own (those are namespaced, as {@code aws:cdk:...} or {@code @aws-cdk/...}):
   * otherwise a misspelled {@code -c outputFormt=xml} is ignored and the default silently wins.
   */
  static void requireKnownContextKeys(Set<String> contextKeys) {
    List<String> unknown =
        contextKeys.stream()
            .filter(k -> !k.contains(":") && !k.contains("/") && !CDK_KEYS.contains(k))
            .filter(k -> !KNOWN_KEYS.contains(k) && !SECRET_KEYS.contains(k))
            .filter(k -> !APP_KEYS.contains(k))
            .filter(
                k -> !RestoreSettings.KEYS.contains(k) && !k.equals(RestoreSettings.JAR_PATH_KEY))
            .sorted()
            .toList();
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown context key(s) "
              + unknown
              + " (-c name=value or cdk.json); known keys: "
              + sorted(KNOWN_KEYS)
              + ", and the app's "
              + sorted(APP_KEYS));
    }
  }

  /**
   * Builds the settings from one lookup (context, file, or both merged). Unknown keys are an error,
   * so a typo does not silently fall back to a default.
   */
  public static ArchiverSettings from(Map<String, Object> values) {
    for (String key : values.keySet()) {
      if (!KNOWN_KEYS.contains(key)
          && !SECRET_KEYS.contains(key)
          && !RestoreSettings.KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "unknown configuration key '" + key + "'; known keys: " + sorted(KNOWN_KEYS));
      }
    }
    List<String> dropped = SECRET_KEYS.stream().filter(values::containsKey).sorted().toList();
    Function<String, Optional<String>> get =
        key ->
            Optional.ofNullable(values.get(key))
                .map(v -> v instanceof List<?> l ? String.join(",", toStrings(l)) : v.toString())
                .map(String::trim)
                .filter(s -> !s.isEmpty());
    Reader r = new Reader(get, values);

    String title = r.string("title", "kafka-s3-archiver");
    Optional<String> bucketName = get.apply("bucketName");
    boolean createBucket = r.bool("createBucket", bucketName.isEmpty());
    String inputTopic =
        get.apply("inputTopic")
            .orElseThrow(
                () -> new IllegalArgumentException("inputTopic is required: the topic to archive"));
    if (!TOPIC.matcher(inputTopic).matches()) {
      throw new IllegalArgumentException(
          "inputTopic='"
              + inputTopic
              + "' is not a topic name the mapping accepts (2-249 of [A-Za-z0-9._-])");
    }
    String consumerGroupId = r.string("consumerGroupId", "kafka-s3-archiver-" + title);
    if (!GROUP_ID.matcher(consumerGroupId).matches()) {
      throw new IllegalArgumentException(
          "consumerGroupId='"
              + consumerGroupId
              + "' is not valid: 1-200 of letters, digits and - / * : _ + = . @");
    }
    SourceType sourceType =
        r.choice("sourceType", "msk", "msk", "self-managed").equals("msk")
            ? SourceType.MSK
            : SourceType.SELF_MANAGED;
    OnFailure onFailure =
        OnFailure.valueOf(
            r.choice("onFailure", "sqs", "sqs", "s3", "none").toUpperCase(Locale.ROOT));
    String format = outputFormat(r.string("outputFormat", "ndjson"));
    List<String> icebergKeys =
        KNOWN_KEYS.stream().filter(k -> k.toLowerCase(Locale.ROOT).contains("iceberg")).toList();
    if (!format.equals("iceberg")) {
      icebergKeys.stream()
          .filter(k -> get.apply(k).isPresent())
          .findFirst()
          .ifPresent(
              k -> {
                throw new IllegalArgumentException(
                    k + " is set but outputFormat is '" + format + "': set outputFormat=iceberg");
              });
    }
    return new ArchiverSettings(
        title,
        bucketName,
        createBucket,
        r.arnless("region"),
        inputTopic,
        format,
        r.choice("compression", "none", "none", "gzip", "snappy", "zstd"),
        r.string("keyPrefix", "condense").replaceAll("/+$", ""),
        get.apply("keyTemplate"),
        r.choice(
            "partitionTime",
            get.apply("keyTemplate").filter(t -> RECORD_VARIABLE.matcher(t).find()).isPresent()
                ? "record"
                : "batch",
            "batch",
            "record",
            "ingest",
            "field"),
        get.apply("timeField"),
        get.apply("timeFormat"),
        r.integer("maxFoldersPerPartition", 100),
        r.string("timeZone", "UTC"),
        r.bool("includeKafkaMetadata", false),
        r.choice("logLevel", "INFO", "DEBUG", "INFO", "WARN", "ERROR"),
        r.arn("credentialsSecretArn"),
        r.bool("createCredentialsSecret", !dropped.isEmpty()),
        r.arn("roleArn"),
        get.apply("externalId"),
        get.apply("sse").map(s -> r.choice("sse", s, "AES256", "aws:kms")),
        r.arn("kmsKeyArn"),
        r.choice("bucketEncryption", "s3", "s3", "kms"),
        get.apply("endpointUrlS3"),
        r.bool("s3ForcePathStyle", false),
        get.apply("expectedBucketOwner"),
        get.apply("parquetSchema"),
        get.apply("schemaRegistryUri"),
        r.choice("schemaRegistryAuth", "none", "none", "basic", "client-certificate"),
        r.arn("schemaRegistrySecretArn"),
        r.choice("schemaValidation", "VALUE", "VALUE", "KEY", "KEY,VALUE"),
        r.integer("transitionDays", 30),
        r.choice(
            "transitionStorageClass",
            "GLACIER_IR",
            "STANDARD_IA",
            "INTELLIGENT_TIERING",
            "GLACIER_IR",
            "GLACIER",
            "DEEP_ARCHIVE"),
        r.integer("secondTransitionDays", 0),
        r.choice(
            "secondTransitionStorageClass",
            "GLACIER_IR",
            "STANDARD_IA",
            "INTELLIGENT_TIERING",
            "GLACIER_IR",
            "GLACIER",
            "DEEP_ARCHIVE"),
        r.integer("transitionMinObjectSize", 131_072),
        r.bool("allowArchiveStorageClasses", false),
        r.integer("expirationDays", 0),
        r.integer("noncurrentVersionExpirationDays", 30),
        get.apply("serverAccessLogsBucketName"),
        objectLock(r, get),
        sourceType,
        r.arn("clusterArn"),
        MskAuth.valueOf(
            r.choice("mskAuth", "iam", "iam", "scram", "mtls").toUpperCase(Locale.ROOT)),
        r.arn("saslScramSecretArn"),
        SelfManagedAuth.valueOf(
            r.choice(
                    "selfManagedAuth",
                    "scram-512",
                    "scram-512",
                    "scram-256",
                    "plain",
                    "mtls",
                    "none")
                .toUpperCase(Locale.ROOT)
                .replace('-', '_')),
        r.arn("clientCertificateSecretArn"),
        r.arn("serverRootCaSecretArn"),
        r.arn("sourceSecretsKmsKeyArn"),
        r.list("bootstrapServers"),
        vpcIds("subnetIds", r.list("subnetIds"), "subnet"),
        vpcIds("securityGroupIds", r.list("securityGroupIds"), "sg"),
        r.choice("startingPosition", "TRIM_HORIZON", "TRIM_HORIZON", "LATEST", "AT_TIMESTAMP"),
        get.apply("startingPositionTimestamp")
            .map(v -> r.epochSeconds("startingPositionTimestamp", v)),
        r.integer("batchSize", 10_000),
        r.integer("batchingWindowSeconds", 60),
        consumerGroupId,
        r.bool("provisionedPollers", true),
        r.integer("minimumPollers", 1),
        r.integer("maximumPollers", 2),
        r.integer("retryAttempts", 10),
        // -1: the mapping never discards a record for its age. An archive of a topic whose
        // retention exceeds the age limit would otherwise lose its backlog on a first deploy or
        // after an outage (README, Deploy: maximumRecordAgeSeconds is an opt-in).
        r.integer("maximumRecordAgeSeconds", -1),
        r.bool("bisectBatchOnError", true),
        r.bool("reportBatchItemFailures", true),
        onFailure,
        r.arn("onFailureBucketArn"),
        r.integer("memorySize", 1024),
        r.integer("timeoutSeconds", 90),
        r.choice("architecture", "arm64", "arm64", "x86_64"),
        r.integer("logRetentionDays", 30),
        r.integer("offsetLagThreshold", 100_000),
        r.integer("uploadRetriesThreshold", 10),
        r.integer("batchAgeThresholdMs", 900_000),
        r.integer("heartbeatMinutes", 60),
        r.arn("alarmTopicArn"),
        r.bool("tracing", false),
        r.bool("athena", false),
        r.string("glueDatabaseName", sqlName(title)),
        r.string("athenaTableName", sqlName(inputTopic)),
        r.list("athenaColumns"),
        partitionValues(get.apply("athenaPartitionValues")),
        format.equals("iceberg")
            ? Optional.of(
                new Iceberg(
                    r.string("icebergDatabase", sqlName(title).toLowerCase(Locale.ROOT)),
                    r.bool("createIcebergDatabase", true),
                    r.string("icebergTable", icebergTableFor(inputTopic)),
                    r.integer("icebergMaintenanceRateHours", 6),
                    r.integer("icebergTargetFileMb", 128),
                    r.integer("icebergSnapshotRetentionHours", 24),
                    r.integer("icebergSnapshotsRetained", 10),
                    icebergCatalog(r, get, title)))
            : Optional.empty(),
        dropped);
  }

  /**
   * The formats this app deploys; {@code iceberg} with the separate kafka-s3-archiver-iceberg jar
   * and a Glue catalog (docs/iceberg.md).
   */
  static final List<String> OUTPUT_FORMATS = List.of("json", "ndjson", "csv", "parquet", "iceberg");

  static String outputFormat(String value) {
    for (String legal : OUTPUT_FORMATS) {
      if (legal.equalsIgnoreCase(value)) {
        return legal;
      }
    }
    throw new IllegalArgumentException(
        "outputFormat='"
            + value
            + "' is not valid; legal values: "
            + String.join(", ", OUTPUT_FORMATS));
  }

  /**
   * {@code icebergCatalog=glue|s3tables}. The table-bucket keys belong to s3tables only, and the
   * maintenance schedule to glue only: S3 Tables maintains its tables itself.
   */
  private static IcebergCatalog icebergCatalog(
      Reader r, Function<String, Optional<String>> get, String title) {
    Optional<String> name = get.apply("icebergTableBucketName");
    Optional<String> arn = get.apply("icebergTableBucketArn");
    if (r.choice("icebergCatalog", "glue", "glue", "s3tables").equals("glue")) {
      name.or(() -> arn)
          .ifPresent(
              v -> {
                throw new IllegalArgumentException(
                    (name.isPresent() ? "icebergTableBucketName" : "icebergTableBucketArn")
                        + " is set but icebergCatalog is 'glue': set icebergCatalog=s3tables");
              });
      return new IcebergCatalog.Glue();
    }
    if (name.isPresent() && arn.isPresent()) {
      throw new IllegalArgumentException(
          "icebergTableBucketName and icebergTableBucketArn are both set: name the table bucket"
              + " the stack creates, or give the ARN of an existing one, not both");
    }
    if (get.apply("icebergMaintenanceRateHours").isPresent()) {
      throw new IllegalArgumentException(
          "icebergMaintenanceRateHours is set but icebergCatalog is 's3tables': S3 Tables compacts"
              + " the table, expires its snapshots and removes unreferenced files itself, so the"
              + " stack schedules no maintenance (docs/iceberg.md); leave it unset");
    }
    return new IcebergCatalog.S3Tables(
        arn.map(a -> a.substring(a.lastIndexOf('/') + 1))
            .or(() -> name)
            .orElse(tableBucketNameFor(title)),
        arn);
  }

  /**
   * The function's own check at cold start, done here too so a bad schema fails the synth instead
   * of every invocation after the deploy: an inline schema of the declared vocabulary, or {@code
   * glue:<database>.<table>} (the stack grants glue:GetTable on that table).
   */
  static void validateParquetSchema(String value) {
    if (DeclaredSchema.glueTable(value).isPresent()) {
      return;
    }
    if (value.strip().startsWith("glue:") || value.strip().startsWith("s3://")) {
      throw new IllegalArgumentException(
          "parquetSchema='"
              + value
              + "' is not valid; legal values: a JSON object from field name to type, or"
              + " glue:<database>.<table> (letters, digits, _ and -); a schema document in S3 is"
              + " not granted by the stack: give the schema inline");
    }
    DeclaredSchema.parse(value);
  }

  /**
   * What the function gets as PARQUET_SCHEMA: with athena=true and parquet, the stack's own table
   * (its columns are the declared schema), so the files and the table cannot disagree; otherwise
   * parquetSchema as given.
   */
  String functionParquetSchema() {
    if (athena && outputFormat.equals("parquet")) {
      // Glue stores database and table names in lower case; the function's GetTable and the
      // grant's ARNs name them as stored.
      return new DeclaredSchema.GlueTable(
              glueDatabaseName.toLowerCase(java.util.Locale.ROOT),
              athenaTableName.toLowerCase(java.util.Locale.ROOT))
          .setting();
    }
    return parquetSchema.orElse("");
  }

  /** The Glue table the function reads its schema from, if any (it needs glue:GetTable). */
  Optional<DeclaredSchema.GlueTable> schemaTable() {
    return DeclaredSchema.glueTable(functionParquetSchema());
  }

  /**
   * {@code region=eu-west-1|us-east-1;tenant=acme|globex}: the values of record-variable columns
   * that Athena projects as {@code enum} instead of {@code injected}.
   */
  static Map<String, List<String>> partitionValues(Optional<String> raw) {
    Map<String, List<String>> values = new LinkedHashMap<>();
    if (raw.isEmpty()) {
      return values;
    }
    for (String entry : raw.get().split(";")) {
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new IllegalArgumentException(
            "athenaPartitionValues entry '"
                + entry
                + "' is not column=value|value (e.g. region=eu-west-1|us-east-1)");
      }
      values.put(
          entry.substring(0, eq).trim(),
          Arrays.stream(entry.substring(eq + 1).split("\\|")).map(String::trim).toList());
    }
    return values;
  }

  /**
   * Glue names: letters, digits and underscores. Case is kept, since template.yaml cannot lower it
   * and both must derive the same name; Glue stores names in lower case anyway.
   */
  static String sqlName(String raw) {
    return raw.replaceAll("[^A-Za-z0-9_]", "_");
  }

  private static void range(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + "=" + value + " is out of range; legal values: " + min + ".." + max);
    }
  }

  private static List<String> toStrings(List<?> list) {
    return list.stream().map(Object::toString).toList();
  }

  private static String sorted(Set<String> keys) {
    return String.join(", ", keys.stream().sorted().toList());
  }

  private record Reader(Function<String, Optional<String>> get, Map<String, Object> raw) {
    String string(String key, String fallback) {
      return get.apply(key).orElse(fallback);
    }

    Optional<String> arnless(String key) {
      return get.apply(key);
    }

    Optional<String> arn(String key) {
      Optional<String> value = get.apply(key);
      value.ifPresent(
          v -> {
            if (!ARN.matcher(v).matches()) {
              throw new IllegalArgumentException(
                  key
                      + "='"
                      + v
                      + "' is not an ARN"
                      + (key.endsWith("lusterArn") ? ", e.g. " + CLUSTER_ARN_EXAMPLE : ""));
            }
          });
      return value;
    }

    boolean bool(String key, boolean fallback) {
      return get.apply(key)
          .map(
              v ->
                  switch (v.toLowerCase(Locale.ROOT)) {
                    case "true" -> true;
                    case "false" -> false;
                    default ->
                        throw new IllegalArgumentException(
                            key + "='" + v + "' is not valid; legal values: true, false");
                  })
          .orElse(fallback);
    }

    long epochSeconds(String key, String v) {
      try {
        long seconds = Long.parseLong(v);
        if (seconds < 0) {
          throw new NumberFormatException();
        }
        return seconds;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            key + "='" + v + "' is not a Unix time in seconds (e.g. 1767225600)", e);
      }
    }

    int integer(String key, int fallback) {
      Optional<String> v = get.apply(key);
      if (v.isEmpty()) {
        return fallback;
      }
      try {
        return Integer.parseInt(v.get());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(key + "='" + v.get() + "' is not an integer", e);
      }
    }

    String choice(String key, String fallback, String... legal) {
      String v = get.apply(key).orElse(fallback);
      for (String l : legal) {
        if (l.equalsIgnoreCase(v)) {
          return l;
        }
      }
      throw new IllegalArgumentException(
          key + "='" + v + "' is not valid; legal values: " + String.join(", ", legal));
    }

    List<String> list(String key) {
      Object v = raw.get(key);
      if (v instanceof List<?> l) {
        return toStrings(l);
      }
      return get.apply(key)
          .map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()))
          .map(stream -> stream.toList())
          .orElse(List.of());
    }
  }
}
