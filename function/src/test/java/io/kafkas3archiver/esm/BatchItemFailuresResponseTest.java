package io.kafkas3archiver.esm;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.esm.EventSourceEmulator.Outcome;
import io.kafkas3archiver.esm.EventSourceEmulator.Range;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How the emulator reads a ReportBatchItemFailures response, as the mapping does. */
class BatchItemFailuresResponseTest {
  private static final Map<String, Range> BATCH =
      Map.of("t-0", new Range(10, 19), "t-1", new Range(5, 9));

  private static String failure(String tp, long offset) {
    return "{\"itemIdentifier\":{\"topic-partition\":\"" + tp + "\",\"offset\":" + offset + "}}";
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "null", "{}", "{\"batchItemFailures\":[]}", "{\"batchItemFailures\":null}"})
  void shouldTreatAnEmptyResponseAsSuccess(String body) {
    assertThat(EventSourceEmulator.parseResponse(body, BATCH))
        .isInstanceOf(Outcome.Succeeded.class);
  }

  @Test
  void shouldReportEachFailedPartitionFromItsLowestOffset() {
    String body = "{\"batchItemFailures\":[" + failure("t-1", 7) + "," + failure("t-1", 6) + "]}";

    assertThat(EventSourceEmulator.parseResponse(body, BATCH))
        .isEqualTo(new Outcome.PartiallyFailed(Map.of("t-1", 6L)));
  }

  @Test
  void shouldFailTheWholeBatchOnAnOffsetOutsideIt() {
    String body = "{\"batchItemFailures\":[" + failure("t-0", 20) + "]}";

    assertThat(EventSourceEmulator.parseResponse(body, BATCH)).isInstanceOf(Outcome.Failed.class);
  }

  @Test
  void shouldFailTheWholeBatchOnAPartitionNotInIt() {
    String body = "{\"batchItemFailures\":[" + failure("t-2", 10) + "]}";

    assertThat(EventSourceEmulator.parseResponse(body, BATCH)).isInstanceOf(Outcome.Failed.class);
  }

  @Test
  void shouldFailTheWholeBatchOnAResponseThatIsNotJson() {
    assertThat(EventSourceEmulator.parseResponse("OK", BATCH)).isInstanceOf(Outcome.Failed.class);
  }
}
