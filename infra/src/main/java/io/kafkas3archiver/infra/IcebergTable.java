package io.kafkas3archiver.infra;

import io.kafkas3archiver.infra.ArchiverSettings.Iceberg;
import io.kafkas3archiver.infra.ArchiverSettings.IcebergCatalog;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.events.Rule;
import software.amazon.awscdk.services.events.RuleTargetInput;
import software.amazon.awscdk.services.events.Schedule;
import software.amazon.awscdk.services.events.targets.LambdaFunction;
import software.amazon.awscdk.services.glue.CfnDatabase;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.logs.FilterPattern;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.MetricFilter;
import software.amazon.awscdk.services.sns.Topic;
import software.constructs.Construct;

/**
 * outputFormat=iceberg (docs/iceberg.md): the Glue database, the maintenance schedule and the
 * commit-failure alarm; {@link #statements} are the function's Glue catalog and table-folder grants
 * ({@link S3TablesCatalog} holds the icebergCatalog=s3tables counterparts). The table itself is
 * created by the function on its first batch (partitioned by hour(time), its schema evolving), so
 * the stack never fights the function over the table's schema.
 */
final class IcebergTable {
  /** A log-derived metric: the function emits no EMF metric when a commit fails for good. */
  static final String COMMIT_FAILURES = "CommitFailures";

  /** The failure types of a batch whose table commit failed (ErrorType labels). */
  static final List<String> COMMIT_FAILURE_TYPES = List.of("CommitConflict", "CatalogError");

  private IcebergTable() {}

  /** The table's files: where GlueCatalog puts a table of a database without a LocationUri. */
  static String tableFolder(ArchiverSettings s, Iceberg i) {
    return s.keyPrefix() + "/" + i.database() + ".db/" + i.table();
  }

  static void create(
      Construct scope, ArchiverSettings s, Iceberg i, Alias alias, LogGroup logGroup) {
    // With S3 Tables, S3TablesCatalog creates the namespace, and S3 Tables maintains the table.
    if (i.createDatabase() && i.catalog() instanceof IcebergCatalog.Glue) {
      CfnDatabase database =
          CfnDatabase.Builder.create(scope, "IcebergGlueDatabase")
              .catalogId(Aws.ACCOUNT_ID)
              .databaseInput(
                  CfnDatabase.DatabaseInputProperty.builder()
                      .name(i.database())
                      .description(
                          "kafka-s3-archiver " + s.title() + ": Iceberg table of " + s.inputTopic())
                      .build())
              .build();
      // The table in it is the archive; deleting the stack must not drop it from the catalog.
      database.applyRemovalPolicy(RemovalPolicy.RETAIN);
    }

    if (i.maintenanceScheduled()) {
      maintenanceSchedule(scope, s, i, alias);
    }

    MetricFilter.Builder.create(scope, "IcebergCommitFailuresFilter")
        .logGroup(logGroup)
        .filterPattern(FilterPattern.literal(commitFailurePattern()))
        .metricNamespace(ArchiverMetrics.NAMESPACE)
        .metricName(COMMIT_FAILURES)
        .metricValue("1")
        .dimensions(Map.of(ArchiverMetrics.TITLE_DIMENSION, "$.title"))
        .unit(software.amazon.awscdk.services.cloudwatch.Unit.COUNT)
        .build();
    Alarm alarm =
        Alarm.Builder.create(scope, "IcebergCommitFailuresAlarm")
            .metric(
                Metric.Builder.create()
                    .namespace(ArchiverMetrics.NAMESPACE)
                    .metricName(COMMIT_FAILURES)
                    .dimensionsMap(Map.of(ArchiverMetrics.TITLE_DIMENSION, s.title()))
                    .statistic("Sum")
                    .period(Monitoring.PERIOD)
                    .build())
            .threshold(1)
            .evaluationPeriods(1)
            .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
            .treatMissingData(TreatMissingData.NOT_BREACHING)
            .alarmDescription(
                "A batch's Iceberg commit failed (CommitConflict: other writers kept winning;"
                    + " CatalogError: the catalog refused the call); the batch is redelivered and"
                    + " skips what landed ("
                    + s.title()
                    + ")")
            .build();
    s.alarmTopicArn()
        .ifPresent(
            arn -> {
              SnsAction action = new SnsAction(Topic.fromTopicArn(scope, "IcebergAlarmTopic", arn));
              alarm.addAlarmAction(action);
              alarm.addOkAction(action);
            });
  }

