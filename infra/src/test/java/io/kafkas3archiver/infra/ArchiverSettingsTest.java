package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Template;

class ArchiverSettingsTest {
  /**
   * AWS's documented example key id, assembled at run time so secret scanners do not flag the
   * source; the test only needs a value that must never reach a template.
   */
  static final String EXAMPLE_ACCESS_KEY = "AKIA" + "IOSFODNN7EXAMPLE";

  static final String SEED =
      """
      {
        "title": "S3_Event_Archive_Prod",
        "bucketName": "acme-kafka-archive",
        "region": "ap-south-1",
        "accessKey": "%s",
        "secretKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "inputTopic": "vehicle-telemetry",
        "clusterArn": "%s"
      }
      """
          .formatted(EXAMPLE_ACCESS_KEY, Fixtures.CLUSTER_ARN);

  @Test
  void shouldReadTheSeedConnectorJson(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("connector.json"), SEED);
    ArchiverSettings s = ArchiverSettings.from(ArchiverSettings.readJsonFile(file));
    assertThat(s)
        .extracting(
            ArchiverSettings::title, ArchiverSettings::inputTopic, ArchiverSettings::createBucket)
        .containsExactly("S3_Event_Archive_Prod", "vehicle-telemetry", false);
  }

  @Test
  void shouldNeverSynthesizeTheSeedsSecretValues(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("connector.json"), SEED);
    App app =
        App.Builder.create()
            .context(Map.of("configFile", file.toString(), "jarPath", Fixtures.jar()))
            .build();
    String json = Template.fromStack(ArchiverApp.createStack(app)).toJSON().toString();
    assertThat(json).doesNotContain(EXAMPLE_ACCESS_KEY).doesNotContain("bPxRfiCYEXAMPLEKEY");
  }

  @Test
  void shouldCreateASecretForTheSeedsKeysInstead(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("connector.json"), SEED);
    App app =
        App.Builder.create()
            .context(Map.of("configFile", file.toString(), "jarPath", Fixtures.jar()))
            .build();
    Template template = Template.fromStack(ArchiverApp.createStack(app));
    assertThat(Templates.environment(template).get("CREDENTIALS_SECRET_ARN"))
        .isEqualTo("${CredentialsSecret}");
  }

  @Test
  void shouldLetContextOverrideTheFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("connector.json"), SEED);
    App app =
        App.Builder.create()
            .context(
                Map.of(
                    "configFile", file.toString(), "jarPath", Fixtures.jar(), "keyPrefix", "raw"))
            .build();
    Template template = Template.fromStack(ArchiverApp.createStack(app));
    assertThat(Templates.environment(template)).containsEntry("KEY_PREFIX", "raw");
  }

  @Test
  void shouldRejectAnUnknownKey() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("bucketname", "typo");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("unknown configuration key 'bucketname'");
  }

  @Test
  void shouldRequireTheInputTopic() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.remove("inputTopic");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("inputTopic is required");
  }

  @Test
  void shouldListTheLegalFormats() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "avro");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("outputFormat='avro'")
        .hasMessageContaining("json, ndjson, csv, parquet");
  }

  @Test
  void shouldRejectAKeyTemplateOutsideTheTopicPrefix() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("keyTemplate", "${YEAR}/${OBJECT_NAME}/${JOB_ID}");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("must begin with ${KEY_PREFIX}/${OBJECT_NAME}/");
  }

  @Test
  void shouldDefaultToRecordTimeForARecordVariableAndRefuseBatch() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("keyTemplate", "${KEY_PREFIX}/${OBJECT_NAME}/r=${value.region}/hour=${HOUR}/${JOB_ID}");
    assertThat(ArchiverSettings.from(c).partitionTime()).isEqualTo("record");
    assertThat(ArchiverSettings.from(Fixtures.mskDefaults()).partitionTime()).isEqualTo("batch");

    c.put("partitionTime", "batch");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("partitionTime=batch cannot be used with keyTemplate=")
        .hasMessageContaining("legal values with record variables: record");
  }

  @Test
  void shouldPassTheEventTimeFieldAndTheFanOutGuardToTheFunction() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("partitionTime", "field");
    c.put("timeField", "meta.eventTime");
    c.put("timeFormat", "epoch_millis");
    c.put("maxFoldersPerPartition", "25");
    Map<String, String> env = Templates.environment(Template.fromStack(Fixtures.stack(c)));
    assertThat(env)
        .containsEntry("PARTITION_TIME", "field")
        .containsEntry("TIME_FIELD", "meta.eventTime")
        .containsEntry("TIME_FORMAT", "epoch_millis")
        .containsEntry("MAX_FOLDERS_PER_PARTITION", "25");

    Map<String, String> defaults =
        Templates.environment(
            Template.fromStack(Fixtures.stack(new LinkedHashMap<>(Fixtures.mskDefaults()))));
    assertThat(defaults)
        .containsEntry("TIME_FIELD", "")
        .containsEntry("TIME_FORMAT", "")
        .containsEntry("MAX_FOLDERS_PER_PARTITION", "100");
  }

  @Test
  void shouldRefuseAtSynthWhatTheFunctionRefusesForEventTimeAndTheGuard() {
    Map<String, Object> noField = new LinkedHashMap<>(Fixtures.mskDefaults());
    noField.put("partitionTime", "field");
    assertThatThrownBy(() -> ArchiverSettings.from(noField))
        .hasMessageContaining("partitionTime=field needs timeField");

    Map<String, Object> stray = new LinkedHashMap<>(Fixtures.mskDefaults());
    stray.put("timeFormat", "epoch_seconds");
    assertThatThrownBy(() -> ArchiverSettings.from(stray))
        .hasMessageContaining("needs partitionTime=field (it is batch)");

    Map<String, Object> guard = new LinkedHashMap<>(Fixtures.mskDefaults());
    guard.put("maxFoldersPerPartition", "0");
    assertThatThrownBy(() -> ArchiverSettings.from(guard))
        .hasMessageContaining("maxFoldersPerPartition=0 is out of range; legal values: 1..10000");

    Map<String, Object> noItemFailures = new LinkedHashMap<>(Fixtures.mskDefaults());
    noItemFailures.put(
        "keyTemplate", "${KEY_PREFIX}/${OBJECT_NAME}/r=${value.region}/hour=${HOUR}/${JOB_ID}");
    noItemFailures.put("provisionedPollers", "false");
    assertThatThrownBy(() -> ArchiverSettings.from(noItemFailures))
        .hasMessageContaining("needs reportBatchItemFailures=true and provisionedPollers=true");
  }

  @Test
  void shouldRequireTheScramSecretForSelfManagedKafka() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.selfManaged());
    c.remove("saslScramSecretArn");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("saslScramSecretArn is required");
  }

  @Test
  void shouldRejectABatchWindowLongerThanKafkaAllows() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("batchingWindowSeconds", "301");
    assertThatThrownBy(() -> ArchiverSettings.from(c)).hasMessageContaining("0..300");
  }

  @Test
  void shouldRequireADeclaredSchemaForAParquetTable() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "parquet");
    c.put("athena", "true");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("athena=true with outputFormat=parquet needs parquetSchema");
    c.put("athenaColumns", "id:bigint");
    c.put("parquetSchema", "{\"id\":\"bigint\"}");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("athenaColumns is for an ndjson table");
    c.remove("athenaColumns");
    c.put("parquetSchema", "glue:analytics.orders");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("with glue:analytics.orders the table exists already");
  }

  @Test
  void shouldReportItemFailuresOnlyWithProvisionedPollers() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("provisionedPollers", "false");
    assertThat(ArchiverSettings.from(c).mappingReportsItemFailures()).isFalse();
  }

  @Test
  void shouldOfferOnlyTheLogLevelsTheFunctionAccepts() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("logLevel", "TRACE");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("legal values: DEBUG, INFO, WARN, ERROR");
  }

  @Test
  void shouldDefaultToTracingOffAndTheDocumentedAlarmThresholds() {
    ArchiverSettings s = ArchiverSettings.from(new LinkedHashMap<>(Fixtures.mskDefaults()));
    assertThat(s)
        .extracting(
            ArchiverSettings::tracing,
            ArchiverSettings::uploadRetriesThreshold,
            ArchiverSettings::batchAgeThresholdMs)
        .containsExactly(false, 10, 900_000);
  }

  @Test
  void shouldRejectABatchAgeThresholdBelowOneMinute() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("batchAgeThresholdMs", "30000");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("batchAgeThresholdMs=30000")
        .hasMessageContaining("60000..604800000");
  }

  @Test
  void shouldPassTheExpectedBucketOwnerAndParquetSchemaToTheFunction() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("expectedBucketOwner", "123456789012");
    c.put("outputFormat", "parquet");
    c.put("parquetSchema", "{\"id\":\"number\",\"payload\":\"json\"}");
    Map<String, String> env = Templates.environment(Template.fromStack(Fixtures.stack(c)));
    assertThat(env)
        .containsEntry("EXPECTED_BUCKET_OWNER", "123456789012")
        .containsEntry("PARQUET_SCHEMA", "{\"id\":\"number\",\"payload\":\"json\"}")
        .containsEntry("OUTPUT_FORMAT", "parquet");
  }

  @Test
  void shouldLeaveTheExpectedBucketOwnerAndParquetSchemaBlankByDefault() {
    Map<String, String> env =
        Templates.environment(
            Template.fromStack(Fixtures.stack(new LinkedHashMap<>(Fixtures.mskDefaults()))));
    assertThat(env).containsEntry("EXPECTED_BUCKET_OWNER", "").containsEntry("PARQUET_SCHEMA", "");
  }

  @Test
  void shouldRejectAnExpectedBucketOwnerThatIsNotAnAccountId() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("expectedBucketOwner", "12345678901");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("expectedBucketOwner='12345678901'")
        .hasMessageContaining("12-digit AWS account id");
  }

  @Test
  void shouldRejectAParquetSchemaWithoutParquet() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("parquetSchema", "{\"id\":\"number\"}");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("parquetSchema is set but outputFormat is 'ndjson'")
        .hasMessageContaining("outputFormat=parquet");
  }

  @Test
  void shouldRejectAParquetSchemaTheFunctionWouldRefuse() {
    for (String bad :
        new String[] {
          "{\"id\":\"integer64\"}",
          "{\"id\":\"decimal(39,2)\"}",
          "{\"id\":\"map<int,string>\"}",
          "{\"id\":\"struct<a:int\"}",
          "{}",
          "[\"id\"]",
          "{\"id\":1}",
          "not json",
          "{\"id\":\"number\",\"id\":\"string\"}",
          "{\"id\":\"number\"} {}"
        }) {
      Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
      c.put("outputFormat", "parquet");
      c.put("parquetSchema", bad);
      assertThatThrownBy(() -> ArchiverSettings.from(c))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("parquetSchema")
          .hasMessageContaining("boolean, int, bigint, float, double, decimal(p,s), string");
    }
  }

  @Test
  void shouldDefaultTheIcebergTableToTheFunctionsNameForTheTopic() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "iceberg");
    ArchiverSettings.Iceberg i = ArchiverSettings.from(c).iceberg().orElseThrow();
    assertThat(i.database()).isEqualTo("s3_event_archive_prod");
    assertThat(i.table()).isEqualTo("vehicle_telemetry");
    assertThat(i.createDatabase()).isTrue();
    assertThat(i.maintenanceRateHours()).isEqualTo(6);
    assertThat(ArchiverSettings.icebergTableFor("_Orders.v1")).isEqualTo("t_orders_v1");
  }

  @Test
  void shouldRefuseIcebergWithTooLittleMemoryOrAnAthenaTableOrABadName() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "iceberg");
    c.put("memorySize", 512);
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("memorySize=512")
        .hasMessageContaining("1024");
    c.remove("memorySize");
    c.put("athena", true);
    assertThatThrownBy(() -> ArchiverSettings.from(c)).hasMessageContaining("athena=true");
    c.remove("athena");
    c.put("icebergTable", "Orders-V1");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("icebergTable='Orders-V1'")
        .hasMessageContaining("lower-case");
    c.remove("icebergTable");
    c.put("icebergMaintenanceRateHours", 0);
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("icebergMaintenanceRateHours=0");
  }

  @Test
  void shouldRefuseIcebergSettingsForAFileFormat() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("icebergTable", "orders");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("icebergTable is set but outputFormat is 'ndjson'");
  }

  @Test
  void shouldStillRefuseAnUnknownOutputFormatWithTheLegalValues() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("outputFormat", "xml");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining(
            "outputFormat='xml' is not valid; legal values: json, ndjson, csv," + " parquet");
  }

  @Test
  void shouldRefuseNoDestinationWithFiniteRetries() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("onFailure", "none");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("onFailure=none with retryAttempts=10")
        .hasMessageContaining("stall rather than skip");
  }

  @Test
  void shouldRefuseNoDestinationWithARecordAgeLimit() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("onFailure", "none");
    c.put("retryAttempts", "-1");
    c.put("maximumRecordAgeSeconds", "3600");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("maximumRecordAgeSeconds=3600");
  }

  @Test
  void shouldAcceptNoDestinationThatStallsRatherThanSkips() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("onFailure", "none");
    c.put("retryAttempts", "-1");
    assertThat(ArchiverSettings.from(c).onFailure()).isEqualTo(ArchiverSettings.OnFailure.NONE);
  }

  @Test
  void shouldRefuseMorePollersAtTheMinimumThanAtTheMaximum() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("minimumPollers", "3");
    c.put("maximumPollers", "2");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("need 1 <= minimumPollers <= maximumPollers <= 2000");
    c.put("maximumPollers", "3");
    assertThat(ArchiverSettings.from(c).maximumPollers()).isEqualTo(3);
  }

  @Test
  void shouldListTheLegalHeartbeats() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("heartbeatMinutes", "7");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("heartbeatMinutes=7 is not valid; legal values: [10, 15,");
  }

  @Test
  void shouldRefuseARestoreOfAValuesOnlyArchive() {
    Map<String, Object> c = new LinkedHashMap<>(RestoreStackTest.restoreContext());
    c.remove("includeKafkaMetadata");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("restore=true needs includeKafkaMetadata=true");
  }

  @Test
  void shouldRefuseAOneCharacterTopicThatCloudFormationWouldRefuse() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("inputTopic", "t");
    assertThatThrownBy(() -> ArchiverSettings.from(c)).hasMessageContaining("2-249 of");
  }

  @Test
  void shouldShowAClusterArnWhenGivenAClusterName() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("clusterArn", "my-cluster");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("clusterArn='my-cluster' is not an ARN, e.g. arn:aws:kafka:");
  }

  @Test
  void shouldValidateTheMappingsAndTheRestoresSubnetsAlike() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.selfManaged());
    c.put("subnetIds", "subnet-0aaa,vpc-0bbb");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessage(
            "subnetIds holds 'vpc-0bbb', which is not a subnet- id (e.g. subnet-0123456789abcdef0)");
    Map<String, Object> r = new LinkedHashMap<>(RestoreStackTest.restoreContext());
    r.put("restoreSubnetIds", "subnet-0aaa,vpc-0bbb");
    assertThatThrownBy(() -> Fixtures.stack(r))
        .hasMessage(
            "restoreSubnetIds holds 'vpc-0bbb', which is not a subnet- id (e.g."
                + " subnet-0123456789abcdef0)");
  }
}
