package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** cdk-nag's AwsSolutions pack over each supported shape of the stack. */
class NagTest {

  /** Seven shapes of the stack; the cfn-lint IT lints the same ones. */
  static Stream<Arguments> deployments() {
    Map<String, Object> kms = new LinkedHashMap<>(Fixtures.mskDefaults());
    kms.put("bucketEncryption", "kms");
    kms.put("sse", "aws:kms");
    kms.put("athena", "true");
    kms.put("alarmTopicArn", "arn:aws:sns:us-east-1:123456789012:ops");
    kms.put("tracing", "true");
    Map<String, Object> scram = new LinkedHashMap<>(Fixtures.mskDefaults());
    scram.put("mskAuth", "scram");
    scram.put("saslScramSecretArn", Fixtures.SCRAM_SECRET_ARN);
    scram.put("sourceSecretsKmsKeyArn", Fixtures.SECRETS_KEY_ARN);
    scram.put("onFailure", "s3");
    scram.put("onFailureBucketArn", "arn:aws:s3:::acme-failed-batches");
    scram.put("serverAccessLogsBucketName", "acme-access-logs");
    scram.put("accessKey", ArchiverSettingsTest.EXAMPLE_ACCESS_KEY);
    scram.put("secretKey", "example/secret/value/never/in/template");
    Map<String, Object> parquet = new LinkedHashMap<>(Fixtures.selfManaged());
    parquet.put("outputFormat", "parquet");
    parquet.put("athena", "true");
    parquet.put("parquetSchema", "{\"vehicleid\":\"string\",\"speedkmh\":\"double\"}");
    parquet.put("provisionedPollers", "true");
    Map<String, Object> iceberg = new LinkedHashMap<>(Fixtures.mskDefaults());
    iceberg.put("outputFormat", "iceberg");
    iceberg.put("bucketEncryption", "kms");
    iceberg.put("alarmTopicArn", "arn:aws:sns:us-east-1:123456789012:ops");
    Map<String, Object> s3tables = new LinkedHashMap<>(S3TablesStackTest.s3tablesContext());
    s3tables.put("bucketEncryption", "kms");
    return Stream.of(
        Arguments.of("msk-iam-created-bucket", Fixtures.mskDefaults()),
        Arguments.of("msk-iceberg-glue-kms-alarm-topic", iceberg),
        Arguments.of("msk-iceberg-s3tables-created-table-bucket-kms", s3tables),
        Arguments.of("msk-kms-athena-alarm-topic-tracing", kms),
        Arguments.of("msk-scram-s3-on-failure-static-keys", scram),
        Arguments.of("self-managed-imported-bucket", Fixtures.selfManaged()),
        Arguments.of("self-managed-provisioned-parquet", parquet),
        Arguments.of("msk-restore-state-machine", RestoreStackTest.restoreContext()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldHaveNoUnsuppressedAwsSolutionsErrors(String name, Map<String, Object> context) {
    ArchiverStack stack = Fixtures.stack(context);
    Template.fromStack(stack);
    // Throws, listing every finding, when an unsuppressed AwsSolutions error exists.
    Annotations.fromStack(stack).hasNoError("*", Match.stringLikeRegexp("AwsSolutions-.*"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldHaveNoUnsuppressedAwsSolutionsWarnings(String name, Map<String, Object> context) {
    ArchiverStack stack = Fixtures.stack(context);
    Template.fromStack(stack);
    Annotations.fromStack(stack).hasNoWarning("*", Match.stringLikeRegexp("AwsSolutions-.*"));
  }

  /**
   * Every configuration docs/ describes (each authentication, registry, on-failure target, Iceberg
   * catalog, the restore, lifecycle tiers): InfraMatrix's, synthesized with cdk-nag. The same
   * configurations are cfn-linted in CfnLintIT.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldSynthesizeEveryDocumentedConfigurationWithNoUnsuppressedFinding(
      String name, InfraMatrix.Deployment d) {
    Map<String, Object> context = new LinkedHashMap<>(d.cdk());
    ArchiverStack stack = Fixtures.stack(context);
    Template.fromStack(stack);
    Annotations.fromStack(stack).hasNoError("*", Match.stringLikeRegexp("AwsSolutions-.*"));
    Annotations.fromStack(stack).hasNoWarning("*", Match.stringLikeRegexp("AwsSolutions-.*"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldGiveEverySuppressionAWrittenReason(String name, Map<String, Object> context) {
    Template template = Template.fromStack(Fixtures.stack(context));
    List<String> reasons = new ArrayList<>();
    for (Object r : Templates.resources(template).values()) {
      Map<String, Object> metadata = Templates.cast(Templates.cast(r).get("Metadata"));
      if (metadata == null || metadata.get("cdk_nag") == null) {
        continue;
      }
      for (Object rule :
          (List<?>) Templates.cast(metadata.get("cdk_nag")).get("rules_to_suppress")) {
        reasons.add(String.valueOf(Templates.cast(rule).get("reason")));
      }
    }
    assertThat(reasons)
        .isNotEmpty()
        .allSatisfy(reason -> assertThat(reason).hasSizeGreaterThan(40));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldNarrowEveryWildcardSuppressionWithAppliesTo(String name, Map<String, Object> context) {
    Template template = Template.fromStack(Fixtures.stack(context));
    List<Object> iam5 = new ArrayList<>();
    for (Object r : Templates.resources(template).values()) {
      Map<String, Object> metadata = Templates.cast(Templates.cast(r).get("Metadata"));
      if (metadata == null || metadata.get("cdk_nag") == null) {
        continue;
      }
      for (Object rule :
          (List<?>) Templates.cast(metadata.get("cdk_nag")).get("rules_to_suppress")) {
        if ("AwsSolutions-IAM5".equals(Templates.cast(rule).get("id"))) {
          iam5.add(rule);
        }
      }
    }
    assertThat(iam5)
        .isNotEmpty()
        .allSatisfy(
            rule -> assertThat((List<?>) Templates.cast(rule).get("applies_to")).isNotEmpty());
  }
}
