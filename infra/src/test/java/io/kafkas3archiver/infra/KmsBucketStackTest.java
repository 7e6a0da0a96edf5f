package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** A created bucket under a KMS key the stack creates, with tuned lifecycle and alarm actions. */
class KmsBucketStackTest {
  static Template template;
  static List<Templates.Statement> policies;

  @BeforeAll
  static void synthesize() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("bucketEncryption", "kms");
    c.put("sse", "aws:kms");
    c.put("transitionDays", "90");
    c.put("transitionStorageClass", "DEEP_ARCHIVE");
    c.put("allowArchiveStorageClasses", "true");
    c.put("expirationDays", "2555");
    c.put("serverAccessLogsBucketName", "acme-access-logs");
    c.put("alarmTopicArn", "arn:aws:sns:us-east-1:123456789012:ops");
    template = Template.fromStack(Fixtures.stack(c));
    policies = Templates.statements(template);
  }

  @Test
  void shouldCreateARotatedKey() {
    template.hasResourceProperties("AWS::KMS::Key", Map.of("EnableKeyRotation", true));
  }

  @Test
  void shouldEncryptTheBucketWithThatKey() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "BucketEncryption",
            Map.of(
                "ServerSideEncryptionConfiguration",
                List.of(
                    Match.objectLike(
                        Map.of(
                            "BucketKeyEnabled",
                            true,
                            "ServerSideEncryptionByDefault",
                            Map.of(
                                "SSEAlgorithm",
                                "aws:kms",
                                "KMSMasterKeyID",
                                Map.of(
                                    "Fn::GetAtt",
                                    List.of(Match.stringLikeRegexp("ArchiveKey.*"), "Arn")))))))));
  }

  @Test
  void shouldGrantKmsOnlyOnThatKey() {
    assertThat(Templates.resourcesFor(policies, "kms:GenerateDataKey"))
        .containsExactly("${ArchiveKey.Arn}");
  }

  @Test
  void shouldPassTheKeyToTheFunctionForSseKms() {
    assertThat(Templates.environment(template))
        .containsEntry("SSE", "aws:kms")
        .containsEntry("KMS_KEY_ID", "${ArchiveKey.Arn}");
  }

  @Test
  void shouldTransitionAndExpireAsConfigured() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "LifecycleConfiguration",
            Map.of(
                "Rules",
                Match.arrayWith(
                    List.of(
                        Match.objectLike(
                            Map.of(
                                "Id",
                                "ArchiveTiering",
                                "Transitions",
                                List.of(
                                    Map.of(
                                        "StorageClass", "DEEP_ARCHIVE", "TransitionInDays", 90)))),
                        Match.objectLike(
                            Map.of("Id", "ArchiveExpiration", "ExpirationInDays", 2555)))))));
  }

  @Test
  void shouldLogServerAccessToTheNamedBucket() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "LoggingConfiguration",
            Map.of(
                "DestinationBucketName",
                "acme-access-logs",
                "LogFilePrefix",
                "s3-access/S3_Event_Archive_Prod/")));
  }

  @Test
  void shouldNotifyTheAlarmTopic() {
    template.hasResourceProperties(
        "AWS::CloudWatch::Alarm",
        Map.of(
            "MetricName",
            "OffsetLag",
            "AlarmActions",
            List.of("arn:aws:sns:us-east-1:123456789012:ops"),
            "OKActions",
            List.of("arn:aws:sns:us-east-1:123456789012:ops")));
  }
}
