package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * template.yaml's ObjectLockMode/ObjectLockDays: the bucket it creates, and the Rules that refuse a
 * mode without days (or days without a mode) and a lock on an imported bucket, as CloudFormation
 * would before creating anything. The parameters' own AllowedValues, MinValue and MaxValue are
 * checked by CloudFormation itself and by cfn-lint.
 */
class SamObjectLockTest {

  @Test
  void shouldCreateALockedBucketWithTheDefaultRetention() throws Exception {
    SamTemplate sam = sam(Map.of("ObjectLockMode", "GOVERNANCE", "ObjectLockDays", "30"));

    assertThat(sam.brokenRules()).isEmpty();
    Map<String, Object> bucket =
        Templates.cast(Templates.cast(sam.resources().get("ArchiveBucket")).get("Properties"));
    assertThat(String.valueOf(bucket.get("ObjectLockEnabled"))).isEqualTo("true");
    assertThat(String.valueOf(InfraModel.normalize(bucket.get("ObjectLockConfiguration"))))
        .isEqualTo(
            "{ObjectLockEnabled=Enabled, Rule={DefaultRetention={Days=30, Mode=GOVERNANCE}}}");
  }

  @Test
  void shouldLeaveTheBucketUnlockedByDefault() throws Exception {
    SamTemplate sam = sam(Map.of());

    assertThat(sam.brokenRules()).isEmpty();
    Map<String, Object> bucket =
        Templates.cast(Templates.cast(sam.resources().get("ArchiveBucket")).get("Properties"));
    assertThat(bucket).doesNotContainKeys("ObjectLockEnabled", "ObjectLockConfiguration");
  }

  @Test
  void shouldRefuseAModeWithoutDaysAndDaysWithoutAMode() throws Exception {
    for (Map<String, String> half :
        List.of(Map.of("ObjectLockMode", "COMPLIANCE"), Map.of("ObjectLockDays", "30"))) {
      assertThat(sam(half).brokenRules())
          .as("%s", half)
          .containsExactly(
              "ObjectLockNeedsModeAndDays: ObjectLockMode (GOVERNANCE or COMPLIANCE) and"
                  + " ObjectLockDays (1..36500) go together, or neither.");
    }
  }

  @Test
  void shouldRefuseTheLockOnAnImportedBucket() throws Exception {
    SamTemplate sam =
        sam(
            Map.of(
                "ObjectLockMode", "GOVERNANCE", "ObjectLockDays", "30", "CreateBucket", "false"));

    assertThat(sam.brokenRules())
        .singleElement()
        .asString()
        .startsWith("ObjectLockNeedsCreatedBucket: ObjectLockMode configures the bucket this stack")
        .contains("put-object-lock-configuration");
  }

  private static SamTemplate sam(Map<String, String> lock) throws Exception {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("BucketName", InfraMatrix.BUCKET);
    p.put("InputTopic", "vehicle-telemetry");
    p.put("ClusterArn", Fixtures.CLUSTER_ARN);
    p.putAll(lock);
    return new SamTemplate(InfraMatrix.TEMPLATE, p);
  }
}
