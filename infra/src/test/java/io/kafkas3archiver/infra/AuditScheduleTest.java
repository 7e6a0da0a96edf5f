package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.infra.InfraMatrix.Deployment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The scheduled audit and its gap alarm (docs/audit.md, "Scheduled audit and alarms"), in the CDK
 * app's template, with template.yaml compared where the other parity tests do not look (the restore
 * function's AUDIT_* environment). Synthesized once per configuration by InfraMatrix's cache.
 */
class AuditScheduleTest {
  private static final Deployment SCHEDULED =
      InfraMatrix.all().stream()
          .filter(d -> d.name().equals("msk-iam-restore-state-machine"))
          .findFirst()
          .orElseThrow();
  private static final Deployment UNSCHEDULED =
      InfraMatrix.all().stream()
          .filter(d -> d.name().equals("msk-iam-restore-kms-bucket"))
          .findFirst()
          .orElseThrow();
  private static final String TITLE = SCHEDULED.get("title");
  private static final String TOPIC = SCHEDULED.get("inputTopic");

  private static Map<String, Map<String, Object>> resources(Deployment d) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    Templates.cast(InfraMatrix.cdkJson(d).get("Resources"))
        .forEach((k, v) -> out.put(Templates.logical(k), Templates.cast(v)));
    return out;
  }

  private static Map<String, Object> props(Deployment d, String logicalId) {
    Map<String, Object> r = resources(d).get(logicalId);
    assertThat(r).as(logicalId).isNotNull();
    return Templates.cast(r.get("Properties"));
  }

  @Test
  void shouldRunTheAuditActionOnTheRestoreFunctionAtTheConfiguredRateWithoutRetries() {
    Map<String, Object> rule = props(SCHEDULED, "AuditSchedule");
    Map<String, Object> target = Templates.cast(((List<?>) rule.get("Targets")).get(0));
    assertThat(
            List.of(
                rule.get("ScheduleExpression"),
                rule.get("State"),
                Templates.render(target.get("Arn")),
                target.get("Input"),
                Templates.cast(target.get("RetryPolicy")).get("MaximumRetryAttempts")))
        .containsExactly(
            "rate(60 minutes)", "ENABLED", "${RestoreFunction.Arn}", AuditSchedule.INPUT, 0);
  }

  @Test
  void shouldLetOnlyTheScheduleInvokeTheRestoreFunction() {
    List<String> permissions = new ArrayList<>();
    resources(SCHEDULED)
        .forEach(
            (id, r) -> {
              if ("AWS::Lambda::Permission".equals(r.get("Type"))) {
                Map<String, Object> p = Templates.cast(r.get("Properties"));
                permissions.add(
                    Templates.render(p.get("FunctionName"))
                        + " "
                        + p.get("Principal")
                        + " "
                        + Templates.render(p.get("SourceArn")));
              }
            });
    assertThat(permissions)
        .contains("${RestoreFunction.Arn} events.amazonaws.com ${AuditSchedule.Arn}");
  }

  @Test
  void shouldScheduleNothingAndAlarmOnNothingByDefault() {
    assertThat(resources(UNSCHEDULED).keySet())
        .noneMatch(id -> id.startsWith("AuditSchedule") || id.startsWith("Audit"));
  }

  @Test
  void shouldAlarmOnAnyGapAndKeepTheLastAuditsVerdictBetweenRuns() {
    assertThat(rule(props(SCHEDULED, "AuditGapsAlarm")))
        .isEqualTo("ArchiveGapOffsets Maximum 300 GreaterThanThreshold 0 1/1 ignore " + dims());
  }

  @Test
  void shouldAlarmOnAnyDuplicate() {
    assertThat(rule(props(SCHEDULED, "AuditDuplicatesAlarm")))
        .isEqualTo(
            "ArchiveDuplicateOffsets Maximum 300 GreaterThanThreshold 0 1/1 ignore " + dims());
  }

  @Test
  void shouldAlarmOnTheLagAboveTheConfiguredThreshold() {
    assertThat(rule(props(SCHEDULED, "AuditLagAlarm")))
        .isEqualTo("ArchiveLagOffsets Maximum 300 GreaterThanThreshold 5000 1/1 ignore " + dims());
  }

  @Test
  void shouldAlarmWhenTwoScheduledRunsInARowPublishedNothing() {
    assertThat(rule(props(SCHEDULED, "AuditHeartbeatAlarm")))
        .isEqualTo(
            "ArchiveGapOffsets SampleCount 3600 LessThanThreshold 1 2/2 breaching " + dims());
  }

  @Test
  void shouldTellTheAlarmTopicOfEveryAuditAlarm() {
    for (String id : InfraMatrix.AUDIT_ALARMS) {
      Map<String, Object> alarm = props(SCHEDULED, id);
      assertThat(List.of(alarm.get("AlarmActions"), alarm.get("OKActions")))
          .as(id)
          .containsOnly(List.of(InfraMatrix.ALARM_TOPIC));
    }
  }

  @Test
  void shouldGraphTheAuditFiguresAndShowItsAlarmsOnTheDashboard() {
    String body =
        Templates.render(
            resources(SCHEDULED).get("Dashboard").get("Properties") instanceof Map<?, ?> p
                ? p.get("DashboardBody")
                : null);
    List<String> metrics = Templates.dashboardMetrics(body).stream().map(Object::toString).toList();
    assertThat(metrics)
        .contains(
            "KafkaS3Archiver ArchiveGapOffsets " + dimsMap() + " Maximum",
            "KafkaS3Archiver ArchiveDuplicateOffsets " + dimsMap() + " Maximum",
            "KafkaS3Archiver ArchiveLagOffsets " + dimsMap() + " Maximum");
    assertThat(Templates.dashboardAlarms(body))
        .contains(
            "${AuditGapsAlarm.Arn}",
            "${AuditDuplicatesAlarm.Arn}",
            "${AuditLagAlarm.Arn}",
            "${AuditHeartbeatAlarm.Arn}");
  }

  @Test
  void shouldGiveTheRestoreFunctionTheAuditsSettingsAsTemplateYamlDoes() throws Exception {
    Map<String, String> cdk = audit(restoreEnvironment(InfraMatrix.cdkJson(SCHEDULED)));
    Map<String, String> sam = audit(restoreEnvironment(InfraMatrix.samJson(SCHEDULED)));
    assertThat(cdk)
        .containsEntry("AUDIT_BUCKET", InfraMatrix.BUCKET)
        .containsEntry("AUDIT_TOPIC", TOPIC)
        .containsEntry("AUDIT_KEY_PREFIX", "condense")
        .containsEntry("AUDIT_BOOTSTRAP_SERVERS", SCHEDULED.get("restoreBootstrapServers"))
        .containsEntry("AUDIT_GROUP", "kafka-s3-archiver-" + TITLE)
        .containsEntry("AUDIT_KAFKA_AUTH", "msk-iam")
        .isEqualTo(sam);
    // SAM's TITLE comes from Globals; the CDK app sets it on the restore function itself.
    assertThat(restoreEnvironment(InfraMatrix.cdkJson(SCHEDULED))).containsEntry("TITLE", TITLE);
    assertThat(new SamTemplate(InfraMatrix.TEMPLATE, SCHEDULED.sam()).environment())
        .containsEntry("TITLE", TITLE);
  }

  @Test
  void shouldReadAndWriteTheAuditStateOnlyUnderItsFolder() {
    String state = "arn:${AWS::Partition}:s3:::" + InfraMatrix.BUCKET + "/condense/_audit/";
    InfraModel model = InfraMatrix.model(InfraMatrix.cdkJson(SCHEDULED));
    assertThat(model.grants())
        .contains(
            "Allow s3:GetObject on " + state + TOPIC + "/* (restore function)",
            "Allow s3:PutObject on " + state + TOPIC + "/* (restore function)")
        .noneMatch(g -> g.contains("_audit/*") || g.contains("s3:PutObject on " + state + "*"));
  }

  @Test
  void shouldDescribeOnlyTheMappingsGroupOnTheClusterTheRestoreFunctionReaches() {
    InfraModel model = InfraMatrix.model(InfraMatrix.cdkJson(SCHEDULED));
    assertThat(
            model.grants().stream()
                .filter(
                    g ->
                        g.contains("kafka-cluster:DescribeGroup")
                            && g.endsWith("(restore function)")))
        .containsExactly(
            "Allow kafka-cluster:DescribeGroup on "
                + RestoreStackTest.TARGET_CLUSTER.replace(":cluster/", ":group/")
                + "/kafka-s3-archiver-"
                + TITLE
                + " (restore function)");
  }

  @Test
  void shouldRefuseAScheduleWithoutTheRestoreFunction() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("auditScheduleMinutes", "60");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("auditScheduleMinutes is set but restore is not true");
  }

  @Test
  void shouldRefuseARateTheTemplateCannotSpell() {
    Map<String, Object> c = new LinkedHashMap<>(RestoreStackTest.restoreContext());
    c.put("auditScheduleMinutes", "7");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("auditScheduleMinutes=7 is not valid; legal values: [0, 5, 10,");
  }

  /** "metric stat period comparison threshold datapoints/periods missing {dimensions}". */
  private static String rule(Map<String, Object> a) {
    Map<String, String> dims = new TreeMap<>();
    for (Object d : (List<?>) a.get("Dimensions")) {
      dims.put(
          Templates.cast(d).get("Name").toString(),
          Templates.render(Templates.cast(d).get("Value")));
    }
    return a.get("MetricName")
        + " "
        + a.get("Statistic")
        + " "
        + a.get("Period")
        + " "
        + a.get("ComparisonOperator")
        + " "
        + a.get("Threshold")
        + " "
        + a.get("DatapointsToAlarm")
        + "/"
        + a.get("EvaluationPeriods")
        + " "
        + a.get("TreatMissingData")
        + " "
        + dims;
  }

  private static String dims() {
    return dimsMap();
  }

  private static String dimsMap() {
    return "{Title=" + TITLE + ", Topic=" + TOPIC + "}";
  }

  private static Map<String, String> audit(Map<String, String> env) {
    Map<String, String> out = new TreeMap<>();
    env.forEach(
        (k, v) -> {
          if (k.startsWith("AUDIT_")) {
            out.put(k, v.replace("${ArchiveBucket}", InfraMatrix.BUCKET));
          }
        });
    return out;
  }

  /** The restore function's own variables (SAM's Globals not merged). */
  private static Map<String, String> restoreEnvironment(Map<String, Object> json) {
    for (var e : Templates.cast(json.get("Resources")).entrySet()) {
      Map<String, Object> r = Templates.cast(e.getValue());
      if (Templates.logical(e.getKey()).equals("RestoreFunction")) {
        Map<String, String> out = new LinkedHashMap<>();
        Templates.cast(
                Templates.cast(Templates.cast(r.get("Properties")).get("Environment"))
                    .get("Variables"))
            .forEach((k, v) -> out.put(k, InfraModel.text(v)));
        return out;
      }
    }
    throw new AssertionError("no RestoreFunction");
  }
}
