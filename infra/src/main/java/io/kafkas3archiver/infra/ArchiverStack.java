package io.kafkas3archiver.infra;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import io.kafkas3archiver.infra.ArchiverSettings.IcebergCatalog;
import io.kafkas3archiver.infra.ArchiverSettings.MskAuth;
import io.kafkas3archiver.infra.ArchiverSettings.OnFailure;
import io.kafkas3archiver.infra.ArchiverSettings.SourceType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.iam.Policy;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.kms.Key;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.Tracing;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.s3.BlockPublicAccess;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.s3.BucketEncryption;
import software.amazon.awscdk.services.s3.IBucket;
import software.amazon.awscdk.services.s3.LifecycleRule;
import software.amazon.awscdk.services.s3.ObjectLockRetention;
import software.amazon.awscdk.services.s3.ObjectOwnership;
import software.amazon.awscdk.services.s3.StorageClass;
import software.amazon.awscdk.services.s3.Transition;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.secretsmanager.SecretStringGenerator;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.sqs.QueuePolicy;
import software.constructs.Construct;
import software.constructs.IConstruct;

/**
 * The archiver: bucket (created or imported), least-privilege role, the function with SnapStart on
 * a published alias, the Kafka event source mapping on that alias, alarms, a dashboard and,
 * optionally, an Athena table. Everything is decided by {@link ArchiverSettings}.
 */
public final class ArchiverStack extends Stack {
  static final String HANDLER = "io.kafkas3archiver.ArchiverHandler::handleRequest";
  static final String ALIAS = "live";

  /** template.yaml's StorageClassWarning output says the same. */
  static final String STORAGE_CLASS_WARNING =
      "GLACIER or DEEP_ARCHIVE in the lifecycle - once moved, archived objects cannot be read"
          + " until restored one by one - Athena, the restore and redrive commands, and the"
          + " function's claim reads on a redelivery fail for them.";

  private final IBucket bucket;
  private final Function function;
  private final Alias alias;
  private final CfnEventSourceMapping mapping;
  private final Role role;
  private final Optional<String> tableBucketArn;
  private final Optional<Queue> failureQueue;
  private final Dashboard dashboard;

