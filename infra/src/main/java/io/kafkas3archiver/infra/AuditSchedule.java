package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.AlarmStatusWidget;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IAlarm;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.events.Rule;
import software.amazon.awscdk.services.events.RuleTargetInput;
import software.amazon.awscdk.services.events.Schedule;
import software.amazon.awscdk.services.events.targets.LambdaFunction;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.Function;
import software.constructs.Construct;

/**
 * The gap alarm (docs/audit.md, "Scheduled audit and alarms"): with {@code restore=true} the
 * restore Lambda, which runs in the cluster's network, can audit the archive ({@code
 * {"action":"audit"}}); this class gives it the audit's settings and grants, and with {@code
 * auditScheduleMinutes} an EventBridge schedule that runs it and alarms on the figures it
 * publishes. template.yaml declares the same under the same logical ids (the Audit* resources).
 *
 * <p>Missing data: the gap, duplicate and lag alarms keep their state between runs (ignore), so a
 * gap stays in alarm until an audit finds it closed; a separate heartbeat breaches when two
 * scheduled runs in a row published nothing (the audit failed, timed out or was not invoked), so an
 * audit that stops running does not look healthy.
 */
final class AuditSchedule {
  /** The audit's EMF figures (AuditAction), namespace KafkaS3Archiver, dimensions Title, Topic. */
  static final String GAPS = "ArchiveGapOffsets";

  static final String DUPLICATES = "ArchiveDuplicateOffsets";
  static final String LAG = "ArchiveLagOffsets";

  /** The event the schedule sends: every setting comes from the function's AUDIT_* variables. */
  static final String INPUT = "{\"action\":\"audit\"}";

  private AuditSchedule() {}

  /** Where the incremental audit keeps its state (AuditOptions.stateKey), outside the archive. */
  static String stateFolder(ArchiverSettings s) {
    return s.keyPrefix() + "/_audit/" + s.inputTopic() + "/";
  }

