package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.AlarmStatusWidget;
import software.amazon.awscdk.services.cloudwatch.AlarmWidget;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.HorizontalAnnotation;
import software.amazon.awscdk.services.cloudwatch.IAlarm;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.IWidget;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * Alarms and one dashboard. From Lambda: function errors, throttles, the mapping's OffsetLag, the
 * on-failure queue. From the function's own EMF metrics (namespace KafkaS3Archiver, dimension
 * Title): records sent to error objects, upload retries, batch age, and "nothing archived while the
 * lag grows". template.yaml declares the same alarms under the same logical ids (SamParityTest).
 */
final class Monitoring {
  static final Duration PERIOD = Duration.minutes(5);

  /**
   * The function's csv/parquet-only EMF count of values kept in {@code _overflow} (EmfMetrics sends
   * it beside the enum's metrics, so ArchiverMetrics does not list it).
   */
  static final String VALUES_OVERFLOWED = "ValuesOverflowed";

  /**
   * The stall alarm's expression. One metric-math alarm rather than a composite of two alarms: both
   * conditions are evaluated on the same 5-minute periods (a composite combines two alarm states
   * that each have their own window and missing-data rules), FILL turns a period without any
   * invocation into ObjectsWritten 0 (the case that matters most: nothing is invoked at all), and
   * it is one alarm to pay for and to route. DIFF(lag) > 0: the lag rose since the previous period.
   */
  static final String STALLED_EXPRESSION = "IF(DIFF(lag) > 0 AND FILL(objects, 0) == 0, 1, 0)";

  /**
   * The heartbeat: successful invocations per period. It breaches below 1 and on missing data, so a
   * mapping that cannot poll at all (auth, network, a deleted alias, disabled) raises it: then
   * there is no invocation, no OffsetLag and no function metric for any other alarm to see.
   */
  static final String HEARTBEAT_EXPRESSION = "FILL(invocations, 0) - FILL(errors, 0)";

  /** template.yaml's AlarmActionWarning output says the same. */
  static final String NO_ALARM_ACTION =
      "No alarm topic (alarmTopicArn, SAM AlarmTopicArn) - the alarms (HeartbeatAlarm included)"
          + " change state but notify no one. Redeploy with it set to an SNS topic you subscribe"
          + " to (docs/deploy.md, Alarms and dashboard).";

  private Monitoring() {}

