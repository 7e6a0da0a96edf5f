package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.assertions.Template;

/**
 * REPORT_BATCH_ITEM_FAILURES is "true" exactly when the mapping has FunctionResponseTypes
 * ReportBatchItemFailures; otherwise the mapping ignores the function's response and data is lost.
 */
class ItemFailuresInvariantTest {

  static Stream<Arguments> cdkDeployments() {
    Map<String, Object> noReport = new LinkedHashMap<>(Fixtures.mskDefaults());
    noReport.put("reportBatchItemFailures", "false");
    Map<String, Object> onDemand = new LinkedHashMap<>(Fixtures.mskDefaults());
    onDemand.put("provisionedPollers", "false");
    return Stream.concat(
        NagTest.deployments(),
        Stream.of(
            Arguments.of("provisioned-without-item-failures", noReport),
            Arguments.of("on-demand-pollers", onDemand)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cdkDeployments")
  void shouldMatchTheMappingInTheCdkStack(String name, Map<String, Object> context) {
    Template t = Template.fromStack(Fixtures.stack(context));
    Map<String, Object> mapping =
        Templates.cast(
            t.findResources("AWS::Lambda::EventSourceMapping").values().iterator().next());
    Object types = Templates.cast(mapping.get("Properties")).get("FunctionResponseTypes");
    boolean reports = types instanceof List<?> l && l.contains("ReportBatchItemFailures");
    assertThat(Templates.environment(t).get("REPORT_BATCH_ITEM_FAILURES"))
        .isEqualTo(Boolean.toString(reports));
  }

  static Stream<Arguments> samParameters() {
    Map<String, String> base =
        Map.of(
            "BucketName", "acme-kafka-archive",
            "InputTopic", "vehicle-telemetry",
            "ClusterArn", Fixtures.CLUSTER_ARN);
    return Stream.of(
        Arguments.of("defaults", base),
        Arguments.of("without-item-failures", with(base, "ReportBatchItemFailures", "false")),
        Arguments.of("on-demand-pollers", with(base, "ProvisionedPollers", "false")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samParameters")
  void shouldMatchTheMappingInTemplateYaml(String name, Map<String, String> parameters)
      throws Exception {
    SamTemplate sam = new SamTemplate(Path.of("..", "template.yaml"), parameters);
    Map<String, Object> event =
        Templates.cast(sam.resources().get("KafkaMapping").get("Properties"));
    Object types = event.get("FunctionResponseTypes");
    boolean reports = types instanceof List<?> l && l.contains("ReportBatchItemFailures");
    assertThat(sam.environment().get("REPORT_BATCH_ITEM_FAILURES"))
        .isEqualTo(Boolean.toString(reports));
  }

  private static Map<String, String> with(Map<String, String> base, String key, String value) {
    Map<String, String> m = new LinkedHashMap<>(base);
    m.put(key, value);
    return m;
  }
}