  public ArchiverStack(
      Construct scope, String id, StackProps props, ArchiverSettings s, String jarPath) {
    super(scope, id, props);
    if (!s.droppedSecrets().isEmpty()) {
      Annotations.of(this)
          .addWarningV2(
              "kafka-s3-archiver:secrets-dropped",
              "The configuration holds "
                  + String.join(", ", s.droppedSecrets())
                  + ": secret values never enter the template. Put them into the credentials"
                  + " secret after deploy (README, Deploy).");
    }

    Optional<IKey> key = encryptionKey(s);
    this.bucket = s.createBucket() ? createBucket(s, key) : importBucket(s);
    String bucketRegion = s.bucketRegion().orElse(Aws.REGION);

    Optional<String> credentialsSecretArn = s.credentialsSecretArn();
    if (credentialsSecretArn.isEmpty() && s.createCredentialsSecret()) {
      credentialsSecretArn = Optional.of(credentialsSecret(s).getSecretArn());
    }

    LogGroup logGroup =
        LogGroup.Builder.create(this, "FunctionLogs")
            .retention(retention(s.logRetentionDays()))
            .removalPolicy(RemovalPolicy.RETAIN)
            .build();

    this.role =
        Role.Builder.create(this, "FunctionRole")
            .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
            .description("kafka-s3-archiver " + s.title() + ": writes the archive, nothing else")
            .build();
    // Logging without AWSLambdaBasicExecutionRole: only this function's log group.
    role.addToPolicy(
        AccessPolicy.allow(
            "WriteOwnLogs",
            List.of("logs:CreateLogStream", "logs:PutLogEvents"),
            List.of(logGroup.getLogGroupArn())));

    // icebergCatalog=s3tables: the table bucket comes first, since grants and environment name it.
    this.tableBucketArn =
        s.iceberg()
            .flatMap(
                i ->
                    i.catalog() instanceof IcebergCatalog.S3Tables c
                        ? Optional.of(S3TablesCatalog.create(this, s, i, c))
                        : Optional.empty());

    Policy archivePolicy =
        Policy.Builder.create(this, "ArchiveAccess")
            .statements(
                AccessPolicy.statements(
                    bucket.getBucketArn(),
                    s.keyPrefix(),
                    s.inputTopic(),
                    credentialsSecretArn,
                    s.roleArn(),
                    key.map(IKey::getKeyArn).or(s::kmsKeyArn),
                    bucketRegion))
            .build();
    s.iceberg()
        .ifPresent(
            i ->
                tableBucketArn
                    .map(S3TablesCatalog::statements)
                    .orElseGet(
                        () ->
                            IcebergTable.statements(
                                s,
                                i,
                                bucket.getBucketArn(),
                                key.map(IKey::getKeyArn).or(s::kmsKeyArn)))
                    .forEach(archivePolicy::addStatements));
    // PARQUET_SCHEMA=glue:<database>.<table>: the function reads the table's columns (GetTable
    // needs the catalog, database and table ARNs); that table only.
    s.schemaTable()
        .ifPresent(
            t -> {
              String glue = "arn:" + Aws.PARTITION + ":glue:" + Aws.REGION + ":" + Aws.ACCOUNT_ID;
              archivePolicy.addStatements(
                  AccessPolicy.allow(
                      "ReadDeclaredSchemaTable",
                      List.of("glue:GetTable"),
                      List.of(
                          glue + ":catalog",
                          glue + ":database/" + t.database(),
                          glue + ":table/" + t.database() + "/" + t.table())));
            });
    archivePolicy.attachToRole(role);
    allowWildcardResources(
        archivePolicy,
        List.of(
            objectsUnder(s.keyPrefix() + "/" + s.inputTopic()),
            objectsUnder(s.keyPrefix() + "/_errors/" + s.inputTopic()),
            objectsUnder(s.keyPrefix() + "/_preflight"),
            objectsUnder(
                s.iceberg()
                    .filter(i -> tableBucketArn.isEmpty())
                    .map(i -> IcebergTable.tableFolder(s, i))
                    .orElse(s.keyPrefix() + "/_preflight"))),
        "Object ARNs end in /* by necessity: the function writes new keys under"
            + " <prefix>/<topic>/, <prefix>/_errors/<topic>/ and <prefix>/_preflight/;"
            + " each wildcard is confined to one of those prefixes. outputFormat=iceberg"
            + " adds the table's folder <prefix>/<database>.db/<table>/, whose data and"
            + " metadata file names Iceberg generates.");
    tableBucketArn.ifPresent(
        arn ->
            allowWildcardResources(
                archivePolicy,
                List.of(RegexAppliesTo.builder().regex("/^Resource::.+\\/table\\/\\*$/").build()),
                "icebergCatalog=s3tables: table ARNs end in the table's id, which S3"
                    + " Tables assigns when the function creates the table, so the"
                    + " grant names <table bucket ARN>/table/*: the tables of the"
                    + " archive's own table bucket, nothing else."));

    this.function =
        Function.Builder.create(this, "Function")
            .description(
                "Archives Kafka batches of " + s.inputTopic() + " to S3 (" + s.title() + ")")
            .runtime(Runtime.JAVA_21)
            .handler(HANDLER)
            .code(Code.fromAsset(jarPath))
            .architecture(
                s.architecture().equals("arm64") ? Architecture.ARM_64 : Architecture.X86_64)
            .memorySize(s.memorySize())
            .timeout(Duration.seconds(s.timeoutSeconds()))
            .role(role)
            .logGroup(logGroup)
            .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
            .environment(environment(s, credentialsSecretArn, key))
            // Off by default: X-Ray costs per trace and the function adds no X-Ray SDK, so a trace
            // shows the invocation and its init/restore, not the single S3 calls (README, Deploy).
            .tracing(s.tracing() ? Tracing.ACTIVE : null)
            .build();
    function.getNode().addDependency(archivePolicy);
    checkovSkip(
        function,
        "CKV_AWS_116",
        "A Kafka mapping invokes synchronously; a function DLQ serves asynchronous invocations"
            + " only. Failed batches go to the mapping's on-failure destination.",
        "CKV_AWS_117",
        "The function calls only S3, STS and Secrets Manager. The mapping's pollers, not the"
            + " function, run in the brokers' VPC; a VPC function would need a NAT gateway or"
            + " endpoints for nothing.",
        "CKV_AWS_115",
        "The mapping's pollers bound concurrency (MaximumPollers); reserved concurrency would"
            + " throttle the mapping and stall partitions.",
        "CKV_AWS_173",
        "The environment holds names and ARNs only; secret values live in Secrets Manager, never"
            + " in the environment.");
    checkovSkip(
        logGroup,
        "CKV_AWS_158",
        "The logs carry counts, keys and error types, no payload bytes at the default level;"
            + " CloudWatch Logs encrypts them at rest with service keys.");
    if (s.tracing()) {
      NagSuppressions.addResourceSuppressions(
          role,
          List.of(
              NagPackSuppression.builder()
                  .id("AwsSolutions-IAM5")
                  .appliesTo(List.of("Resource::*"))
                  .reason(
                      "Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords, which"
                          + " CDK adds for tracing=true, support no resource-level permissions"
                          + " (only Resource *).")
                  .build()),
          true);
    }
    NagSuppressions.addResourceSuppressions(
        function,
        List.of(
            suppress(
                "AwsSolutions-L1",
                "The handler is compiled for and tested on java21 (maven.compiler.release 21, the"
                    + " runtime fixed by the product contract); moving to a newer runtime is a"
                    + " deliberate upgrade, not a deploy-time default.")));

    Annotations.of(function)
        .acknowledgeWarning(
            "@aws-cdk/aws-lambda:snapStartRequirePublish",
            "The alias below publishes a version on every code or configuration change.");
    this.alias =
        Alias.Builder.create(this, "LiveAlias")
            .aliasName(ALIAS)
            .version(function.getCurrentVersion())
            .build();

    this.failureQueue =
        s.provisionedPollers() && s.onFailure() == OnFailure.SQS
            ? Optional.of(createFailureQueue())
            : Optional.empty();
    this.mapping = KafkaSource.mapping(this, s, alias, role, failureQueue);

    this.dashboard = Monitoring.create(this, s, function, alias, mapping, failureQueue);
    s.iceberg().ifPresent(i -> IcebergTable.create(this, s, i, alias, logGroup));
    if (s.athena()) {
      AthenaTable.create(this, s, bucket.getBucketName());
    }

    CfnOutput.Builder.create(this, "BucketName").value(bucket.getBucketName()).build();
    CfnOutput.Builder.create(this, "FunctionAliasArn").value(alias.getFunctionArn()).build();
    credentialsSecretArn.ifPresent(
        arn -> CfnOutput.Builder.create(this, "CredentialsSecretArn").value(arn).build());
    CfnOutput.Builder.create(this, "DashboardName")
        .value(Monitoring.dashboardName(s.title()))
        .build();
    // The UUID is what `aws lambda get-event-source-mapping` and update/disable calls take.
    CfnOutput.Builder.create(this, "MappingUuid").value(mapping.getRef()).build();
    failureQueue.ifPresent(
        q -> {
          CfnOutput.Builder.create(this, "OnFailureQueueUrl").value(q.getQueueUrl()).build();
          CfnOutput.Builder.create(this, "OnFailureQueueArn").value(q.getQueueArn()).build();
        });
  }

