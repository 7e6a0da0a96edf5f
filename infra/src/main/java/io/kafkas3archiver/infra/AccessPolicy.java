package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;

/**
 * The function's own data-path permissions (DESIGN §3, §5): what the archiver calls, on exactly the
 * keys it writes. Kept apart from the event source mapping's permissions so the SAM parity test
 * compares like with like.
 */
final class AccessPolicy {
  private AccessPolicy() {}

  /**
   * @param bucketArn the archive bucket's ARN (a token is fine)
   * @param keyPrefix KEY_PREFIX
   * @param topic INPUT_TOPIC
   * @param credentialsSecretArn CREDENTIALS_SECRET_ARN, if any
   * @param roleArn ROLE_ARN, if any
   * @param kmsKeyArn the key objects are encrypted with, if any
   * @param bucketRegion the region S3 calls go to, for the KMS ViaService condition
   */
  static List<PolicyStatement> statements(
      String bucketArn,
      String keyPrefix,
      String topic,
      Optional<String> credentialsSecretArn,
      Optional<String> roleArn,
      Optional<String> kmsKeyArn,
      String bucketRegion) {
    List<PolicyStatement> statements = new ArrayList<>();
    statements.add(
        allow(
            "WriteArchiveAndErrorObjects",
            List.of("s3:PutObject"),
            List.of(
                bucketArn + "/" + keyPrefix + "/" + topic + "/*",
                bucketArn + "/" + keyPrefix + "/_errors/" + topic + "/*")));
    // HeadObject, only after a conditional write met an existing object (412): the archiver reads
    // that object's offset range from its metadata, and checks that its error object exists
    // (exactly-once, DESIGN §3).
    statements.add(
        allow(
            "ReadArchivedOffsetRanges",
            List.of("s3:GetObject"),
            List.of(
                bucketArn + "/" + keyPrefix + "/" + topic + "/*",
                bucketArn + "/" + keyPrefix + "/_errors/" + topic + "/*")));
    statements.add(
        allow(
            "PreflightProbe",
            List.of("s3:PutObject", "s3:DeleteObject"),
            List.of(bucketArn + "/" + keyPrefix + "/_preflight/*")));
    statements.add(
        allow(
            "PreflightBucketChecks",
            List.of("s3:ListBucket", "s3:GetBucketLocation"),
            List.of(bucketArn)));
    credentialsSecretArn.ifPresent(
        arn ->
            statements.add(
                allow(
                    "ReadCredentialsSecret",
                    List.of("secretsmanager:GetSecretValue"),
                    List.of(arn))));
    roleArn.ifPresent(
        arn -> statements.add(allow("AssumeArchiveRole", List.of("sts:AssumeRole"), List.of(arn))));
    kmsKeyArn.ifPresent(
        arn ->
            statements.add(
                PolicyStatement.Builder.create()
                    .sid("EncryptArchiveObjects")
                    .effect(Effect.ALLOW)
                    // GenerateDataKey for PutObject; Decrypt for multipart uploads of large
                    // objects.
                    .actions(List.of("kms:GenerateDataKey", "kms:Decrypt"))
                    .resources(List.of(arn))
                    .conditions(
                        Map.of(
                            "StringEquals",
                            Map.of("kms:ViaService", "s3." + bucketRegion + ".amazonaws.com")))
                    .build()));
    return statements;
  }

  static PolicyStatement allow(String sid, List<String> actions, List<String> resources) {
    return PolicyStatement.Builder.create()
        .sid(sid)
        .effect(Effect.ALLOW)
        .actions(actions)
        .resources(resources)
        .build();
  }
}