  /**
   * What {@code {"action":"audit"}} reads when the request does not say it (AuditAction): the
   * archive, and the cluster the restore Lambda reaches with its auth mode and the mapping's group.
   */
  static Map<String, String> environment(ArchiverSettings s, RestoreSettings r, String bucketName) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("AUDIT_BUCKET", bucketName);
    env.put("AUDIT_TOPIC", s.inputTopic());
    env.put("AUDIT_KEY_PREFIX", s.keyPrefix());
    env.put("AUDIT_BOOTSTRAP_SERVERS", r.bootstrapServers());
    env.put("AUDIT_GROUP", s.consumerGroupId());
    env.put("AUDIT_KAFKA_AUTH", r.auth());
    // The metrics' Title dimension, the same as the archiver's (the alarms below select on it).
    env.put("TITLE", s.title());
    return env;
  }

  /**
   * The audit's grants beyond the restore's (which already list and read the data and error
   * prefixes, and with MSK IAM connect and describe and read the archived topic): read and write
   * its state under {@code <prefix>/_audit/<topic>/}, list that folder only so that a first run's
   * missing state answers 404 rather than 403, and with MSK IAM describe the mapping's group (the
   * committed offsets, OffsetFetch).
   */
  static List<PolicyStatement> statements(ArchiverSettings s, RestoreSettings r, String bucketArn) {
    List<PolicyStatement> out = new ArrayList<>();
    out.add(
        PolicyStatement.Builder.create()
            .sid("AuditListState")
            .effect(Effect.ALLOW)
            .actions(List.of("s3:ListBucket"))
            .resources(List.of(bucketArn))
            .conditions(Map.of("StringLike", Map.of("s3:prefix", List.of(stateFolder(s) + "*"))))
            .build());
    out.add(
        AccessPolicy.allow(
            "AuditState",
            List.of("s3:GetObject", "s3:PutObject"),
            List.of(bucketArn + "/" + stateFolder(s) + "*")));
    if (r.auth().equals("msk-iam")) {
      out.add(
          AccessPolicy.allow(
              "AuditDescribeGroup",
              List.of("kafka-cluster:DescribeGroup"),
              List.of(
                  KafkaSource.mskChildArn(
                      r.clusterArn().orElseThrow(), "group", s.consumerGroupId()))));
    }
    return out;
  }

  /** The schedule, its alarms and a dashboard row; nothing unless auditScheduleMinutes > 0. */
  static void create(
      Construct stack,
      ArchiverSettings s,
      RestoreSettings r,
      Function restoreFunction,
      Dashboard dashboard) {
    if (!r.auditScheduled()) {
      return;
    }
    Construct scope = new Construct(stack, "Audit");
    Rule.Builder.create(scope, "Schedule")
        .description(
            "kafka-s3-archiver "
                + s.title()
                + ": audits the archive against the cluster every "
                + r.auditScheduleMinutes()
                + " min")
        // Spelled in minutes, as template.yaml does: Schedule.rate would write rate(1 hour).
        .schedule(Schedule.expression("rate(" + r.auditScheduleMinutes() + " minutes)"))
        .targets(
            List.of(
                LambdaFunction.Builder.create(restoreFunction)
                    .event(RuleTargetInput.fromObject(Map.of("action", "audit")))
                    // A failed run is not retried: the next one audits the same, and the heartbeat
                    // reports a run of failures.
                    .retryAttempts(0)
                    .build()))
        .build();

    Metric gaps = metric(s, GAPS, "Maximum", Monitoring.PERIOD);
    Metric duplicates = metric(s, DUPLICATES, "Maximum", Monitoring.PERIOD);
    Metric lag = metric(s, LAG, "Maximum", Monitoring.PERIOD);
    List<Alarm> alarms = new ArrayList<>();
    alarms.add(
        figure(
            scope,
            "GapsAlarm",
            gaps,
            0,
            "The audit found offsets that are in the log but in no archive object (a lost object,"
                + " or records deleted by retention before they were archived): run the audit for"
                + " the ranges (docs/audit.md) ("
                + s.title()
                + ")"));
    alarms.add(
        figure(
            scope,
            "DuplicatesAlarm",
            duplicates,
            0,
            "The audit found offsets stored in two archive objects: a restore would write them"
                + " twice; run the audit for the keys (docs/audit.md) ("
                + s.title()
                + ")"));
    alarms.add(
        figure(
            scope,
            "LagAlarm",
            lag,
            r.auditLagThreshold(),
            "The archive is behind the log: the audit counts more than "
                + r.auditLagThreshold()
                + " offsets past the archive's end ("
                + s.title()
                + ")"));
    Duration runPeriod = Duration.minutes(r.auditScheduleMinutes());
    alarms.add(
        Alarm.Builder.create(scope, "HeartbeatAlarm")
            .metric(metric(s, GAPS, "SampleCount", runPeriod))
            .threshold(1)
            // Two scheduled runs in a row without a figure: one late run is not an alarm.
            .evaluationPeriods(2)
            .datapointsToAlarm(2)
            .comparisonOperator(ComparisonOperator.LESS_THAN_THRESHOLD)
            // No figure is the failure itself: the audit could not run or was not invoked.
            .treatMissingData(TreatMissingData.BREACHING)
            .alarmDescription(
                "The scheduled audit published no figures in two scheduled runs in a row: it fails"
                    + " (cluster, grants, timeout) or is not invoked; see the"
                    + " restore function's logs ("
                    + s.title()
                    + ")")
            .build());
    Monitoring.notifyTopic(scope, s, alarms);

    dashboard.addWidgets(
        GraphWidget.Builder.create()
            .title("Audit: gap, duplicate and lag offsets")
            .left(List.<IMetric>of(gaps, duplicates))
            .right(List.<IMetric>of(lag))
            .width(12)
            .build(),
        AlarmStatusWidget.Builder.create()
            .title("Audit alarms")
            .alarms(List.<IAlarm>copyOf(alarms))
            .width(12)
            .build());
  }

  /** One audit figure, as AuditAction publishes it (dimensions Title and Topic). */
  static Metric metric(ArchiverSettings s, String name, String statistic, Duration period) {
    Map<String, String> dims = new LinkedHashMap<>();
    dims.put(ArchiverMetrics.TITLE_DIMENSION, s.title());
    dims.put("Topic", s.inputTopic());
    return Metric.Builder.create()
        .namespace(ArchiverMetrics.NAMESPACE)
        .metricName(name)
        .dimensionsMap(dims)
        .statistic(statistic)
        .period(period)
        .build();
  }

  /**
   * A figure above {@code threshold} in the period of a run. Missing data is ignored: between runs
   * there is none, and the state stays what the last audit said.
   */
  private static Alarm figure(
      Construct scope, String id, Metric metric, double threshold, String text) {
    return Alarm.Builder.create(scope, id)
        .metric(metric)
        .threshold(threshold)
        .evaluationPeriods(1)
        .datapointsToAlarm(1)
        .comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD)
        .treatMissingData(TreatMissingData.IGNORE)
        .alarmDescription(text)
        .build();
  }
}
