package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** The default deployment: MSK with IAM auth, a bucket created by the stack. One check a test. */
class ArchiverStackTest {
  static final List<String> DESIGN_ENV =
      List.of(
          "BUCKET_NAME",
          "BUCKET_REGION",
          "TITLE",
          "INPUT_TOPIC",
          "OUTPUT_FORMAT",
          "COMPRESSION",
          "KEY_PREFIX",
          "KEY_TEMPLATE",
          "PARTITION_TIME",
          "TIME_ZONE",
          "INCLUDE_KAFKA_METADATA",
          "CREDENTIALS_SECRET_ARN",
          "ROLE_ARN",
          "EXTERNAL_ID",
          "SSE",
          "KMS_KEY_ID",
          "S3_FORCE_PATH_STYLE",
          "REPORT_BATCH_ITEM_FAILURES",
          "LOG_LEVEL");

  static Template template;
  static List<Templates.Statement> policies;
  static Map<String, Map<String, Object>> alarms;
  static List<Templates.DashboardMetric> dashboard;

  @BeforeAll
  static void synthesize() {
    template = Template.fromStack(Fixtures.stack(Fixtures.mskDefaults()));
    policies = Templates.statements(template);
    alarms = Templates.alarms(Templates.resources(template));
    dashboard = Templates.dashboardMetrics(Templates.dashboardBody(template));
  }

  // --- bucket

  @Test
  void shouldCreateOneBucket() {
    template.resourceCountIs("AWS::S3::Bucket", 1);
  }

  @Test
  void shouldVersionTheBucket() {
    template.hasResourceProperties(
        "AWS::S3::Bucket", Map.of("VersioningConfiguration", Map.of("Status", "Enabled")));
  }

