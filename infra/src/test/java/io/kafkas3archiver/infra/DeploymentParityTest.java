package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.infra.InfraMatrix.Deployment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CDK app and template.yaml, given the same configuration, deploy the same thing: every IAM
 * grant (action, resource and condition), the whole event source mapping, the whole created bucket,
 * the same resources retained on delete and the same outputs. Each template on its own also holds
 * every permission AWS documents for its configuration, and nothing wider.
 */
class DeploymentParityTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldDeployTheSameGrantsMappingBucketAndOutputs(String name, Deployment d) {
    InfraModel cdk = InfraMatrix.model(InfraMatrix.cdkJson(d));
    InfraModel sam = InfraMatrix.model(InfraMatrix.samJson(d));
    assertThat(cdk.grants()).isNotEmpty();
    assertThat(cdk.mapping()).isNotEmpty();
    assertThat(InfraModel.differences(cdk, sam)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldGrantWhatAwsDocumentsInTheCdkApp(String name, Deployment d) {
    assertThat(InfraMatrix.problems(d, InfraMatrix.model(InfraMatrix.cdkJson(d)), "CDK")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldGrantWhatAwsDocumentsInTemplateYaml(String name, Deployment d) {
    assertThat(InfraMatrix.problems(d, InfraMatrix.model(InfraMatrix.samJson(d)), "SAM")).isEmpty();
  }
}
