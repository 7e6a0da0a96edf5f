package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** template.yaml resolved for the MSK defaults and for self-managed Kafka in a VPC. */
class SamTemplateTest {
  static Map<String, Map<String, Object>> msk;
  static Map<String, Map<String, Object>> selfManagedVpc;
  static Map<String, Object> globals;
  static Map<String, Map<String, Object>> alarms;
  static String dashboard;
  static SamTemplate untraced;
  static SamTemplate traced;

  @BeforeAll
  static void resolve() throws Exception {
    Path file = Path.of("..", "template.yaml");
    Map<String, String> mskParameters =
        Map.of(
            "Title", "S3_Event_Archive_Prod",
            "BucketName", "acme-kafka-archive",
            "InputTopic", "vehicle-telemetry",
            "ClusterArn", Fixtures.CLUSTER_ARN);
    untraced = new SamTemplate(file, mskParameters);
    msk = untraced.resources();
    Map<String, String> tracedParameters = new LinkedHashMap<>(mskParameters);
    tracedParameters.put("Tracing", "true");
    traced = new SamTemplate(file, tracedParameters);
    alarms = Templates.alarms(msk);
    dashboard =
        Templates.cast(msk.get("Dashboard").get("Properties")).get("DashboardBody").toString();
    selfManagedVpc =
        new SamTemplate(
                file,
                Map.of(
                    "BucketName", "acme-kafka-archive",
                    "InputTopic", "vehicle-telemetry",
                    "SourceType", "self-managed",
                    "BootstrapServers", "b-1.example.com:9096",
                    "SaslScramSecretArn", Fixtures.SCRAM_SECRET_ARN,
                    "SubnetIds", "subnet-0aaa,subnet-0bbb",
                    "SecurityGroupIds", "sg-0ccc"))
            .resources();
    globals = SamTemplate.globals(file);
  }

  @Test
  void shouldMapTheMskClusterToTheLiveAlias() {
    assertThat(mapping(msk))
        .containsEntry("FunctionName", "${ArchiverFunction.Alias}")
        .containsEntry("EventSourceArn", Fixtures.CLUSTER_ARN)
        .doesNotContainKey("SelfManagedEventSource");
  }

  @Test
  void shouldMapTheSelfManagedBrokersInTheirVpc() {
    assertThat(mapping(selfManagedVpc))
        .containsEntry(
            "SelfManagedEventSource",
            Map.of("Endpoints", Map.of("KafkaBootstrapServers", List.of("b-1.example.com:9096"))))
        .containsEntry(
            "SourceAccessConfigurations",
            List.of(
                Map.of("Type", "SASL_SCRAM_512_AUTH", "URI", Fixtures.SCRAM_SECRET_ARN),
                Map.of("Type", "VPC_SUBNET", "URI", "subnet:subnet-0aaa"),
                Map.of("Type", "VPC_SUBNET", "URI", "subnet:subnet-0bbb"),
                Map.of("Type", "VPC_SECURITY_GROUP", "URI", "security_group:sg-0ccc")))
        .doesNotContainKey("EventSourceArn");
  }

  @Test
  void shouldDeployOneFunctionWithoutSamEvents() {
    assertThat(Templates.cast(msk.get("ArchiverFunction").get("Properties")))
        .doesNotContainKey("Events");
  }

  @Test
  void shouldPublishTheLiveAliasWithSnapStart() {
    assertThat(globals)
        .containsEntry("AutoPublishAlias", "live")
        .containsEntry("SnapStart", Map.of("ApplyOn", "PublishedVersions"))
        .containsEntry("Runtime", "java21");
  }

  @Test
  void shouldBuildThroughTheMavenWrapperMakefile() {
    assertThat(Templates.cast(msk.get("ArchiverFunction").get("Metadata")))
        .containsEntry("BuildMethod", "makefile")
        .containsEntry("ContextPath", ".ci/sam");
  }

  @Test
  void shouldCreateTheBucketByDefault() {
    assertThat(msk.get("ArchiveBucket")).containsEntry("DeletionPolicy", "Retain");
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
        .containsEntry("Threshold", "0")
        .containsEntry("TreatMissingData", "notBreaching");
  }

  @Test
  void shouldAlarmOnRecordsErroredAboveZero() {
    assertThat(alarms.get("RecordsErroredAlarm"))
        .containsEntry("ComparisonOperator", "GreaterThanThreshold")
        .containsEntry("Threshold", "0");
  }

  @Test
  void shouldAlarmOnMoreThan10UploadRetriesIn5Minutes() {
    assertThat(Templates.alarmMetrics(alarms.get("UploadRetriesAlarm")))
        .containsExactly("KafkaS3Archiver UploadRetries {Title=S3_Event_Archive_Prod} Sum 300");
  }

