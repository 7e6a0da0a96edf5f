package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.remote.ErrorType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A body cut or corrupted in transit is refused with a 400 whose code names a digest or length
 * mismatch. The next attempt sends the same bytes again, so it must be retried, not failed as a bad
 * request (FaultInjectionIT shows the whole path end to end).
 */
class TransitCorruptionRetryTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "BadDigest",
        "XAmzContentSHA256Mismatch",
        "XAmzContentChecksumMismatch",
        "IncompleteBody"
      })
  void shouldRetryABodyThatArrivedDamaged(String code) {
    S3Exception refused =
        (S3Exception)
            S3Exception.builder()
                .statusCode(400)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build())
                .build();

    ErrorType type = ErrorClassifier.type(refused);

    assertThat(type).isEqualTo(ErrorType.SERVER_ERROR);
    assertThat(type.retryable()).isTrue();
  }
}
