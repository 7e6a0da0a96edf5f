package io.kafkas3archiver.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * A failed local run ends with its message alone: nothing Maven prints after exec:java closed the
 * class loader may need an SDK class (a missing bucket used to end in a NoClassDefFoundError dump).
 */
class LocalRunFailureTest {
  @Test
  void shouldCarryTheMessageAndNothingThatNeedsTheSdkLater() {
    NoSuchBucketException sdk =
        NoSuchBucketException.builder().message("bucket 'b' does not exist").build();

    IllegalStateException plain =
        LocalRun.plain(new IllegalStateException("NoSuchBucket: advice", sdk));

    assertThat(plain).hasMessage("NoSuchBucket: advice").hasNoCause();
    assertThat(plain.getStackTrace()).isEmpty();
    assertThat(plain.getClass().getClassLoader()).isNull(); // java.base: always loadable
  }
}