  @Test
  void shouldAlarmOnBatchAgeAbove15MinutesByDefault() {
    assertThat(alarms.get("BatchAgeAlarm"))
        .containsEntry("MetricName", "BatchAgeMs")
        .containsEntry("Statistic", "Maximum")
        .containsEntry("Threshold", "900000");
  }

  @Test
  void shouldAlarmOnOffsetLagAndObjectsWrittenTogether() {
    assertThat(Templates.alarmMetrics(alarms.get("ArchiveStalledAlarm")))
        .containsExactlyInAnyOrder(
            "lag=AWS/Lambda OffsetLag {FunctionName=${ArchiverFunction}} Maximum 300",
            "objects=KafkaS3Archiver ObjectsWritten {Title=S3_Event_Archive_Prod} Sum 300");
  }

  @Test
  void shouldAlarmWhenTheLagGrowsAndNoObjectIsWrittenLikeTheCdkStack() {
    assertThat(Templates.alarmExpression(alarms.get("ArchiveStalledAlarm")))
        .isEqualTo(Monitoring.STALLED_EXPRESSION);
  }

  @Test
  void shouldGraphEveryFunctionMetricOnTheDashboard() {
    assertThat(
            Templates.dashboardMetrics(dashboard).stream()
                .filter(m -> m.namespace().equals(ArchiverMetrics.NAMESPACE))
                .filter(m -> m.dimensions().equals(Map.of("Title", "S3_Event_Archive_Prod")))
                .map(Templates.DashboardMetric::metricName)
                .distinct())
        .containsExactlyInAnyOrderElementsOf(
            List.of(ArchiverMetrics.values()).stream()
                .filter(m -> !m.icebergOnly())
                .map(ArchiverMetrics::metricName)
                .toList());
  }

  @Test
  void shouldLeaveOnlyTheIcebergCommitMetricsOffTheDashboard() {
    // The exception above must stay exactly the metrics of the format infra refuses.
    assertThat(
            List.of(ArchiverMetrics.values()).stream()
                .filter(ArchiverMetrics::icebergOnly)
                .map(ArchiverMetrics::metricName))
        .containsExactlyInAnyOrder("CommitLatency", "CommitRetries", "RecordsAlreadyCommitted");
  }

  @Test
  void shouldShowEveryAlarmOnTheDashboard() {
    assertThat(Templates.dashboardAlarms(dashboard))
        .containsAll(alarms.keySet().stream().map(id -> "${" + id + ".Arn}").toList());
  }

  @Test
  void shouldLeaveTracingInLambdasDefaultModeByDefault() {
    assertThat(untraced.resolvedGlobals()).containsEntry("Tracing", "PassThrough");
  }

  @Test
  void shouldTraceActivelyWhenAsked() {
    assertThat(traced.resolvedGlobals()).containsEntry("Tracing", "Active");
  }

  @Test
  void shouldGrantXrayOnlyWhenTracing() {
    assertThat(Templates.allActions(untraced.roleStatements()))
        .isNotEmpty()
        .noneMatch(a -> a.startsWith("xray:"));
  }

  @Test
  void shouldLetTheRoleWriteTracesWhenTracing() {
    assertThat(Templates.resourcesFor(traced.roleStatements(), "xray:PutTraceSegments"))
        .containsExactly("*");
  }

  private static Map<String, Object> mapping(Map<String, Map<String, Object>> r) {
    return Templates.cast(r.get("KafkaMapping").get("Properties"));
  }

  @Test
  void shouldBreachTheHeartbeatOnMissingDataAfterAnHourByDefault() {
    assertThat(alarms.get("HeartbeatAlarm"))
        .containsEntry("TreatMissingData", "breaching")
        .containsEntry("ComparisonOperator", "LessThanThreshold")
        // From the HeartbeatPeriods mapping: 60 minutes are 12 five-minute periods.
        .containsEntry("EvaluationPeriods", "12");
    assertThat(Templates.alarmExpression(alarms.get("HeartbeatAlarm")))
        .isEqualTo(Monitoring.HEARTBEAT_EXPRESSION);
  }

  @Test
  void shouldAlarmOnTheMappingsOwnMetrics() {
    assertThat(alarms)
        .containsKeys(
            "MappingNotPollingAlarm",
            "PollingErrorsAlarm",
            "DroppedEventsAlarm",
            "OnFailureDestinationAlarm",
            "OnFailureDeliveryErrorsAlarm");
  }

  @Test
  void shouldSayInAnOutputThatTheAlarmsNotifyNoOne() {
    assertThat(Templates.cast(untraced.outputs().get("AlarmActionWarning")))
        .containsEntry("Value", Monitoring.NO_ALARM_ACTION);
  }
}
