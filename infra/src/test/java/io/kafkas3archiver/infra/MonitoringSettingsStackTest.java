package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/** Tracing on, tuned alarm thresholds and an SNS topic for the alarms. */
class MonitoringSettingsStackTest {
  static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:ops";

  static Template template;
  static List<Templates.Statement> policies;
  static Map<String, Map<String, Object>> alarms;

  @BeforeAll
  static void synthesize() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("tracing", "true");
    c.put("uploadRetriesThreshold", "25");
    c.put("batchAgeThresholdMs", "600000");
    c.put("alarmTopicArn", TOPIC);
    template = Template.fromStack(Fixtures.stack(c));
    policies = Templates.statements(template);
    alarms = Templates.alarms(Templates.resources(template));
  }

  @Test
  void shouldTraceActively() {
    template.hasResourceProperties(
        "AWS::Lambda::Function", Map.of("TracingConfig", Map.of("Mode", "Active")));
  }

  @Test
  void shouldLetTheRoleWriteTraces() {
    assertThat(Templates.resourcesFor(policies, "xray:PutTraceSegments")).containsExactly("*");
  }

  @Test
  void shouldUseTheUploadRetriesThreshold() {
    assertThat(alarms.get("UploadRetriesAlarm")).containsEntry("Threshold", 25);
  }

  @Test
  void shouldUseTheBatchAgeThreshold() {
    assertThat(alarms.get("BatchAgeAlarm")).containsEntry("Threshold", 600000);
  }

  @Test
  void shouldMarkTheBatchAgeThresholdOnTheDashboard() {
    assertThat(Templates.dashboardBody(template)).contains("\"value\":600000");
  }

  @Test
  void shouldNotifyTheTopicFromEveryAlarm() {
    // 10 of the function and queue, the heartbeat, 3 of the mapping, 2 of its destination.
    assertThat(alarms.values())
        .hasSize(15)
        .allSatisfy(
            a ->
                assertThat(a)
                    .containsEntry("AlarmActions", List.of(TOPIC))
                    .containsEntry("OKActions", List.of(TOPIC)));
  }
}