  /** Returns the dashboard, which the scheduled audit adds its row to (AuditSchedule). */
  static Dashboard create(
      Construct scope,
      ArchiverSettings s,
      Function function,
      Alias alias,
      CfnEventSourceMapping mapping,
      Optional<Queue> failureQueue) {
    Metric errors = function.metricErrors().with(stat("Sum"));
    Metric throttles = function.metricThrottles().with(stat("Sum"));
    // OffsetLag: records between the topic's end and the mapping's committed offset.
    Metric offsetLag =
        Metric.Builder.create()
            .namespace("AWS/Lambda")
            .metricName("OffsetLag")
            .dimensionsMap(Map.of("FunctionName", function.getFunctionName()))
            .statistic("Maximum")
            .period(PERIOD)
            .build();
    Metric recordsErrored = emf(s, ArchiverMetrics.RECORDS_ERRORED, "Sum");
    Metric uploadRetries = emf(s, ArchiverMetrics.UPLOAD_RETRIES, "Sum");
    Metric batchAge = emf(s, ArchiverMetrics.BATCH_AGE_MS, "Maximum");
    Metric objectsWritten = emf(s, ArchiverMetrics.OBJECTS_WRITTEN, "Sum");

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
    Alarm lagAlarm =
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
                + ")");
    alarms.add(lagAlarm);
    // RecordsErrored > 0: any record that went to an error object (DESIGN §4) needs a look.
    alarms.add(
        above(
            scope,
            "RecordsErroredAlarm",
            recordsErrored,
            0,
            1,
            "Records could not be written in the chosen format and went to error objects"
                + " under <prefix>/_errors/ ("
                + s.title()
                + ")"));
    // ValuesOverflowed > 0 (csv and parquet only; other formats never send it): a value its
    // column's type cannot hold went, exact, to _overflow, so a producer changed a field's kind.
    alarms.add(
        above(
            scope,
            "ValuesOverflowedAlarm",
            Metric.Builder.create()
                .namespace(ArchiverMetrics.NAMESPACE)
                .metricName(VALUES_OVERFLOWED)
                .dimensionsMap(Map.of(ArchiverMetrics.TITLE_DIMENSION, s.title()))
                .statistic("Sum")
                .period(PERIOD)
                .build(),
            0,
            1,
            "Values went, exact, to the _overflow column: their column's type cannot hold them (a"
                + " producer changed a field's kind); declare the field's type in PARQUET_SCHEMA or"
                + " read _overflow ("
                + s.title()
                + ")"));
    alarms.add(
        above(
            scope,
            "UploadRetriesAlarm",
            uploadRetries,
            s.uploadRetriesThreshold(),
            1,
            "S3 uploads are being retried: more than "
                + s.uploadRetriesThreshold()
                + " retries in 5 minutes (SlowDown, 5xx, timeouts) ("
                + s.title()
                + ")"));
    alarms.add(
        above(
            scope,
            "BatchAgeAlarm",
            batchAge,
            s.batchAgeThresholdMs(),
            3,
            "Records reach the archive late: BatchAgeMs above "
                + s.batchAgeThresholdMs()
                + " ms for 15 minutes ("
                + s.title()
                + ")"));
    alarms.add(
        Alarm.Builder.create(scope, "ArchiveStalledAlarm")
            .metric(
                MathExpression.Builder.create()
                    .expression(STALLED_EXPRESSION)
                    // Ordered: Map.of iterates in a per-JVM random order, and so would the
                    // template.
                    .usingMetrics(orderedMap("lag", offsetLag, "objects", objectsWritten))
                    .label("OffsetLag grows, no ObjectsWritten")
                    .period(PERIOD)
                    .build())
            .threshold(1)
            // Two of three periods: a bursty producer may leave the lag flat for one period.
            .evaluationPeriods(3)
            .datapointsToAlarm(2)
            .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
            .treatMissingData(TreatMissingData.NOT_BREACHING)
            .alarmDescription(
                "Nothing is archived while the topic moves on: OffsetLag grew and no"
                    + " ObjectsWritten in 2 of 3 5-minute periods ("
                    + s.title()
                    + ")")
            .build());
    failureQueue.ifPresent(
        q ->
            alarms.add(
                alarm(
                    scope,
                    "FailedBatchesAlarm",
                    q.metricApproximateNumberOfMessagesVisible().with(stat("Maximum")),
                    1,
                    1,
                    "The mapping gave up on a batch: its offsets are in the on-failure queue;"
                        + " replay them before Kafka's retention drops the records ("
                        + s.title()
                        + ")")));
    int heartbeatPeriods = s.heartbeatMinutes() / 5;
    alarms.add(
        Alarm.Builder.create(scope, "HeartbeatAlarm")
            .metric(
                MathExpression.Builder.create()
                    .expression(HEARTBEAT_EXPRESSION)
                    .usingMetrics(
                        orderedMap(
                            "invocations",
                            function.metricInvocations().with(stat("Sum")),
                            "errors",
                            errors))
                    .label("Successful invocations")
                    .period(PERIOD)
                    .build())
            .threshold(1)
            .evaluationPeriods(heartbeatPeriods)
            .datapointsToAlarm(heartbeatPeriods)
            .comparisonOperator(ComparisonOperator.LESS_THAN_THRESHOLD)
            // Missing data is the stall itself: nothing invoked, nothing measured.
            .treatMissingData(TreatMissingData.BREACHING)
            .alarmDescription(
                "No invocation succeeded for "
                    + s.heartbeatMinutes()
                    + " minutes: the mapping cannot poll or invoke (disabled, auth, network), every"
                    + " batch fails, or the topic is quiet for longer than heartbeatMinutes ("
                    + s.title()
                    + ")")
            .build());
    if (s.provisionedPollers()) {
      // The mapping's own metrics (MetricsConfig EventCount and ErrorCount, provisioned mode).
      alarms.add(
          Alarm.Builder.create(scope, "MappingNotPollingAlarm")
              .metric(mappingMetric(mapping, "PolledEventCount", "SampleCount"))
              .threshold(1)
              .evaluationPeriods(3)
              .datapointsToAlarm(3)
              .comparisonOperator(ComparisonOperator.LESS_THAN_THRESHOLD)
              // The mapping reports PolledEventCount 0 on an empty poll; none at all means it
              // does not poll.
              .treatMissingData(TreatMissingData.BREACHING)
              .alarmDescription(
                  "The event source mapping has not polled the topic for 15 minutes: it is"
                      + " disabled or cannot reach or authenticate to the cluster ("
                      + s.title()
                      + ")")
              .build());
      alarms.add(
          alarm(
              scope,
              "PollingErrorsAlarm",
              mappingMetric(mapping, "PollingErrorCount", "Sum"),
              1,
              1,
              "The event source mapping fails to poll the topic (network, auth, the cluster):"
                  + " see its StateTransitionReason ("
                  + s.title()
                  + ")"));
      alarms.add(
          above(
              scope,
              "DroppedEventsAlarm",
              mappingMetric(mapping, "DroppedEventCount", "Sum"),
              0,
              1,
              "The event source mapping dropped records past their retries or age without"
                  + " recording them in an on-failure destination: the archive has a gap ("
                  + s.title()
                  + ")"));
      if (s.onFailure() != ArchiverSettings.OnFailure.NONE) {
        alarms.add(
            alarm(
                scope,
                "OnFailureDestinationAlarm",
                mappingMetric(mapping, "OnFailureDestinationDeliveredEventCount", "Sum"),
                1,
                1,
                "The mapping gave up on a batch and recorded it in the on-failure destination;"
                    + " redrive it (docs/restore.md) before Kafka's retention drops the records ("
                    + s.title()
                    + ")"));
        alarms.add(
            alarm(
                scope,
                "OnFailureDeliveryErrorsAlarm",
                mappingMetric(mapping, "OnFailureDestinationDeliveryErrorCount", "Sum"),
                1,
                1,
                "The mapping could not write a failed batch's record to the on-failure"
                    + " destination (permissions, a missing queue or bucket, no VPC endpoint) ("
                    + s.title()
                    + ")"));
      }
    }
    if (s.alarmTopicArn().isEmpty()) {
      CfnOutput.Builder.create(scope, "AlarmActionWarning")
          .description("The alarms notify no one")
          .value(NO_ALARM_ACTION)
          .build();
      Annotations.of(scope)
          .addWarningV2(
              "kafka-s3-archiver:no-alarm-action",
              "alarmTopicArn is not set: the "
                  + alarms.size()
                  + " alarms (HeartbeatAlarm included) change state but notify no one. Set"
                  + " alarmTopicArn to an SNS topic you subscribe to (docs/deploy.md, Alarms"
                  + " and dashboard).");
    }
    notifyTopic(scope, s, alarms);