  private static void maintenanceSchedule(
      Construct scope, ArchiverSettings s, Iceberg i, Alias alias) {
    Rule.Builder.create(scope, "IcebergMaintenanceSchedule")
        .description(
            "kafka-s3-archiver "
                + s.title()
                + ": compacts and expires the Iceberg table every "
                + i.maintenanceRateHours()
                + " h")
        .schedule(Schedule.rate(Duration.hours(i.maintenanceRateHours())))
        .targets(
            List.of(
                LambdaFunction.Builder.create(alias)
                    // The function's {"action":"maintain"} (DESIGN §9). fromObject: fromText
                    // would send a JSON string, not the object.
                    .event(RuleTargetInput.fromObject(Map.of("action", "maintain")))
                    // A missed run is harmless: the next one compacts what this one would have.
                    .retryAttempts(0)
                    .build()))
        .build();
  }

  /** The log line of a failed invocation names the first failure's type in errorType. */
  static String commitFailurePattern() {
    return "{ "
        + String.join(
            " || ", COMMIT_FAILURE_TYPES.stream().map(t -> "$.errorType = \"" + t + "\"").toList())
        + " }";
  }

  /**
   * What the iceberg jar calls beyond the plain archiver's grants: Glue on its one database and
   * table (GetDatabase when it resolves the table's location, CreateTable on the first batch,
   * UpdateTable for each commit), and S3 on the table's folder only (data and metadata files are
   * written, read back by the commit and by compaction, and deleted by snapshot expiry).
   */
  static List<PolicyStatement> statements(
      ArchiverSettings s, Iceberg i, String bucketArn, Optional<String> kmsKeyArn) {
    String glue = "arn:" + Aws.PARTITION + ":glue:" + Aws.REGION + ":" + Aws.ACCOUNT_ID;
    String folder = tableFolder(s, i);
    List<PolicyStatement> statements = new java.util.ArrayList<>();
    statements.add(
        AccessPolicy.allow(
            "IcebergGlueTable",
            List.of("glue:GetDatabase", "glue:GetTable", "glue:CreateTable", "glue:UpdateTable"),
            List.of(
                glue + ":catalog",
                glue + ":database/" + i.database(),
                glue + ":table/" + i.database() + "/" + i.table())));
    statements.add(
        AccessPolicy.allow(
            "IcebergTableFiles",
            List.of("s3:PutObject", "s3:GetObject", "s3:DeleteObject", "s3:AbortMultipartUpload"),
            List.of(bucketArn + "/" + folder + "/*")));
    statements.add(
        PolicyStatement.Builder.create()
            .sid("IcebergListTableFolder")
            .effect(Effect.ALLOW)
            .actions(List.of("s3:ListBucket"))
            .resources(List.of(bucketArn))
            .conditions(Map.of("StringLike", Map.of("s3:prefix", List.of(folder + "/*"))))
            .build());
    // Compaction reads the table's data files back, and large files go up in parts: both need
    // Decrypt as well as GenerateDataKey on a KMS-encrypted bucket.
    kmsKeyArn.ifPresent(
        arn ->
            statements.add(
                PolicyStatement.Builder.create()
                    .sid("IcebergReadEncryptedFiles")
                    .effect(Effect.ALLOW)
                    .actions(List.of("kms:Decrypt"))
                    .resources(List.of(arn))
                    .conditions(
                        Map.of(
                            "StringEquals",
                            Map.of(
                                "kms:ViaService",
                                "s3."
                                    + s.bucketRegion().orElse(Aws.REGION)
                                    + "."
                                    + Aws.URL_SUFFIX)))
                    .build()));
    return statements;
  }

  /**
   * The function's ICEBERG_* variables.
   *
   * @param tableBucketArn the S3 Tables table bucket (icebergCatalog=s3tables), else empty
   */
  static Map<String, String> environment(
      ArchiverSettings s, Iceberg i, String bucketName, Optional<String> tableBucketArn) {
    Map<String, String> env = new java.util.LinkedHashMap<>();
    if (tableBucketArn.isPresent()) {
      env.putAll(S3TablesCatalog.environment(tableBucketArn.get()));
    } else {
      env.put("ICEBERG_CATALOG", "glue");
      // Set, not defaulted, so the grants above and the table's location cannot drift apart.
      env.put("ICEBERG_WAREHOUSE", "s3://" + bucketName + "/" + s.keyPrefix());
    }
    env.put("ICEBERG_DATABASE", i.database());
    env.put("ICEBERG_TABLE", i.table());
    env.put("ICEBERG_TARGET_FILE_MB", Integer.toString(i.targetFileMb()));
    env.put("ICEBERG_SNAPSHOT_RETENTION_HOURS", Integer.toString(i.snapshotRetentionHours()));
    env.put("ICEBERG_SNAPSHOTS_RETAINED", Integer.toString(i.snapshotsRetained()));
    return env;
  }
}
