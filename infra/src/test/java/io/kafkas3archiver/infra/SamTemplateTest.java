package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** template.yaml resolved for the MSK defaults and for self-managed Kafka in a VPC. */
class SamTemplateTest {
  static Map<String, Map<String, Object>> msk;
  static Map<String, Map<String, Object>> selfManagedVpc;
  static Map<String, Object> globals;

  @BeforeAll
  static void resolve() throws Exception {
    Path file = Path.of("..", "template.yaml");
    msk =
        new SamTemplate(
                file,
                Map.of(
                    "BucketName", "acme-kafka-archive",
                    "InputTopic", "vehicle-telemetry",
                    "ClusterArn", Fixtures.CLUSTER_ARN))
            .resources();
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
                    "SecurityGroupId", "sg-0ccc"))
            .resources();
    globals = SamTemplate.globals(file);
  }

  @Test
  void shouldDeployOnlyTheMskFunctionForMsk() {
    assertThat(msk)
        .containsKey("MskArchiverFunction")
        .doesNotContainKeys("SelfManagedArchiverFunction", "SelfManagedVpcArchiverFunction");
  }

  @Test
  void shouldDeployOnlyTheVpcFunctionForSelfManagedKafkaInAVpc() {
    assertThat(selfManagedVpc)
        .containsKey("SelfManagedVpcArchiverFunction")
        .doesNotContainKeys("MskArchiverFunction", "SelfManagedArchiverFunction");
  }

  @Test
  void shouldAttachAnMskEventToTheMskFunction() {
    assertThat(event(msk, "MskArchiverFunction")).containsEntry("Type", "MSK");
  }

  @Test
  void shouldAttachASelfManagedKafkaEventToTheVpcFunction() {
    assertThat(event(selfManagedVpc, "SelfManagedVpcArchiverFunction"))
        .containsEntry("Type", "SelfManagedKafka");
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
    assertThat(msk.get("MskArchiverFunction").get("Metadata"))
        .isEqualTo(Map.of("BuildMethod", "makefile", "ContextPath", ".ci/sam"));
  }

  @Test
  void shouldCreateTheBucketByDefault() {
    assertThat(msk.get("ArchiveBucket")).containsEntry("DeletionPolicy", "Retain");
  }

  private static Map<String, Object> event(Map<String, Map<String, Object>> r, String function) {
    Map<String, Object> props = Templates.cast(r.get(function).get("Properties"));
    return Templates.cast(Templates.cast(props.get("Events")).get("Kafka"));
  }
}
