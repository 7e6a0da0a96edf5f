package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** objectLockMode/objectLockDays: a write-once bucket (docs/deploy.md, Object Lock). */
class ObjectLockStackTest {
  static Template template;

  @BeforeAll
  static void synthesize() {
    template = Template.fromStack(Fixtures.stack(locked("GOVERNANCE", "365")));
  }

  static Map<String, Object> locked(String mode, String days) {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("objectLockMode", mode);
    c.put("objectLockDays", days);
    return c;
  }

  @Test
  void shouldCreateTheBucketWithObjectLockAndTheDefaultRetention() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "ObjectLockEnabled",
            true,
            "ObjectLockConfiguration",
            Map.of(
                "ObjectLockEnabled",
                "Enabled",
                "Rule",
                Map.of("DefaultRetention", Map.of("Mode", "GOVERNANCE", "Days", 365)))));
  }

  @Test
  void shouldKeepVersioningWhichTheLockNeeds() {
    template.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of("VersioningConfiguration", Map.of("Status", "Enabled"), "ObjectLockEnabled", true));
  }

  @Test
  void shouldRetainTheLockedBucketWithTheStack() {
    template.hasResource(
        "AWS::S3::Bucket", Map.of("DeletionPolicy", "Retain", "UpdateReplacePolicy", "Retain"));
  }

  @Test
  void shouldLetThePreflightReadTheLockOnTheBucketOnly() {
    assertThat(Templates.statements(template))
        .anySatisfy(
            s -> {
              assertThat(s.actions()).containsExactly("s3:GetBucketObjectLockConfiguration");
              assertThat(s.resources()).hasSize(1);
              assertThat(s.resources().get(0)).doesNotEndWith("/*");
            });
  }

  @Test
  void shouldSynthesizeComplianceMode() {
    Template compliance = Template.fromStack(Fixtures.stack(locked("COMPLIANCE", "2555")));
    compliance.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of(
            "ObjectLockConfiguration",
            Match.objectLike(
                Map.of(
                    "Rule",
                    Map.of("DefaultRetention", Map.of("Mode", "COMPLIANCE", "Days", 2555))))));
  }

  @Test
  void shouldLeaveTheBucketUnlockedByDefault() {
    Template plain = Template.fromStack(Fixtures.stack(Fixtures.mskDefaults()));
    plain.hasResourceProperties(
        "AWS::S3::Bucket",
        Map.of("ObjectLockEnabled", Match.absent(), "ObjectLockConfiguration", Match.absent()));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "WORM|30|objectLockMode='WORM' is not valid; legal values: GOVERNANCE, COMPLIANCE",
        "GOVERNANCE|0|objectLockDays=0 is out of range; legal values: 1..36500",
        "COMPLIANCE|36501|objectLockDays=36501 is out of range; legal values: 1..36500",
        "GOVERNANCE|a year|objectLockDays='a year' is not an integer",
      })
  void shouldRefuseAModeOrDaysOutsideTheLegalValues(String mode, String days, String message) {
    assertThatThrownBy(() -> ArchiverSettings.from(withLock(mode, days)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void shouldRefuseOneOfModeAndDaysWithoutTheOther() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("objectLockDays", "30");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("objectLockDays is set without objectLockMode")
        .hasMessageContaining("GOVERNANCE or COMPLIANCE");
  }

  @Test
  void shouldRefuseAnExpiryBeforeTheRetentionEnds() {
    Map<String, Object> c = withLock("COMPLIANCE", "365");
    c.put("expirationDays", "90");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("expirationDays=90 is shorter than objectLockDays=365")
        .hasMessageContaining("set expirationDays to 0 or to 365 or more");
  }

  @Test
  void shouldAcceptAnExpiryAtTheRetentionsEnd() {
    Map<String, Object> c = withLock("COMPLIANCE", "365");
    c.put("expirationDays", "365");
    assertThat(ArchiverSettings.from(c).objectLock())
        .contains(new ArchiverSettings.ObjectLock("COMPLIANCE", 365));
  }

  @Test
  void shouldRefuseTheLockOnAnImportedBucket() {
    Map<String, Object> c = withLock("GOVERNANCE", "30");
    c.put("bucketName", "existing-archive");
    c.put("createBucket", "false");
    assertThatThrownBy(() -> ArchiverSettings.from(c))
        .hasMessageContaining("objectLockMode is set but createBucket=false")
        .hasMessageContaining("put-object-lock-configuration");
  }

  private static Map<String, Object> withLock(String mode, String days) {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("objectLockMode", mode);
    c.put("objectLockDays", days);
    return c;
  }
}
