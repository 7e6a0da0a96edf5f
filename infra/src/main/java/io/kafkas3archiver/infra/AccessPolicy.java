package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Aws;
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
    // GetObject covers HeadObject, which the exactly-once path uses to read an existing object's
    // offset range after a 412; it never needs kms:Decrypt (metadata only).
    statements.add(
        allow(
            "WriteArchiveAndErrorObjects",
            List.of("s3:PutObject", "s3:GetObject"),
            List.of(
                bucketArn + "/" + keyPrefix + "/" + topic + "/*",
                bucketArn + "/" + keyPrefix + "/_errors/" + topic + "/*")));
    statements.add(
        allow(
            "PreflightProbe",
            List.of("s3:PutObject", "s3:DeleteObject"),
            List.of(bucketArn + "/" + keyPrefix + "/_preflight/*")));
    // Preflight lists only its probe prefix (ListObjectsV2 prefix=<KEY_PREFIX>/_preflight/).
    statements.add(
        PolicyStatement.Builder.create()
            .sid("PreflightListProbePrefix")
            .effect(Effect.ALLOW)
            .actions(List.of("s3:ListBucket"))
            .resources(List.of(bucketArn))
            .conditions(
                Map.of("StringLike", Map.of("s3:prefix", List.of(keyPrefix + "/_preflight/*"))))
            .build());
    statements.add(
        allow("PreflightBucketLocation", List.of("s3:GetBucketLocation"), List.of(bucketArn)));
    // Preflight asks whether the bucket has Object Lock: on a locked bucket it keeps its probe
    // instead of deleting it. Any bucket, created or imported, may be locked.
    statements.add(
        allow(
            "PreflightObjectLock",
            List.of("s3:GetBucketObjectLockConfiguration"),
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
                    // Single-part PutObject needs GenerateDataKey only. kms:Decrypt would be
                    // needed by multipart uploads and GetObject, which the function never does.
                    .actions(List.of("kms:GenerateDataKey"))
                    .resources(List.of(arn))
                    .conditions(
                        Map.of(
                            "StringEquals",
                            // The partition's DNS suffix: amazonaws.com.cn in aws-cn.
                            Map.of("kms:ViaService", "s3." + bucketRegion + "." + Aws.URL_SUFFIX)))
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