  private Optional<IKey> encryptionKey(ArchiverSettings s) {
    if (s.kmsKeyArn().isPresent()) {
      return Optional.of(Key.fromKeyArn(this, "ArchiveKey", s.kmsKeyArn().get()));
    }
    if (s.createBucket() && s.bucketEncryption().equals("kms")) {
      return Optional.of(
          Key.Builder.create(this, "ArchiveKey")
              .description("kafka-s3-archiver " + s.title() + " archive objects")
              .enableKeyRotation(true)
              .removalPolicy(RemovalPolicy.RETAIN)
              .build());
    }
    return Optional.empty();
  }

  private IBucket createBucket(ArchiverSettings s, Optional<IKey> key) {
    List<LifecycleRule> rules = new ArrayList<>();
    // Bucket-wide housekeeping only: nothing here moves or deletes a current object.
    rules.add(
        LifecycleRule.builder()
            .id("Housekeeping")
            .enabled(true)
            .abortIncompleteMultipartUploadAfter(Duration.days(7))
            .noncurrentVersionExpiration(Duration.days(s.noncurrentVersionExpirationDays()))
            // A delete marker whose versions have all expired is clutter that slows listings.
            .expiredObjectDeleteMarker(true)
            .build());
    // Tiering and expiry are confined to the archive's own folders: never the Iceberg table's
    // data and metadata, the restore's manifests or anything else in the bucket.
    Map<String, String> folders = new LinkedHashMap<>();
    folders.put("Archive", s.keyPrefix() + "/" + s.inputTopic() + "/");
    folders.put("Errors", s.keyPrefix() + "/_errors/" + s.inputTopic() + "/");
    folders.forEach(
        (name, prefix) -> {
          if (s.transitionDays() > 0) {
            List<Transition> tiers = new ArrayList<>();
            tiers.add(
                Transition.builder()
                    .storageClass(storageClass(s.transitionStorageClass()))
                    .transitionAfter(Duration.days(s.transitionDays()))
                    .build());
            if (s.secondTransitionDays() > 0) {
              tiers.add(
                  Transition.builder()
                      .storageClass(storageClass(s.secondTransitionStorageClass()))
                      .transitionAfter(Duration.days(s.secondTransitionDays()))
                      .build());
            }
            rules.add(
                LifecycleRule.builder()
                    .id(name + "Tiering")
                    .enabled(true)
                    .prefix(prefix)
                    // S3's own default is 128 KB: smaller objects cost more in IA and Glacier
                    // classes (billed as 128 KB) than they save. 0 tiers every object.
                    .objectSizeGreaterThan(s.transitionMinObjectSize())
                    .transitions(tiers)
                    .build());
          }
          if (s.expirationDays() > 0) {
            rules.add(
                LifecycleRule.builder()
                    .id(name + "Expiration")
                    .enabled(true)
                    .prefix(prefix)
                    .expiration(Duration.days(s.expirationDays()))
                    .build());
          }
        });
    if (!s.archiveClassesInUse().isEmpty()) {
      Annotations.of(this)
          .addWarningV2(
              "kafka-s3-archiver:archive-storage-class",
              "allowArchiveStorageClasses=true with "
                  + String.join(", ", s.archiveClassesInUse())
                  + ": "
                  + ArchiverSettings.ARCHIVE_CLASS_LOSS);
      CfnOutput.Builder.create(this, "StorageClassWarning")
          .description("What a restore-needing storage class stops")
          .value(STORAGE_CLASS_WARNING)
          .build();
    }

    Bucket.Builder b =
        Bucket.Builder.create(this, "ArchiveBucket")
            .versioned(true)
            .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
            .enforceSsl(true)
            .objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED)
            .lifecycleRules(rules)
            .removalPolicy(RemovalPolicy.RETAIN);
    s.bucketName().ifPresent(b::bucketName);
    // Write once, read many (objectLockMode/objectLockDays). Object Lock needs versioning, which
    // is on above; the bucket is retained with the stack either way, and a locked one could not
    // be emptied before its versions' retention ends (docs/deploy.md, Object Lock).
    s.objectLock()
        .ifPresent(
            lock ->
                b.objectLockEnabled(true)
                    .objectLockDefaultRetention(
                        lock.mode().equals("COMPLIANCE")
                            ? ObjectLockRetention.compliance(Duration.days(lock.days()))
                            : ObjectLockRetention.governance(Duration.days(lock.days()))));
    if (key.isPresent()) {
      b.encryption(BucketEncryption.KMS).encryptionKey(key.get()).bucketKeyEnabled(true);
    } else {
      b.encryption(BucketEncryption.S3_MANAGED);
    }
    s.serverAccessLogsBucketName()
        .ifPresent(
            logs ->
                b.serverAccessLogsBucket(Bucket.fromBucketName(this, "AccessLogsBucket", logs))
                    .serverAccessLogsPrefix("s3-access/" + s.title() + "/"));
    Bucket created = b.build();
    // The bucket outlives the stack; its TLS-only policy must too, or the kept bucket would
    // accept plaintext requests after a teardown.
    created.getPolicy().applyRemovalPolicy(RemovalPolicy.RETAIN);
    if (s.serverAccessLogsBucketName().isEmpty()) {
      checkovSkip(
          created,
          "CKV_AWS_18",
          "Server access logs go to a bucket the user names (serverAccessLogsBucketName); none"
              + " was configured. Access is audited by CloudTrail data events where required.");
      NagSuppressions.addResourceSuppressions(
          created,
          List.of(
              suppress(
                  "AwsSolutions-S1",
                  "Server access logs go to a bucket the user names (serverAccessLogsBucketName);"
                      + " none was configured. Access is audited by CloudTrail data events"
                      + " where required.")));
    }
    return created;
  }

  private IBucket importBucket(ArchiverSettings s) {
    return Bucket.fromBucketName(this, "ArchiveBucket", s.bucketName().orElseThrow());
  }

  private Secret credentialsSecret(ArchiverSettings s) {
    // The template holds a generator, not a value: the user overwrites it with the real keys.
    Secret secret =
        Secret.Builder.create(this, "CredentialsSecret")
            .description(
                "kafka-s3-archiver "
                    + s.title()
                    + ": static S3 keys as {\"accessKey\": ..., \"secretKey\": ...}; set with"
                    + " aws secretsmanager put-secret-value")
            .generateSecretString(
                SecretStringGenerator.builder()
                    .secretStringTemplate("{\"accessKey\":\"REPLACE_ME\"}")
                    .generateStringKey("secretKey")
                    .build())
            .removalPolicy(RemovalPolicy.RETAIN)
            .build();
    checkovSkip(
        secret,
        "CKV_AWS_149",
        "The default aws/secretsmanager key on purpose: a customer managed key would need a"
            + " kms:Decrypt grant the function otherwise never has.");
    NagSuppressions.addResourceSuppressions(
        secret,
        List.of(
            suppress(
                "AwsSolutions-SMG4",
                "The secret holds access keys of another principal or an S3-compatible store;"
                    + " they are rotated where they are issued, then put here by the user.")));
    return secret;
  }

  private Queue createFailureQueue() {
    Queue queue =
        Queue.Builder.create(this, "OnFailureQueue")
            .encryption(QueueEncryption.SQS_MANAGED)
            .enforceSsl(true)
            .retentionPeriod(Duration.days(14))
            // It holds the offsets of batches the mapping gave up on: the only record of what to
            // replay. Deleting the stack must not delete it (README, Deploy: teardown).
            .removalPolicy(RemovalPolicy.RETAIN)
            .build();
    // Kept with the queue: a retained queue without its TLS-only policy would accept plaintext.
    // (enforceSsl adds it as the queue's child "Policy"; the Java binding has no getter for it.)
    ((QueuePolicy) queue.getNode().findChild("Policy")).applyRemovalPolicy(RemovalPolicy.RETAIN);
    checkovSkip(
        queue,
        "CKV_AWS_27",
        "False positive: SqsManagedSseEnabled is true (SSE-SQS); checkov recognises only"
            + " KmsMasterKeyId.");
    NagSuppressions.addResourceSuppressions(
        queue,
        List.of(
            suppress(
                "AwsSolutions-SQS3",
                "This queue is itself the dead-letter destination of the event source mapping;"
                    + " a dead-letter queue of its own would have no consumer.")));
    return queue;
  }

  private Map<String, String> environment(
      ArchiverSettings s, Optional<String> credentialsSecretArn, Optional<IKey> key) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("BUCKET_NAME", bucket.getBucketName());
    env.put("BUCKET_REGION", s.bucketRegion().orElse(Aws.REGION));
    env.put("TITLE", s.title());
    env.put("INPUT_TOPIC", s.inputTopic());
    env.put("OUTPUT_FORMAT", s.outputFormat());
    env.put("COMPRESSION", s.compression());
    env.put("KEY_PREFIX", s.keyPrefix());
    // Blank means unset to the function (DESIGN §2), so every name is always present.
    env.put("KEY_TEMPLATE", s.keyTemplate().orElse(""));
    env.put("PARTITION_TIME", s.partitionTime());
    env.put("TIME_FIELD", s.timeField().orElse(""));
    env.put("TIME_FORMAT", s.timeFormat().orElse(""));
    env.put("MAX_FOLDERS_PER_PARTITION", Integer.toString(s.maxFoldersPerPartition()));
    env.put("TIME_ZONE", s.timeZone());
    env.put("INCLUDE_KAFKA_METADATA", Boolean.toString(s.includeKafkaMetadata()));
    env.put("CREDENTIALS_SECRET_ARN", credentialsSecretArn.orElse(""));
    env.put("ROLE_ARN", s.roleArn().orElse(""));
    env.put("EXTERNAL_ID", s.externalId().orElse(""));
    env.put("SSE", s.sse().orElse(""));
    env.put(
        "KMS_KEY_ID",
        s.sse().filter("aws:kms"::equals).flatMap(x -> key.map(IKey::getKeyArn)).orElse(""));
    // The SDK reads AWS_ENDPOINT_URL_S3 itself; an empty value would be an invalid endpoint.
    s.endpointUrlS3().ifPresent(url -> env.put("AWS_ENDPOINT_URL_S3", url));
    env.put("S3_FORCE_PATH_STYLE", Boolean.toString(s.s3ForcePathStyle()));
    env.put("EXPECTED_BUCKET_OWNER", s.expectedBucketOwner().orElse(""));
    env.put("PARQUET_SCHEMA", s.functionParquetSchema());
    env.put("SCHEMA_REGISTRY_URI", s.schemaRegistryUri().orElse(""));
    // The function sends basic auth only; with a client certificate it cannot reach the registry.
    env.put(
        "SCHEMA_REGISTRY_SECRET_ARN",
        s.schemaRegistryAuth().equals("basic") ? s.schemaRegistrySecretArn().orElse("") : "");
    env.put("REPORT_BATCH_ITEM_FAILURES", Boolean.toString(s.mappingReportsItemFailures()));
    env.put("LOG_LEVEL", s.logLevel());
    s.iceberg()
        .ifPresent(
            i ->
                env.putAll(IcebergTable.environment(s, i, bucket.getBucketName(), tableBucketArn)));
    return env;
  }

  private static StorageClass storageClass(String name) {
    return switch (name) {
      case "STANDARD_IA" -> StorageClass.INFREQUENT_ACCESS;
      case "INTELLIGENT_TIERING" -> StorageClass.INTELLIGENT_TIERING;
      case "GLACIER_IR" -> StorageClass.GLACIER_INSTANT_RETRIEVAL;
      case "GLACIER" -> StorageClass.GLACIER;
      case "DEEP_ARCHIVE" -> StorageClass.DEEP_ARCHIVE;
      default -> throw new IllegalArgumentException("transitionStorageClass=" + name);
    };
  }

  private static RetentionDays retention(int days) {
    return switch (days) {
      case 1 -> RetentionDays.ONE_DAY;
      case 3 -> RetentionDays.THREE_DAYS;
      case 5 -> RetentionDays.FIVE_DAYS;
      case 7 -> RetentionDays.ONE_WEEK;
      case 14 -> RetentionDays.TWO_WEEKS;
      case 30 -> RetentionDays.ONE_MONTH;
      case 60 -> RetentionDays.TWO_MONTHS;
      case 90 -> RetentionDays.THREE_MONTHS;
      case 120 -> RetentionDays.FOUR_MONTHS;
      case 150 -> RetentionDays.FIVE_MONTHS;
      case 180 -> RetentionDays.SIX_MONTHS;
      case 365 -> RetentionDays.ONE_YEAR;
      case 400 -> RetentionDays.THIRTEEN_MONTHS;
      case 545 -> RetentionDays.EIGHTEEN_MONTHS;
      case 731 -> RetentionDays.TWO_YEARS;
      case 1827 -> RetentionDays.FIVE_YEARS;
      case 3653 -> RetentionDays.TEN_YEARS;
      default ->
          throw new IllegalArgumentException(
              "logRetentionDays="
                  + days
                  + " is not a CloudWatch Logs retention; legal values: 1, 3, 5, 7, 14, 30, 60,"
                  + " 90, 120, 150, 180, 365, 400, 545, 731, 1827, 3653");
    };
  }

  /** Allows cdk-nag's AwsSolutions-IAM5 (wildcard resources) on these findings only, with why. */
  private static void allowWildcardResources(
      IConstruct construct, List<RegexAppliesTo> findings, String reason) {
    NagSuppressions.addResourceSuppressions(
        construct,
        List.of(
            NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .appliesTo(findings)
                .reason(reason)
                .build()));
  }

  /** cdk-nag's finding for {@code <bucket ARN>/<folder>/*}, whatever token the bucket ARN is. */
  private static RegexAppliesTo objectsUnder(String folder) {
    String escaped = folder.replaceAll("[.*+?^${}()|\\[\\]\\\\/]", "\\\\$0");
    return RegexAppliesTo.builder().regex("/^Resource::.+\\/" + escaped + "\\/\\*$/").build();
  }

  /**
   * checkov's inline suppressions (Metadata checkov.skip), the same ids and reasons as in
   * template.yaml.
   */
  static void checkovSkip(IConstruct construct, String... idsAndReasons) {
    List<Map<String, String>> skips = new ArrayList<>();
    for (int i = 0; i < idsAndReasons.length; i += 2) {
      skips.add(Map.of("id", idsAndReasons[i], "comment", idsAndReasons[i + 1]));
    }
    ((CfnResource) construct.getNode().getDefaultChild())
        .addMetadata("checkov", Map.of("skip", skips));
  }

  static NagPackSuppression suppress(String id, String reason) {
    return NagPackSuppression.builder().id(id).reason(reason).build();
  }

  public IBucket bucket() {
    return bucket;
  }

  public Function function() {
    return function;
  }

  public Alias alias() {
    return alias;
  }

  public CfnEventSourceMapping mapping() {
    return mapping;
  }

  /** The mapping's on-failure queue (provisioned mode with onFailure=sqs). */
  public Optional<Queue> failureQueue() {
    return failureQueue;
  }

  public Role role() {
    return role;
  }

  /** The stack's dashboard (the scheduled audit adds a row to it). */
  public Dashboard dashboard() {
    return dashboard;
  }

  static boolean isMsk(ArchiverSettings s) {
    return s.sourceType() == SourceType.MSK;
  }

  static boolean isMskIam(ArchiverSettings s) {
    return isMsk(s) && s.mskAuth() == MskAuth.IAM;
  }
}
