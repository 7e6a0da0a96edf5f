package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/**
 * SAM's Athena table: the same projection as the CDK app for the default layout; for a custom
 * KeyTemplate (a field layout) none at all, since CloudFormation cannot derive partition columns
 * from a template string and a table with the wrong columns would read nothing.
 */
class SamAthenaTableTest {
  private static final Path TEMPLATE = Path.of("..", "template.yaml");

  private static Map<String, String> sam(String keyTemplate) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("Title", "S3_Event_Archive_Prod");
    p.put("BucketName", "acme-kafka-archive");
    p.put("InputTopic", "vehicle-telemetry");
    p.put("SourceType", "msk");
    p.put("ClusterArn", Fixtures.CLUSTER_ARN);
    p.put("Athena", "true");
    p.put("KeyTemplate", keyTemplate);
    return p;
  }

  @Test
  void shouldProjectTheDefaultLayoutAsTheCdkAppDoes() throws Exception {
    var table = new SamTemplate(TEMPLATE, sam("")).resources().get("AthenaTable");
    assertThat(table).isNotNull();
    Map<String, Object> samInput =
        Templates.cast(Templates.cast(table.get("Properties")).get("TableInput"));

    Map<String, Object> c = new LinkedHashMap<>(Fixtures.selfManaged());
    c.put("athena", "true");
    Map<String, Object> cdkInput =
        AthenaFieldLayoutTest.onlyTable(Template.fromStack(Fixtures.stack(c)));

    assertThat(AthenaFieldLayoutTest.partitionColumns(samInput))
        .isEqualTo(AthenaFieldLayoutTest.partitionColumns(cdkInput))
        .containsExactly("year", "month", "day", "hour");
    Map<String, Object> samParameters =
        new LinkedHashMap<>(Templates.cast(samInput.get("Parameters")));
    Map<String, Object> cdkParameters =
        new LinkedHashMap<>(AthenaFieldLayoutTest.parameters(cdkInput));
    assertThat(String.valueOf(samParameters.remove("storage.location.template")))
        .endsWith("/year=${year}/month=${month}/day=${day}/hour=${hour}/");
    assertThat(String.valueOf(cdkParameters.remove("storage.location.template")))
        .endsWith("/year=${year}/month=${month}/day=${day}/hour=${hour}/");
    assertThat(samParameters).isEqualTo(cdkParameters);
  }

  @Test
  void shouldMakeNoTableForAFieldLayout() throws Exception {
    var resources =
        new SamTemplate(TEMPLATE, sam(AthenaFieldLayoutTest.FIELD_TEMPLATE)).resources();
    assertThat(resources).doesNotContainKeys("AthenaTable", "GlueDatabase");
  }
}