    List<IWidget> row1 = new ArrayList<>();
    row1.add(
        graph(
            "Invocations, errors, throttles",
            List.of(function.metricInvocations().with(stat("Sum")), errors, throttles)));
    row1.add(graph("OffsetLag (records)", List.of(offsetLag)));
    List<IWidget> row2 = new ArrayList<>();
    row2.add(
        graph(
            "Duration (ms)",
            List.of(
                function.metricDuration().with(stat("p50")),
                function.metricDuration().with(stat("p99")),
                function.metricDuration().with(stat("Maximum")))));
    row2.add(
        AlarmWidget.Builder.create().title("OffsetLag alarm").alarm(lagAlarm).width(12).build());
    List<IWidget> row3 = new ArrayList<>();
    row3.add(
        graph(
            "Records (sum per 5 min)",
            List.of(
                emf(s, ArchiverMetrics.RECORDS_IN, "Sum"),
                emf(s, ArchiverMetrics.RECORDS_WRITTEN, "Sum"),
                recordsErrored,
                emf(s, ArchiverMetrics.TOMBSTONES_SKIPPED, "Sum"))));
    row3.add(
        GraphWidget.Builder.create()
            .title("Objects and bytes written (sum per 5 min)")
            .left(List.of(objectsWritten))
            .right(List.of(emf(s, ArchiverMetrics.BYTES_WRITTEN, "Sum")))
            .width(12)
            .build());
    List<IWidget> row4 = new ArrayList<>();
    row4.add(
        GraphWidget.Builder.create()
            .title("Upload latency (ms) and retries")
            .left(
                List.of(
                    emf(s, ArchiverMetrics.UPLOAD_LATENCY, "p50"),
                    emf(s, ArchiverMetrics.UPLOAD_LATENCY, "p99"),
                    emf(s, ArchiverMetrics.UPLOAD_LATENCY, "Maximum")))
            .right(List.of(uploadRetries))
            .width(12)
            .build());
    row4.add(
        GraphWidget.Builder.create()
            .title("Batch age (ms)")
            .left(List.of(batchAge, emf(s, ArchiverMetrics.BATCH_AGE_MS, "Average")))
            .leftAnnotations(
                List.of(
                    HorizontalAnnotation.builder()
                        .label("BatchAge alarm")
                        .value(s.batchAgeThresholdMs())
                        .build()))
            .width(12)
            .build());
    List<IWidget> row5 = new ArrayList<>();
    row5.add(
        AlarmStatusWidget.Builder.create()
            .title("Alarms")
            .alarms(List.<IAlarm>copyOf(alarms))
            .width(24)
            .build());
    return Dashboard.Builder.create(scope, "Dashboard")
        .dashboardName(dashboardName(s.title()))
        .widgets(List.of(row1, row2, row3, row4, row5))
        .build();
  }

  /** One of the event source mapping's own metrics (MetricsConfig), by its UUID. */
  static Metric mappingMetric(CfnEventSourceMapping mapping, String name, String statistic) {
    return Metric.Builder.create()
        .namespace("AWS/Lambda")
        .metricName(name)
        .dimensionsMap(Map.of("EventSourceMappingUUID", mapping.getRef()))
        .statistic(statistic)
        .period(PERIOD)
        .build();
  }

  /** One of the function's EMF metrics, connector-wide (dimension Title). */
  static Metric emf(ArchiverSettings s, ArchiverMetrics metric, String statistic) {
    return Metric.Builder.create()
        .namespace(ArchiverMetrics.NAMESPACE)
        .metricName(metric.metricName())
        .dimensionsMap(Map.of(ArchiverMetrics.TITLE_DIMENSION, s.title()))
        .statistic(statistic)
        .period(PERIOD)
        .build();
  }

  private static Map<String, IMetric> orderedMap(String k1, IMetric v1, String k2, IMetric v2) {
    Map<String, IMetric> m = new LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }

  private static GraphWidget graph(String title, List<IMetric> metrics) {
    return GraphWidget.Builder.create().title(title).left(metrics).width(12).build();
  }

  /** Alarms at or above {@code threshold} in each of {@code periods} 5-minute periods. */
  private static Alarm alarm(
      Construct scope, String id, Metric metric, double threshold, int periods, String text) {
    return alarm(
        scope,
        id,
        metric,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        threshold,
        periods,
        text);
  }

  /** Alarms strictly above {@code threshold} in each of {@code periods} 5-minute periods. */
  private static Alarm above(
      Construct scope, String id, Metric metric, double threshold, int periods, String text) {
    return alarm(
        scope, id, metric, ComparisonOperator.GREATER_THAN_THRESHOLD, threshold, periods, text);
  }

  private static Alarm alarm(
      Construct scope,
      String id,
      Metric metric,
      ComparisonOperator comparison,
      double threshold,
      int periods,
      String text) {
    return Alarm.Builder.create(scope, id)
        .metric(metric)
        .threshold(threshold)
        .evaluationPeriods(periods)
        .datapointsToAlarm(periods)
        .comparisonOperator(comparison)
        .treatMissingData(TreatMissingData.NOT_BREACHING)
        .alarmDescription(text)
        .build();
  }

  private static MetricOptions stat(String statistic) {
    return MetricOptions.builder().statistic(statistic).period(PERIOD).build();
  }

  /** Dashboard names allow letters, digits, - and _. */
  /**
   * Sends each alarm's ALARM and OK transitions to {@code alarmTopicArn}, when one is set; the
   * topic is imported into {@code scope}, so each scope that calls this needs its own.
   */
  static void notifyTopic(Construct scope, ArchiverSettings s, List<Alarm> alarms) {
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
  }

  static String dashboardName(String title) {
    return "kafka-s3-archiver-" + title.replaceAll("[^A-Za-z0-9_-]", "-");
  }
}
