package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.AlarmWidget;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IWidget;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * Alarms on function errors, throttles and the mapping's OffsetLag (plus the on-failure queue), and
 * one dashboard of the same. The custom EMF metrics are added by the observability issue.
 */
final class Monitoring {
  private Monitoring() {}

  static void create(
      Construct scope,
      ArchiverSettings s,
      Function function,
      Alias alias,
      Optional<Queue> failureQueue) {
    Duration period = Duration.minutes(5);
    Metric errors = function.metricErrors().with(stat("Sum", period));
    Metric throttles = function.metricThrottles().with(stat("Sum", period));
    // OffsetLag: records between the topic's end and the mapping's committed offset.
    Metric offsetLag =
        Metric.Builder.create()
            .namespace("AWS/Lambda")
            .metricName("OffsetLag")
            .dimensionsMap(Map.of("FunctionName", function.getFunctionName()))
            .statistic("Maximum")
            .period(period)
            .build();

    List<Alarm> alarms = new ArrayList<>();
    alarms.add(
        alarm(
            scope,
            "ErrorsAlarm",
            errors,
            1,
            1,
            "Function errors: a batch failed and is being retried (" + s.title() + ")"));
    alarms.add(
        alarm(
            scope,
            "ThrottlesAlarm",
            throttles,
            1,
            1,
            "Function throttled: the mapping cannot invoke it (" + s.title() + ")"));
    alarms.add(
        alarm(
            scope,
            "OffsetLagAlarm",
            offsetLag,
            s.offsetLagThreshold(),
            3,
            "The archive is falling behind the topic: OffsetLag above "
                + s.offsetLagThreshold()
                + " records for 15 minutes ("
                + s.title()
                + ")"));
    failureQueue.ifPresent(
        q ->
            alarms.add(
                alarm(
                    scope,
                    "FailedBatchesAlarm",
                    q.metricApproximateNumberOfMessagesVisible().with(stat("Maximum", period)),
                    1,
                    1,
                    "The mapping gave up on a batch: its offsets are in the on-failure queue;"
                        + " replay them before Kafka's retention drops the records ("
                        + s.title()
                        + ")")));
    s.alarmTopicArn()
        .ifPresent(
            arn -> {
              SnsAction action = new SnsAction(Topic.fromTopicArn(scope, "AlarmTopic", arn));
              alarms.forEach(
                  a -> {
                    a.addAlarmAction(action);
                    a.addOkAction(action);
                  });
            });

    List<IWidget> row1 = new ArrayList<>();
    row1.add(
        GraphWidget.Builder.create()
            .title("Invocations, errors, throttles")
            .left(
                List.of(function.metricInvocations().with(stat("Sum", period)), errors, throttles))
            .width(12)
            .build());
    row1.add(
        GraphWidget.Builder.create()
            .title("OffsetLag (records)")
            .left(List.of(offsetLag))
            .width(12)
            .build());
    List<IWidget> row2 = new ArrayList<>();
    row2.add(
        GraphWidget.Builder.create()
            .title("Duration (ms)")
            .left(
                List.of(
                    function.metricDuration().with(stat("p50", period)),
                    function.metricDuration().with(stat("p99", period)),
                    function.metricDuration().with(stat("Maximum", period))))
            .width(12)
            .build());
    row2.add(
        AlarmWidget.Builder.create()
            .title("OffsetLag alarm")
            .alarm(alarms.get(2))
            .width(12)
            .build());
    Dashboard.Builder.create(scope, "Dashboard")
        .dashboardName(dashboardName(s.title()))
        .widgets(List.of(row1, row2))
        .build();
  }

  private static Alarm alarm(
      Construct scope, String id, Metric metric, double threshold, int periods, String text) {
    return Alarm.Builder.create(scope, id)
        .metric(metric)
        .threshold(threshold)
        .evaluationPeriods(periods)
        .datapointsToAlarm(periods)
        .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
        .treatMissingData(TreatMissingData.NOT_BREACHING)
        .alarmDescription(text)
        .build();
  }

  private static software.amazon.awscdk.services.cloudwatch.MetricOptions stat(
      String statistic, Duration period) {
    return software.amazon.awscdk.services.cloudwatch.MetricOptions.builder()
        .statistic(statistic)
        .period(period)
        .build();
  }

  /** Dashboard names allow letters, digits, - and _. */
  static String dashboardName(String title) {
    return "kafka-s3-archiver-" + title.replaceAll("[^A-Za-z0-9_-]", "-");
  }
}
