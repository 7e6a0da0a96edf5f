package io.kafkas3archiver.preflight;

import java.util.Optional;
import software.amazon.awssdk.services.s3.model.DefaultRetention;
import software.amazon.awssdk.services.s3.model.ObjectLockConfiguration;
import software.amazon.awssdk.services.s3.model.ObjectLockEnabled;

/**
 * A bucket's S3 Object Lock, as GetObjectLockConfiguration reports it: whether it is on, and the
 * default retention every new object version gets (a mode and a period), if one is set. With the
 * lock on, no version can be deleted before its retention ends (GOVERNANCE: except by a principal
 * with s3:BypassGovernanceRetention; COMPLIANCE: by nobody, root included), so the preflight leaves
 * its probe in place instead of deleting it.
 *
 * @param mode GOVERNANCE or COMPLIANCE; empty when the bucket has no default retention
 * @param period the default retention, e.g. "365 days" or "7 years"; empty with the mode
 */
record BucketLock(Optional<String> mode, Optional<String> period) {

  /** The lock a GetObjectLockConfiguration answer describes, if it is enabled. */
  static Optional<BucketLock> of(ObjectLockConfiguration configuration) {
    if (configuration == null || configuration.objectLockEnabled() != ObjectLockEnabled.ENABLED) {
      return Optional.empty();
    }
    DefaultRetention retention =
        configuration.rule() == null ? null : configuration.rule().defaultRetention();
    if (retention == null || retention.mode() == null) {
      return Optional.of(new BucketLock(Optional.empty(), Optional.empty()));
    }
    String period =
        retention.days() != null
            ? retention.days() + (retention.days() == 1 ? " day" : " days")
            : retention.years() != null
                ? retention.years() + (retention.years() == 1 ? " year" : " years")
                : null;
    return Optional.of(
        new BucketLock(Optional.of(retention.modeAsString()), Optional.ofNullable(period)));
  }

  /** "Object Lock (GOVERNANCE, 365 days)" or "Object Lock (no default retention)". */
  String describe() {
    return mode.map(m -> "Object Lock (" + m + period.map(p -> ", " + p).orElse("") + ")")
        .orElse("Object Lock (no default retention)");
  }
}