  @Test
  void shouldEncryptWithSseS3ByDefault() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "BucketEncryption",
            Map.of(
                "ServerSideEncryptionConfiguration",
                List.of(
                    Map.of("ServerSideEncryptionByDefault", Map.of("SSEAlgorithm", "AES256"))))));
  }

  @Test
  void shouldBlockAllPublicAccess() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "PublicAccessBlockConfiguration",
            Map.of(
                "BlockPublicAcls", true,
                "BlockPublicPolicy", true,
                "IgnorePublicAcls", true,
                "RestrictPublicBuckets", true)));
  }

  @Test
  void shouldDenyRequestsWithoutTls() {
    template.hasResourceProperties(
        "AWS::S3::BucketPolicy",
        Map.of(
            "PolicyDocument",
            Map.of(
                "Statement",
                Match.arrayWith(
                    List.of(
                        Match.objectLike(
                            Map.of(
                                "Effect",
                                "Deny",
                                "Condition",
                                Map.of("Bool", Map.of("aws:SecureTransport", "false")))))))));
  }

  @Test
  void shouldTransitionObjectsToGlacierInstantRetrievalAfter30Days() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "LifecycleConfiguration",
            Map.of(
                "Rules",
                Match.arrayWith(
                    List.of(
                        Match.objectLike(
                            Map.of(
                                "Transitions",
                                List.of(
                                    Map.of(
                                        "StorageClass",
                                        "GLACIER_IR",
                                        "TransitionInDays",
                                        30)))))))));
  }

  @Test
  void shouldExpireNoncurrentVersionsAndStaleMultipartUploads() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "LifecycleConfiguration",
            Map.of(
                "Rules",
                Match.arrayWith(
                    List.of(
                        Match.objectLike(
                            Map.of(
                                "NoncurrentVersionExpiration",
                                Map.of("NoncurrentDays", 30),
                                "AbortIncompleteMultipartUpload",
                                Map.of("DaysAfterInitiation", 7),
                                "ExpiredObjectDeleteMarker",
                                true)))))));
  }

  @Test
  void shouldNotExpireCurrentObjectsByDefault() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "LifecycleConfiguration",
            Map.of(
                "Rules",
                Match.not(
                    Match.arrayWith(
                        List.of(
                            Match.objectLike(Map.of("ExpirationInDays", Match.anyValue()))))))));
  }

  @Test
  void shouldRetainTheBucketWhenTheStackIsDeleted() {
    template.hasResource(
        "AWS::S3::Bucket", Map.of("DeletionPolicy", "Retain", "UpdateReplacePolicy", "Retain"));
  }

  // --- IAM

  @Test
  void shouldAllowPutObjectOnlyUnderTheArchiveAndErrorPrefixes() {
    assertThat(Templates.resourcesFor(policies, "s3:PutObject"))
        .containsExactlyInAnyOrder(
            "${ArchiveBucket.Arn}/condense/vehicle-telemetry/*",
            "${ArchiveBucket.Arn}/condense/_errors/vehicle-telemetry/*",
            "${ArchiveBucket.Arn}/condense/_preflight/*");
  }

  @Test
  void shouldAllowReadingOnlyTheArchivedObjects() {
    assertThat(Templates.resourcesFor(policies, "s3:GetObject"))
        .containsExactlyInAnyOrder(
            "${ArchiveBucket.Arn}/condense/vehicle-telemetry/*",
            "${ArchiveBucket.Arn}/condense/_errors/vehicle-telemetry/*");
  }

  @Test
  void shouldAllowDeleteObjectOnlyOnThePreflightPrefix() {
    assertThat(Templates.resourcesFor(policies, "s3:DeleteObject"))
        .containsExactly("${ArchiveBucket.Arn}/condense/_preflight/*");
  }

  @Test
  void shouldAllowListBucketAndGetBucketLocationOnTheBucketOnly() {
    assertThat(Templates.resourcesFor(policies, "s3:ListBucket"))
        .containsExactly("${ArchiveBucket.Arn}");
  }

  @Test
  void shouldAllowGetBucketLocationOnTheBucketOnly() {
    assertThat(Templates.resourcesFor(policies, "s3:GetBucketLocation"))
        .containsExactly("${ArchiveBucket.Arn}");
  }

  @Test
  void shouldAllowReadingTheObjectLockConfigurationOnTheBucketOnly() {
    assertThat(Templates.resourcesFor(policies, "s3:GetBucketObjectLockConfiguration"))
        .containsExactly("${ArchiveBucket.Arn}");
  }

  @Test
  void shouldGrantNoWildcardS3ActionAndReadOnlyArchivedObjectsMetadata() {
    assertThat(Templates.allActions(policies))
        .filteredOn(a -> a.startsWith("s3:"))
        .containsOnly(
            "s3:PutObject",
            "s3:GetObject",
            "s3:DeleteObject",
            "s3:ListBucket",
            "s3:GetBucketLocation",
            "s3:GetBucketObjectLockConfiguration");
  }

  @Test
  void shouldGrantNoSecretsManagerStsOrKmsWithoutSecretRoleOrKey() {
    assertThat(Templates.allActions(policies))
        .isNotEmpty()
        .noneMatch(
            a -> a.startsWith("secretsmanager:") || a.startsWith("sts:") || a.startsWith("kms:"));
  }

  @Test
  void shouldAllowMskIamReadOnTheOneTopic() {
    assertThat(Templates.resourcesFor(policies, "kafka-cluster:ReadData"))
        .containsExactly(
            "arn:aws:kafka:us-east-1:123456789012:topic/vehicle-cluster/abcd1234-0123-4567-89ab-cdef01234567-1/vehicle-telemetry");
  }

  @Test
  void shouldAllowMskIamGroupActionsOnTheOneConsumerGroup() {
    assertThat(Templates.resourcesFor(policies, "kafka-cluster:AlterGroup"))
        .containsExactly(
            "arn:aws:kafka:us-east-1:123456789012:group/vehicle-cluster/abcd1234-0123-4567-89ab-cdef01234567-1/kafka-s3-archiver-S3_Event_Archive_Prod");
  }

  @Test
  void shouldAllowMskIamConnectOnTheCluster() {
    assertThat(Templates.resourcesFor(policies, "kafka-cluster:Connect"))
        .containsExactly(Fixtures.CLUSTER_ARN);
  }

  @Test
  void shouldAttachNoManagedPolicyToTheRole() {
    template.hasResourceProperties("AWS::IAM::Role", Map.of("ManagedPolicyArns", Match.absent()));
  }

  @Test
  void shouldLetTheFunctionWriteOnlyItsOwnLogGroup() {
    assertThat(Templates.resourcesFor(policies, "logs:PutLogEvents"))
        .containsExactly("${FunctionLogs.Arn}");
  }

  // --- function

  @Test
  void shouldRunTheHandlerOnJava21() {
    template.hasResourceProperties(
        "AWS::Lambda::Function",
        Map.of(
            "Runtime", "java21", "Handler", "io.kafkas3archiver.ArchiverHandler::handleRequest"));
  }

  @Test
  void shouldRunOnArm64() {
    template.hasResourceProperties(
        "AWS::Lambda::Function", Map.of("Architectures", List.of("arm64")));
  }

  @Test
  void shouldUse1024MbAnd90Seconds() {
    template.hasResourceProperties(
        "AWS::Lambda::Function", Map.of("MemorySize", 1024, "Timeout", 90));
  }

  @Test
  void shouldEnableSnapStartOnPublishedVersions() {
    template.hasResourceProperties(
        "AWS::Lambda::Function", Map.of("SnapStart", Map.of("ApplyOn", "PublishedVersions")));
  }

  @Test
  void shouldPublishTheLiveAliasOnTheCurrentVersion() {
    template.hasResourceProperties(
        "AWS::Lambda::Alias",
        Map.of(
            "Name",
            "live",
            "FunctionVersion",
            Map.of(
                "Fn::GetAtt",
                List.of(Match.stringLikeRegexp("FunctionCurrentVersion.*"), "Version"))));
  }

  @Test
  void shouldKeepLogsFor30Days() {
    template.hasResourceProperties("AWS::Logs::LogGroup", Map.of("RetentionInDays", 30));
  }

  @Test
  void shouldSendTheFunctionLogsToThatLogGroup() {
    template.hasResourceProperties(
        "AWS::Lambda::Function",
        Map.of(
            "LoggingConfig",
            Map.of("LogGroup", Map.of("Ref", Match.stringLikeRegexp("FunctionLogs.*")))));
  }

  @Test
  void shouldSetEveryDesignEnvironmentVariable() {
    assertThat(Templates.environment(template).keySet()).containsAll(DESIGN_ENV);
  }

  @Test
  void shouldTellTheFunctionToReportItemFailuresBecauseTheMappingDoes() {
    assertThat(Templates.environment(template)).containsEntry("REPORT_BATCH_ITEM_FAILURES", "true");
  }

  @Test
  void shouldPassTheSettingsAsEnvironment() {
    assertThat(Templates.environment(template))
        .containsEntry("TITLE", "S3_Event_Archive_Prod")
        .containsEntry("INPUT_TOPIC", "vehicle-telemetry")
        .containsEntry("KEY_PREFIX", "condense")
        .containsEntry("OUTPUT_FORMAT", "ndjson")
        .containsEntry("LOG_LEVEL", "INFO");
  }

  @Test
  void shouldLeaveTheEndpointUnsetForAwsS3() {
    assertThat(Templates.environment(template)).doesNotContainKey("AWS_ENDPOINT_URL_S3");
  }

  // --- event source mapping

  @Test
  void shouldMapTheKafkaSourceToTheAliasNotTheFunction() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of("FunctionName", Map.of("Ref", Match.stringLikeRegexp("LiveAlias.*"))));
  }

  @Test
  void shouldReadTheMskClusterTopic() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of("EventSourceArn", Fixtures.CLUSTER_ARN, "Topics", List.of("vehicle-telemetry")));
  }

  @Test
  void shouldBatchForFewerLargerObjects() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "StartingPosition", "TRIM_HORIZON",
            "BatchSize", 10000,
            "MaximumBatchingWindowInSeconds", 60));
  }

  @Test
  void shouldJoinANamedConsumerGroup() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "AmazonManagedKafkaEventSourceConfig",
            Map.of("ConsumerGroupId", "kafka-s3-archiver-S3_Event_Archive_Prod")));
  }

  @Test
  void shouldUseProvisionedPollers() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of("ProvisionedPollerConfig", Map.of("MinimumPollers", 1, "MaximumPollers", 2)));
  }

  @Test
  void shouldBoundRetriesAndRecordAgeAndBisect() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "MaximumRetryAttempts", 10,
            "MaximumRecordAgeInSeconds", -1,
            "BisectBatchOnFunctionError", true));
  }

  @Test
  void shouldReportBatchItemFailures() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of("FunctionResponseTypes", List.of("ReportBatchItemFailures")));
  }

  @Test
  void shouldSendFailedBatchesToTheOnFailureQueue() {
    template.hasResourceProperties(
        "AWS::Lambda::EventSourceMapping",
        Map.of(
            "DestinationConfig",
            Map.of(
                "OnFailure",
                Map.of(
                    "Destination",
                    Map.of(
                        "Fn::GetAtt",
                        List.of(Match.stringLikeRegexp("OnFailureQueue.*"), "Arn"))))));
  }

  @Test
  void shouldEncryptTheOnFailureQueue() {
    template.hasResourceProperties("AWS::SQS::Queue", Map.of("SqsManagedSseEnabled", true));
  }

  @Test
  void shouldLetTheRoleSendOnlyToTheOnFailureQueue() {
    assertThat(Templates.resourcesFor(policies, "sqs:SendMessage"))
        .containsExactly("${OnFailureQueue.Arn}");
  }

  @Test
  void shouldCreateTheMappingAfterItsPermissions() {
    template.hasResource(
        "AWS::Lambda::EventSourceMapping",
        Map.of("DependsOn", Match.arrayWith(List.of(Match.stringLikeRegexp("MappingAccess.*")))));
  }

  // --- alarms and dashboard

  @Test
  void shouldAlarmOnFunctionErrors() {
    template.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of("MetricName", "Errors", "Namespace", "AWS/Lambda", "Threshold", 1));
  }

  @Test
  void shouldAlarmOnThrottles() {
    template.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of("MetricName", "Throttles", "Namespace", "AWS/Lambda", "Threshold", 1));
  }

  @Test
  void shouldAlarmOnOffsetLagAboveTheThreshold() {
    template.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of(
            "MetricName",
            "OffsetLag",
            "Statistic",
            "Maximum",
            "Threshold",
            100000,
            "EvaluationPeriods",
            3));
  }

  @Test
  void shouldAlarmOnFailedBatches() {
    template.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of("MetricName", "ApproximateNumberOfMessagesVisible", "Namespace", "AWS/SQS"));
  }

  @Test
  void shouldGraphTheSameMetricsOnOneDashboard() {
    assertThat(Templates.dashboardBody(template))
        .contains("\"Errors\"", "\"Throttles\"", "\"OffsetLag\"", "\"Duration\"");
  }

  @Test
  void shouldAlarmWhenAnyRecordGoesToAnErrorObject() {
    assertThat(Templates.alarmMetrics(alarms.get("RecordsErroredAlarm")))
        .containsExactly("KafkaS3Archiver RecordsErrored {Title=S3_Event_Archive_Prod} Sum 300");
  }

  @Test
  void shouldAlarmWhenAnyValueGoesToTheOverflowColumn() {
    assertThat(Templates.alarmMetrics(alarms.get("ValuesOverflowedAlarm")))
        .containsExactly("KafkaS3Archiver ValuesOverflowed {Title=S3_Event_Archive_Prod} Sum 300");
    assertThat(alarms.get("ValuesOverflowedAlarm"))
        .containsEntry("ComparisonOperator", "GreaterThanThreshold")
        .containsEntry("Threshold", 0)
        .containsEntry("TreatMissingData", "notBreaching");
  }

  @Test
  void shouldAlarmOnRecordsErroredAboveZero() {
    assertThat(alarms.get("RecordsErroredAlarm"))
        .containsEntry("ComparisonOperator", "GreaterThanThreshold")
        .containsEntry("Threshold", 0);
  }

  @Test
  void shouldAlarmOnUploadRetriesSummedOver5Minutes() {
    assertThat(Templates.alarmMetrics(alarms.get("UploadRetriesAlarm")))
        .containsExactly("KafkaS3Archiver UploadRetries {Title=S3_Event_Archive_Prod} Sum 300");
  }

  @Test
  void shouldAlarmOnMoreThan10UploadRetriesByDefault() {
    assertThat(alarms.get("UploadRetriesAlarm"))
        .containsEntry("ComparisonOperator", "GreaterThanThreshold")
        .containsEntry("Threshold", 10);
  }

  @Test
  void shouldAlarmOnTheMaximumBatchAge() {
    assertThat(Templates.alarmMetrics(alarms.get("BatchAgeAlarm")))
        .containsExactly("KafkaS3Archiver BatchAgeMs {Title=S3_Event_Archive_Prod} Maximum 300");
  }

  @Test
  void shouldAlarmOnBatchAgeAbove15MinutesFor15MinutesByDefault() {
    assertThat(alarms.get("BatchAgeAlarm"))
        .containsEntry("Threshold", 900000)
        .containsEntry("EvaluationPeriods", 3)
        .containsEntry("DatapointsToAlarm", 3);
  }

  @Test
  void shouldAlarmOnOffsetLagAndObjectsWrittenTogether() {
    assertThat(Templates.alarmMetrics(alarms.get("ArchiveStalledAlarm")))
        .containsExactlyInAnyOrder(
            "lag=AWS/Lambda OffsetLag {FunctionName=${Function}} Maximum 300",
            "objects=KafkaS3Archiver ObjectsWritten {Title=S3_Event_Archive_Prod} Sum 300");
  }

  @Test
  void shouldAlarmWhenTheLagGrowsAndNoObjectIsWritten() {
    assertThat(Templates.alarmExpression(alarms.get("ArchiveStalledAlarm")))
        .isEqualTo("IF(DIFF(lag) > 0 AND FILL(objects, 0) == 0, 1, 0)");
  }

  @Test
  void shouldGraphEveryFunctionMetricOnTheDashboard() {
    assertThat(
            dashboard.stream()
                .filter(m -> m.namespace().equals("KafkaS3Archiver"))
                .filter(m -> m.dimensions().equals(Map.of("Title", "S3_Event_Archive_Prod")))
                .map(Templates.DashboardMetric::metricName)
                .distinct())
        .containsExactlyInAnyOrder(
            "RecordsIn",
            "RecordsWritten",
            "RecordsErrored",
            "TombstonesSkipped",
            "ObjectsWritten",
            "BytesWritten",
            "UploadLatency",
            "BatchAgeMs",
            "UploadRetries");
  }

  @Test
  void shouldShowEveryAlarmOnTheDashboard() {
    assertThat(Templates.dashboardAlarms(Templates.dashboardBody(template)))
        .containsAll(alarms.keySet().stream().map(id -> "${" + id + ".Arn}").toList());
  }

  @Test
  void shouldLeaveTracingOffByDefault() {
    template.hasResourceProperties(
        "AWS::Lambda::Function",
        Map.of("Handler", ArchiverStack.HANDLER, "TracingConfig", Match.absent()));
  }

  @Test
  void shouldGrantNoXrayWithoutTracing() {
    assertThat(Templates.allActions(policies)).isNotEmpty().noneMatch(a -> a.startsWith("xray:"));
  }

  @Test
  void shouldCreateNoAthenaTableUnlessAsked() {
    template.resourceCountIs("AWS::Glue::Table", 0);
  }

  @Test
  void shouldCreateNoCredentialsSecretUnlessAsked() {
    template.resourceCountIs("AWS::SecretsManager::Secret", 0);
  }

  // --- a stall always alarms

  @Test
  void shouldAlarmOnSuccessfulInvocationsWhenNoneArrive() {
    assertThat(Templates.alarmExpression(alarms.get("HeartbeatAlarm")))
        .isEqualTo("FILL(invocations, 0) - FILL(errors, 0)");
    assertThat(Templates.alarmMetrics(alarms.get("HeartbeatAlarm")))
        .containsExactlyInAnyOrder(
            "invocations=AWS/Lambda Invocations {FunctionName=${Function}} Sum 300",
            "errors=AWS/Lambda Errors {FunctionName=${Function}} Sum 300");
  }

  @Test
  void shouldBreachTheHeartbeatOnMissingDataAfterAnHourByDefault() {
    assertThat(alarms.get("HeartbeatAlarm"))
        .containsEntry("TreatMissingData", "breaching")
        .containsEntry("ComparisonOperator", "LessThanThreshold")
        .containsEntry("Threshold", 1)
        .containsEntry("EvaluationPeriods", 12)
        .containsEntry("DatapointsToAlarm", 12);
  }

  @Test
  void shouldAlarmWhenTheMappingDoesNotPoll() {
    assertThat(Templates.alarmMetrics(alarms.get("MappingNotPollingAlarm")))
        .containsExactly(
            "AWS/Lambda PolledEventCount {EventSourceMappingUUID=${KafkaMapping}} SampleCount 300");
    assertThat(alarms.get("MappingNotPollingAlarm")).containsEntry("TreatMissingData", "breaching");
  }

  @Test
  void shouldAlarmOnTheMappingsPollingErrorsAndDroppedRecords() {
    assertThat(Templates.alarmMetrics(alarms.get("PollingErrorsAlarm")))
        .containsExactly(
            "AWS/Lambda PollingErrorCount {EventSourceMappingUUID=${KafkaMapping}} Sum 300");
    assertThat(Templates.alarmMetrics(alarms.get("DroppedEventsAlarm")))
        .containsExactly(
            "AWS/Lambda DroppedEventCount {EventSourceMappingUUID=${KafkaMapping}} Sum 300");
  }

  @Test
  void shouldAlarmOnEveryBatchSentToTheOnFailureDestination() {
    assertThat(Templates.alarmMetrics(alarms.get("OnFailureDestinationAlarm")))
        .containsExactly(
            "AWS/Lambda OnFailureDestinationDeliveredEventCount"
                + " {EventSourceMappingUUID=${KafkaMapping}} Sum 300");
    assertThat(Templates.alarmMetrics(alarms.get("OnFailureDeliveryErrorsAlarm")))
        .containsExactly(
            "AWS/Lambda OnFailureDestinationDeliveryErrorCount"
                + " {EventSourceMappingUUID=${KafkaMapping}} Sum 300");
  }

  @Test
  void shouldWarnThatAlarmsWithoutATopicNotifyNoOne() {
    ArchiverStack stack = Fixtures.stack(Fixtures.mskDefaults());
    Template.fromStack(stack);
    software.amazon.awscdk.assertions.Annotations.fromStack(stack)
        .hasWarning("*", Match.stringLikeRegexp("alarmTopicArn is not set.*"));
    template.hasOutput("AlarmActionWarning", Map.of("Value", Monitoring.NO_ALARM_ACTION));
  }

  // --- lifecycle that spares live data

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> lifecycleRules(Template t) {
    Map<String, Object> bucket =
        Templates.cast(t.findResources("AWS::S3::Bucket").values().iterator().next());
    return (List<Map<String, Object>>)
        Templates.cast(
                Templates.cast(
                    Templates.cast(bucket.get("Properties")).get("LifecycleConfiguration")))
            .get("Rules");
  }

  @Test
  void shouldTierOnlyTheArchivesOwnFoldersAbove128Kb() {
    assertThat(lifecycleRules(template))
        .filteredOn(r -> r.containsKey("Transitions"))
        .extracting(r -> r.get("Prefix") + " > " + r.get("ObjectSizeGreaterThan"))
        .containsExactly(
            "condense/vehicle-telemetry/ > 131072", "condense/_errors/vehicle-telemetry/ > 131072");
  }

  @Test
  void shouldKeepBucketWideRulesToHousekeeping() {
    assertThat(lifecycleRules(template))
        .filteredOn(r -> !r.containsKey("Prefix"))
        .singleElement()
        .satisfies(
            r ->
                assertThat(r)
                    .doesNotContainKeys("Transitions", "ExpirationInDays")
                    .containsEntry("ExpiredObjectDeleteMarker", true));
  }

  @Test
  void shouldRefuseStorageClassesThatNeedARestoreUnlessAllowed() {
    Map<String, Object> c = new java.util.LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("transitionStorageClass", "GLACIER");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("transitionStorageClass GLACIER needs a restore before any read")
        .hasMessageContaining("allowArchiveStorageClasses=true");
  }

  @Test
  void shouldWarnWhatAnAllowedArchiveClassStops() {
    Map<String, Object> c = new java.util.LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("secondTransitionDays", "365");
    c.put("secondTransitionStorageClass", "DEEP_ARCHIVE");
    c.put("allowArchiveStorageClasses", "true");
    ArchiverStack stack = Fixtures.stack(c);
    Template t = Template.fromStack(stack);
    software.amazon.awscdk.assertions.Annotations.fromStack(stack)
        .hasWarning("*", Match.stringLikeRegexp(".*DEEP_ARCHIVE.*Athena.*"));
    t.hasOutput("StorageClassWarning", Map.of("Value", ArchiverStack.STORAGE_CLASS_WARNING));
    assertThat(lifecycleRules(t).get(1).get("Transitions"))
        .isEqualTo(
            List.of(
                Map.of("StorageClass", "GLACIER_IR", "TransitionInDays", 30),
                Map.of("StorageClass", "DEEP_ARCHIVE", "TransitionInDays", 365)));
  }
}
