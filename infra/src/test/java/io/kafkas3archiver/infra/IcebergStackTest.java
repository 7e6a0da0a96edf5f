package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.infra.Templates.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** outputFormat=iceberg: the Glue database, the grants, the maintenance schedule and the alarm. */
class IcebergStackTest {
  private static Template iceberg;
  private static Template plain;

  static Map<String, Object> icebergContext() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "iceberg");
    return c;
  }

  @BeforeAll
  static void synth() {
    iceberg = Template.fromStack(Fixtures.stack(icebergContext()));
    plain = Template.fromStack(Fixtures.stack(Fixtures.mskDefaults()));
  }

  @Test
  void shouldConfigureTheFunctionForTheGlueTable() {
    Map<String, String> env = Templates.environment(iceberg);
    assertThat(env)
        .containsEntry("OUTPUT_FORMAT", "iceberg")
        .containsEntry("ICEBERG_CATALOG", "glue")
        .containsEntry("ICEBERG_DATABASE", "s3_event_archive_prod")
        .containsEntry("ICEBERG_TABLE", "vehicle_telemetry")
        .containsEntry("ICEBERG_TARGET_FILE_MB", "128")
        .containsEntry("ICEBERG_SNAPSHOT_RETENTION_HOURS", "24")
        .containsEntry("ICEBERG_SNAPSHOTS_RETAINED", "10");
    assertThat(env.get("ICEBERG_WAREHOUSE")).startsWith("s3://").endsWith("/condense");
    iceberg.hasResourceProperties(
        "AWS::Lambda::Function", Map.of("MemorySize", Match.anyValue(), "Runtime", "java21"));
    Map<String, Object> fn =
        Templates.cast(iceberg.findResources("AWS::Lambda::Function").values().iterator().next());
    assertThat(((Number) Templates.cast(fn.get("Properties")).get("MemorySize")).intValue())
        .isGreaterThanOrEqualTo(1024);
    assertThat(Templates.environment(plain)).doesNotContainKeys("ICEBERG_DATABASE");
  }

  @Test
  void shouldCreateTheGlueDatabaseAndKeepItOnDelete() {
    iceberg.resourceCountIs("AWS::Glue::Database", 1);
    iceberg.hasResource(
        "AWS::Glue::Database",
        Map.of(
            "DeletionPolicy",
            "Retain",
            "Properties",
            Map.of("DatabaseInput", Match.objectLike(Map.of("Name", "s3_event_archive_prod")))));
    plain.resourceCountIs("AWS::Glue::Database", 0);

    Map<String, Object> existing = icebergContext();
    existing.put("createIcebergDatabase", false);
    existing.put("icebergDatabase", "analytics");
    Template t = Template.fromStack(Fixtures.stack(existing));
    t.resourceCountIs("AWS::Glue::Database", 0);
    assertThat(Templates.environment(t)).containsEntry("ICEBERG_DATABASE", "analytics");
    assertThat(Templates.resourcesFor(Templates.statements(t), "glue:UpdateTable"))
        .anyMatch(r -> r.endsWith(":table/analytics/vehicle_telemetry"));
  }

  @Test
  void shouldGrantGlueOnTheCatalogDatabaseAndTableOnly() {
    List<Statement> statements = Templates.statements(iceberg);
    for (String action :
        List.of("glue:GetDatabase", "glue:GetTable", "glue:CreateTable", "glue:UpdateTable")) {
      List<String> resources = Templates.resourcesFor(statements, action);
      assertThat(resources).as(action).hasSize(3);
      assertThat(resources)
          .as(action)
          .anyMatch(r -> r.endsWith(":catalog"))
          .anyMatch(r -> r.endsWith(":database/s3_event_archive_prod"))
          .anyMatch(r -> r.endsWith(":table/s3_event_archive_prod/vehicle_telemetry"))
          .noneMatch(r -> r.contains("*"));
    }
    assertThat(Templates.allActions(statements).stream().filter(a -> a.startsWith("glue:")))
        .containsExactlyInAnyOrder(
            "glue:GetDatabase", "glue:GetTable", "glue:CreateTable", "glue:UpdateTable");
    assertThat(Templates.allActions(Templates.statements(plain)))
        .noneMatch(a -> a.startsWith("glue:"));
  }

  @Test
  void shouldGrantReadWriteDeleteOnTheTableFolderOnly() {
    List<Statement> statements = Templates.statements(iceberg);
    String folder = "/condense/s3_event_archive_prod.db/vehicle_telemetry/*";
    assertThat(Templates.resourcesFor(statements, "s3:DeleteObject"))
        .containsExactlyInAnyOrder(
            "${ArchiveBucket.Arn}" + folder, "${ArchiveBucket.Arn}/condense/_preflight/*");
    assertThat(Templates.resourcesFor(statements, "s3:GetObject"))
        .contains("${ArchiveBucket.Arn}" + folder);
    assertThat(Templates.resourcesFor(statements, "s3:PutObject"))
        .contains("${ArchiveBucket.Arn}" + folder);
    assertThat(Templates.resourcesFor(statements, "s3:AbortMultipartUpload"))
        .containsExactly("${ArchiveBucket.Arn}" + folder);
    assertThat(
            statements.stream()
                .filter(s -> s.actions().contains("s3:ListBucket"))
                .map(s -> String.valueOf(s.condition())))
        .anyMatch(c -> c.contains("condense/s3_event_archive_prod.db/vehicle_telemetry/*"));
  }

  @Test
  void shouldGrantDecryptOnlyWithAKmsKey() {
    assertThat(Templates.allActions(Templates.statements(iceberg))).doesNotContain("kms:Decrypt");
    Map<String, Object> kms = icebergContext();
    kms.put("bucketEncryption", "kms");
    assertThat(
            Templates.resourcesFor(
                Templates.statements(Template.fromStack(Fixtures.stack(kms))), "kms:Decrypt"))
        .containsExactly("${ArchiveKey.Arn}");
  }

  @Test
  void shouldInvokeTheAliasWithMaintainOnTheSchedule() {
    iceberg.resourceCountIs("AWS::Events::Rule", 1);
    iceberg.hasResourceProperties(
        "AWS::Events::Rule",
        Map.of(
            "ScheduleExpression",
            "rate(6 hours)",
            "State",
            "ENABLED",
            "Targets",
            List.of(
                Match.objectLike(
                    Map.of(
                        "Arn",
                        Map.of("Ref", Match.stringLikeRegexp("LiveAlias.*")),
                        "Input",
                        "{\"action\":\"maintain\"}")))));
    iceberg.hasResourceProperties(
        "AWS::Lambda::Permission",
        Map.of(
            "Action",
            "lambda:InvokeFunction",
            "Principal",
            "events.amazonaws.com",
            "FunctionName",
            Map.of("Ref", Match.stringLikeRegexp("LiveAlias.*"))));
    plain.resourceCountIs("AWS::Events::Rule", 0);

    Map<String, Object> hourly = icebergContext();
    hourly.put("icebergMaintenanceRateHours", 1);
    Template.fromStack(Fixtures.stack(hourly))
        .hasResourceProperties("AWS::Events::Rule", Map.of("ScheduleExpression", "rate(1 hour)"));
  }

  @Test
  void shouldAlarmOnCommitFailuresFromTheLogLine() {
    iceberg.hasResourceProperties(
        "AWS::Logs::MetricFilter",
        Map.of(
            "FilterPattern",
            "{ $.errorType = \"CommitConflict\" || $.errorType = \"CatalogError\" }",
            "LogGroupName",
            Map.of("Ref", Match.stringLikeRegexp("FunctionLogs.*")),
            "MetricTransformations",
            List.of(
                Match.objectLike(
                    Map.of(
                        "MetricNamespace",
                        "KafkaS3Archiver",
                        "MetricName",
                        "CommitFailures",
                        "MetricValue",
                        "1",
                        "Dimensions",
                        List.of(Map.of("Key", "Title", "Value", "$.title")))))));
    iceberg.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of(
            "Namespace",
            "KafkaS3Archiver",
            "MetricName",
            "CommitFailures",
            "Dimensions",
            List.of(Map.of("Name", "Title", "Value", "S3_Event_Archive_Prod")),
            "Statistic",
            "Sum",
            "Threshold",
            1,
            "ComparisonOperator",
            "GreaterThanOrEqualToThreshold"));
    plain.resourceCountIs("AWS::Logs::MetricFilter", 0);
  }

  @Test
  void shouldDeployTheIcebergJarByDefault() {
    assertThat(ArchiverApp.defaultJar(ArchiverSettings.from(icebergContext())))
        .isEqualTo("../function/iceberg/target/kafka-s3-archiver-iceberg.jar");
    assertThat(ArchiverApp.defaultJar(ArchiverSettings.from(Fixtures.mskDefaults())))
        .isEqualTo("../function/target/kafka-s3-archiver.jar");
  }
}
