package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.infra.InfraMatrix.Deployment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * template.yaml's Rules and parameter constraints, evaluated as CloudFormation would before it
 * creates anything ({@link SamTemplate#refusals}): neither cfn-lint nor moto evaluates Rules with
 * parameter values, so without this a Rule could be dropped or inverted unnoticed. Each case is
 * given once, in the CDK app's keys, and both the CDK app and template.yaml must agree on it: what
 * the CDK app refuses at synth, a named Rule refuses in template.yaml, and what one accepts the
 * other accepts.
 */
class SamRulesTest {

  /** A configuration, and the Rule that must refuse it in template.yaml (null: accepted). */
  record Case(String name, Deployment d, String rule) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> cases() {
    Deployment restore =
        InfraMatrix.all().stream()
            .filter(d -> d.name().equals("msk-iam-restore-state-machine"))
            .findFirst()
            .orElseThrow();
    Map<String, String> valuesOnly = new LinkedHashMap<>(restore.cdk());
    valuesOnly.remove("includeKafkaMetadata");
    String stall = "NoDestinationMeansStallNotSkip";
    String archive = "ArchiveStorageClassesOnlyWhenAllowed";
    String ia = "StandardIaAfterThirtyDays";
    return Stream.of(
            msk("no destination with the default 10 retries", stall, "onFailure", "none"),
            msk(
                "no destination with a record age limit",
                stall,
                "onFailure",
                "none",
                "retryAttempts",
                "-1",
                "maximumRecordAgeSeconds",
                "3600"),
            msk(
                "no destination, stall rather than skip",
                null,
                "onFailure",
                "none",
                "retryAttempts",
                "-1"),
            new Case(
                "restore of a values-only archive",
                new Deployment("restore-values-only", valuesOnly),
                "RestoreNeedsKafkaMetadata"),
            new Case("restore with the Kafka metadata", restore, null),
            msk("GLACIER without the flag", archive, "transitionStorageClass", "GLACIER"),
            msk("DEEP_ARCHIVE without the flag", archive, "transitionStorageClass", "DEEP_ARCHIVE"),
            msk(
                "GLACIER with the flag",
                null,
                "transitionStorageClass",
                "GLACIER",
                "allowArchiveStorageClasses",
                "true"),
            msk(
                "DEEP_ARCHIVE as the second tier without the flag",
                archive,
                "secondTransitionDays",
                "180",
                "secondTransitionStorageClass",
                "DEEP_ARCHIVE"),
            msk(
                "DEEP_ARCHIVE as the second tier with the flag",
                null,
                "secondTransitionDays",
                "180",
                "secondTransitionStorageClass",
                "DEEP_ARCHIVE",
                "allowArchiveStorageClasses",
                "true"),
            msk(
                "STANDARD_IA after 29 days",
                ia,
                "transitionStorageClass",
                "STANDARD_IA",
                "transitionDays",
                "29"),
            msk(
                "STANDARD_IA after 1 day",
                ia,
                "transitionStorageClass",
                "STANDARD_IA",
                "transitionDays",
                "1"),
            msk(
                "STANDARD_IA after 30 days",
                null,
                "transitionStorageClass",
                "STANDARD_IA",
                "transitionDays",
                "30"))
        .map(c -> Arguments.of(c.name(), c));
  }

  private static Case msk(String name, String rule, String... keyValues) {
    String[] all = new String[keyValues.length + 2];
    all[0] = "clusterArn";
    all[1] = Fixtures.CLUSTER_ARN;
    System.arraycopy(keyValues, 0, all, 2, keyValues.length);
    return new Case(name, InfraMatrix.deployment(name.replace(' ', '-'), all), rule);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void shouldRefuseInTemplateYamlWhatTheCdkAppRefuses(String name, Case c) throws Exception {
    List<String> refusals = new SamTemplate(InfraMatrix.TEMPLATE, c.d().sam()).refusals();
    if (c.rule() == null) {
      assertThat(refusals).isEmpty();
      assertThatCode(() -> Fixtures.stack(new LinkedHashMap<>(c.d().cdk())))
          .doesNotThrowAnyException();
    } else {
      assertThat(refusals).isNotEmpty().allMatch(r -> r.startsWith(c.rule() + ": "));
      assertThatThrownBy(() -> Fixtures.stack(new LinkedHashMap<>(c.d().cdk())))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** Every configuration the parity tests compare passes template.yaml's Rules and constraints. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldAcceptEveryMatrixConfiguration(String name, Deployment d) throws Exception {
    assertThat(new SamTemplate(InfraMatrix.TEMPLATE, d.sam()).refusals()).isEmpty();
  }
}
