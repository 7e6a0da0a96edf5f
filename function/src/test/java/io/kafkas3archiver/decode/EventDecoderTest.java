package io.kafkas3archiver.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.KafkaEvent;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventDecoderTest {
  private final EventDecoder decoder = new EventDecoder(new ObjectMapper());

  static Path event(String name) {
    return Path.of("..", "events", name);
  }

  private Invocation decode(String json) throws IOException {
    return decoder.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
  }

  private Invocation.KafkaBatch decodeFile(String name) throws IOException {
    try (InputStream in = Files.newInputStream(event(name))) {
      return (Invocation.KafkaBatch) decoder.decode(in);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"msk-event.json", "self-managed-event.json"})
  void shouldDecodeTheSampleEventsLikeTheLambdaLibrarysKafkaEvent(String name) throws IOException {
    Invocation.KafkaBatch batch = decodeFile(name);
    KafkaEvent reference = EventLoader.loadKafkaEvent(event(name).toString());

    List<KafkaEvent.KafkaEventRecord> expected =
        reference.getRecords().values().stream().flatMap(List::stream).toList();
    assertThat(batch.rejected()).isEmpty();
    assertThat(batch.records()).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      KafkaEvent.KafkaEventRecord want = expected.get(i);
      KafkaRecord got = batch.records().get(i);
      assertThat(got.topic()).isEqualTo(want.getTopic());
      assertThat(got.partition()).isEqualTo(want.getPartition());
      assertThat(got.offset()).isEqualTo(want.getOffset());
      assertThat(got.timestamp()).isEqualTo(want.getTimestamp());
      assertThat(got.value())
          .isEqualTo(want.getValue() == null ? null : Base64.getDecoder().decode(want.getValue()));
      assertThat(got.headers()).hasSameSizeAs(want.getHeaders());
      for (int h = 0; h < got.headers().size(); h++) {
        var wantHeader = want.getHeaders().get(h).entrySet().iterator().next();
        assertThat(got.headers().get(h).name()).isEqualTo(wantHeader.getKey());
        assertThat(got.headers().get(h).value()).isEqualTo(wantHeader.getValue());
      }
    }
  }

  @Test
  void shouldKeepTheEventSourceAndFindTheTombstoneAndTwoPartitions() throws IOException {
    Invocation.KafkaBatch batch = decodeFile("msk-event.json");

    assertThat(batch.eventSource()).isEqualTo("aws:kafka");
    assertThat(batch.records()).filteredOn(KafkaRecord::isTombstone).hasSize(1);
    assertThat(batch.records()).extracting(KafkaRecord::partition).containsOnly(0, 1);
    assertThat(batch.records().get(0).headers().get(0).value())
        .isEqualTo("gateway-7".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void shouldRejectARecordWithInvalidBase64AndKeepItsRawJson() throws IOException {
    var batch =
        (Invocation.KafkaBatch)
            decode(
                """
                {"eventSource":"SelfManagedKafka","records":{"t-0":[
                  {"topic":"t","partition":0,"offset":1,"timestamp":5,"value":"eyJhIjoxfQ=="},
                  {"topic":"t","partition":0,"offset":2,"timestamp":6,"value":"not*base64!"}]}}""");

    assertThat(batch.records()).hasSize(1);
    assertThat(batch.rejected())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.offset()).isEqualTo(2L);
              assertThat(r.reason()).isEqualTo("the record's value is not valid base64");
              assertThat(r.rawRecordJson()).contains("not*base64!");
            });
    assertThat(batch.recordCount()).isEqualTo(2);
  }

  @Test
  void shouldTakeTopicAndPartitionFromTheMapKeyWhenTheRecordLacksThem() throws IOException {
    var batch =
        (Invocation.KafkaBatch)
            decode("{\"records\":{\"my-topic.v1-7\":[{\"offset\":3,\"value\":\"e30=\"}]}}");

    assertThat(batch.records())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.topic()).isEqualTo("my-topic.v1");
              assertThat(r.partition()).isEqualTo(7);
              assertThat(r.timestamp()).isEqualTo(-1L);
            });
  }

  @Test
  void shouldRejectARecordWithoutAnOffset() throws IOException {
    var batch =
        (Invocation.KafkaBatch)
            decode("{\"records\":{\"t-0\":[{\"topic\":\"t\",\"value\":\"e30=\"}]}}");

    assertThat(batch.rejected())
        .singleElement()
        .extracting(RejectedRecord::reason)
        .isEqualTo("the record has no offset");
  }

  @Test
  void shouldDecodeHeadersGivenAsBase64StringsOrSignedBytes() throws IOException {
    var batch =
        (Invocation.KafkaBatch)
            decode(
                "{\"records\":{\"t-0\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":null,"
                    + "\"headers\":[{\"a\":\"aGk=\"},{\"b\":[-1,104]},{\"c\":null}]}]}}");

    var headers = batch.records().get(0).headers();
    assertThat(headers.get(0).value()).isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
    assertThat(headers.get(1).value()).isEqualTo(new byte[] {-1, 104});
    assertThat(headers.get(2).value()).isNull();
    assertThat(batch.records().get(0).isTombstone()).isTrue();
  }

  @Test
  void shouldRecogniseThePreflightAction() throws IOException {
    assertThat(decode("{\"action\":\"preflight\"}"))
        .isInstanceOf(Invocation.PreflightRequest.class);
  }

  @Test
  void shouldRejectAnEventWithoutRecordsSayingWhatWasExpected() {
    assertThatThrownBy(() -> decode("{\"Records\":[{\"s3\":{}}]}"))
        .isInstanceOf(BadEventException.class)
        .hasMessageContaining("no \"records\" map");
  }

  @Test
  void shouldRejectInvalidJson() {
    assertThatThrownBy(() -> decode("{\"records\": {"))
        .isInstanceOf(BadEventException.class)
        .hasMessageStartingWith("the event is not valid JSON");
  }

  @Test
  void shouldAcceptAnEmptyRecordsMap() throws IOException {
    assertThat(((Invocation.KafkaBatch) decode("{\"records\":{}}")).recordCount()).isZero();
  }
}
