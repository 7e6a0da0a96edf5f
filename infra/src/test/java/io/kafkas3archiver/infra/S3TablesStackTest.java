package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.infra.Templates.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * outputFormat=iceberg with icebergCatalog=s3tables: the table bucket and namespace, the REST
 * catalog's environment, the s3tables grants and no Glue, no table folder and no schedule.
 */
class S3TablesStackTest {
  static final String EXISTING_ARN = "arn:aws:s3tables:us-east-1:123456789012:bucket/acme-tables";
  static final String CREATED_ARN = "${IcebergTableBucket.TableBucketARN}";

  private static Template s3tables;

  static Map<String, Object> s3tablesContext() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "iceberg");
    c.put("icebergCatalog", "s3tables");
    return c;
  }

  @BeforeAll
  static void synth() {
    s3tables = Template.fromStack(Fixtures.stack(s3tablesContext()));
  }

  @Test
  void shouldPointTheFunctionAtTheS3TablesRestEndpointWithSigV4() {
    assertThat(Templates.environment(s3tables))
        .containsEntry("OUTPUT_FORMAT", "iceberg")
        .containsEntry("ICEBERG_CATALOG", "rest")
        .containsEntry(
            "ICEBERG_REST_URI", "https://s3tables.${AWS::Region}.${AWS::URLSuffix}/iceberg")
        .containsEntry("ICEBERG_WAREHOUSE", CREATED_ARN)
        .containsEntry("ICEBERG_SIGNING_NAME", "s3tables")
        .containsEntry("ICEBERG_DATABASE", "s3_event_archive_prod")
        .containsEntry("ICEBERG_TABLE", "vehicle_telemetry")
        // The signing region is BUCKET_REGION: the stack's, since region is refused here.
        .containsEntry("BUCKET_REGION", "${AWS::Region}");
  }

  @Test
  void shouldCreateTheTableBucketAndNamespaceAndKeepThemOnDelete() {
    s3tables.resourceCountIs("AWS::S3Tables::TableBucket", 1);
    s3tables.hasResource(
        "AWS::S3Tables::TableBucket",
        Map.of(
            "DeletionPolicy",
            "Retain",
            "UpdateReplacePolicy",
            "Retain",
            "Properties",
            Map.of(
                "TableBucketName",
                "s3-event-archive-prod",
                "UnreferencedFileRemoval",
                Map.of("Status", "Enabled"))));
    s3tables.resourceCountIs("AWS::S3Tables::Namespace", 1);
    s3tables.hasResource(
        "AWS::S3Tables::Namespace",
        Map.of(
            "DeletionPolicy",
            "Retain",
            "Properties",
            Map.of(
                "Namespace",
                "s3_event_archive_prod",
                "TableBucketARN",
                Map.of("Fn::GetAtt", List.of("IcebergTableBucket", "TableBucketARN")))));
    s3tables.resourceCountIs("AWS::Glue::Database", 0);
    s3tables.hasOutput(
        "IcebergTableBucketArn",
        Map.of("Value", Map.of("Fn::GetAtt", List.of("IcebergTableBucket", "TableBucketARN"))));
  }

  @Test
  void shouldUseAnExistingTableBucketAndNamespace() {
    Map<String, Object> c = s3tablesContext();
    c.put("icebergTableBucketArn", EXISTING_ARN);
    c.put("icebergDatabase", "analytics");
    Template withNamespace = Template.fromStack(Fixtures.stack(c));
    withNamespace.resourceCountIs("AWS::S3Tables::TableBucket", 0);
    withNamespace.hasResourceProperties(
        "AWS::S3Tables::Namespace",
        Map.of("Namespace", "analytics", "TableBucketARN", EXISTING_ARN));
    assertThat(Templates.environment(withNamespace))
        .containsEntry("ICEBERG_WAREHOUSE", EXISTING_ARN)
        .containsEntry("ICEBERG_DATABASE", "analytics");
    assertThat(Templates.resourcesFor(Templates.statements(withNamespace), "s3tables:PutTableData"))
        .containsExactly(EXISTING_ARN + "/table/*");

    c.put("createIcebergDatabase", false);
    Template existing = Template.fromStack(Fixtures.stack(c));
    existing.resourceCountIs("AWS::S3Tables::TableBucket", 0);
    existing.resourceCountIs("AWS::S3Tables::Namespace", 0);
    existing.resourceCountIs("AWS::Glue::Database", 0);
  }

  @Test
  void shouldGrantTheRestCatalogsActionsOnTheTableBucketAndItsTablesOnly() {
    List<Statement> statements = Templates.statements(s3tables);
    for (String action : S3TablesCatalog.BUCKET_ACTIONS) {
      assertThat(Templates.resourcesFor(statements, action))
          .as(action)
          .containsExactly(CREATED_ARN);
    }
    for (String action : S3TablesCatalog.TABLE_ACTIONS) {
      assertThat(Templates.resourcesFor(statements, action))
          .as(action)
          .containsExactly(CREATED_ARN + "/table/*");
    }
    assertThat(Templates.allActions(statements).stream().filter(a -> a.startsWith("s3tables:")))
        .containsExactlyInAnyOrder(
            "s3tables:GetTableBucket",
            "s3tables:CreateTable",
            "s3tables:GetTableMetadataLocation",
            "s3tables:UpdateTableMetadataLocation",
            "s3tables:GetTableData",
            "s3tables:PutTableData");
  }

  @Test
  void shouldGrantNoGlueNorTableFolderNorDecryptWithS3Tables() {
    Map<String, Object> kms = s3tablesContext();
    kms.put("bucketEncryption", "kms");
    List<Statement> statements = Templates.statements(Template.fromStack(Fixtures.stack(kms)));
    assertThat(Templates.allActions(statements))
        .noneMatch(a -> a.startsWith("glue:"))
        .doesNotContain("kms:Decrypt", "s3:AbortMultipartUpload");
    assertThat(statements.stream().flatMap(s -> s.resources().stream()))
        .noneMatch(r -> r.contains(".db/"));
    assertThat(Templates.resourcesFor(statements, "s3:DeleteObject"))
        .containsExactly("${ArchiveBucket.Arn}/condense/_preflight/*");
  }

  @Test
  void shouldScheduleNoMaintenanceButStillAlarmOnCommitFailures() {
    s3tables.resourceCountIs("AWS::Events::Rule", 0);
    s3tables.resourcePropertiesCountIs(
        "AWS::Lambda::Permission", Map.of("Principal", "events.amazonaws.com"), 0);
    s3tables.resourceCountIs("AWS::Logs::MetricFilter", 1);
    s3tables.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of("MetricName", "CommitFailures", "Namespace", "KafkaS3Archiver"));
    s3tables.hasResourceProperties(
        "AWS::Lambda::Function",
        Map.of(
            "Environment",
            Map.of("Variables", Match.objectLike(Map.of("OUTPUT_FORMAT", "iceberg")))));
  }

  @Test
  void shouldNameTheCreatedTableBucketAsToldOrAfterTheTitle() {
    assertThat(ArchiverSettings.tableBucketNameFor("S3_Event.Archive-Prod"))
        .isEqualTo("s3-event-archive-prod");
    Map<String, Object> c = s3tablesContext();
    c.put("icebergTableBucketName", "acme-archive-tables");
    Template.fromStack(Fixtures.stack(c))
        .hasResourceProperties(
            "AWS::S3Tables::TableBucket", Map.of("TableBucketName", "acme-archive-tables"));
  }

  @Test
  void shouldRefuseWhatS3TablesCannotDoWithTheCauseAndTheFix() {
    refuses(
        Map.of("icebergCatalog", "hive"),
        "icebergCatalog='hive' is not valid; legal values: glue, s3tables");
    Map<String, Object> glue = new LinkedHashMap<>(Fixtures.mskDefaults());
    glue.put("outputFormat", "iceberg");
    glue.put("icebergTableBucketArn", EXISTING_ARN);
    assertThatThrownBy(() -> ArchiverSettings.from(glue))
        .hasMessageContaining("icebergTableBucketArn is set but icebergCatalog is 'glue'");
    Map<String, Object> ndjson = new LinkedHashMap<>(Fixtures.mskDefaults());
    ndjson.put("icebergCatalog", "s3tables");
    assertThatThrownBy(() -> ArchiverSettings.from(ndjson))
        .hasMessageContaining("icebergCatalog is set but outputFormat is 'ndjson'");
    refuses(
        Map.of("icebergTableBucketArn", EXISTING_ARN, "icebergTableBucketName", "acme-tables"),
        "not both");
    refuses(Map.of("icebergMaintenanceRateHours", 6), "S3 Tables compacts");
    refuses(
        Map.of("icebergTableBucketName", "Acme_Tables"), "icebergTableBucketName='Acme_Tables'");
    refuses(
        Map.of("icebergTableBucketArn", "arn:aws:s3:::acme-tables"),
        "icebergTableBucketArn='arn:aws:s3:::acme-tables' is not valid");
    refuses(
        Map.of("bucketName", "acme-archive", "createBucket", false, "region", "eu-west-1"),
        "region cannot be used with icebergCatalog=s3tables");
    refuses(
        Map.of("endpointUrlS3", "https://minio.example.com"),
        "endpointUrlS3 cannot be used with icebergCatalog=s3tables");
  }

  private static void refuses(Map<String, Object> extra, String message) {
    Map<String, Object> c = s3tablesContext();
    c.putAll(extra);
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
