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
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
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
  void shouldKeepTheSchemaRegistryMetadataOfTheMappingsConvertedRecords() throws IOException {
    // AWS Lambda developer guide, "Using schema registries with Kafka event sources in Lambda"
    Invocation.KafkaBatch batch = decodeFile("msk-schema-registry-event.json");

    assertThat(batch.rejected()).isEmpty();
    assertThat(batch.records())
        .hasSize(3)
        .allSatisfy(
            r -> {
              assertThat(r.keySchema())
                  .isEqualTo(new SchemaMetadata("JSON", "b7c8d9e0-1111-2222-3333-444455556666"));
              assertThat(r.valueSchema())
                  .isEqualTo(new SchemaMetadata("AVRO", "a1b2c3d4-5678-90ab-cdef-0123456789ab"));
            });
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
  void shouldRecogniseTheMaintainActionAndNameBothWhenTheActionIsUnknown() throws IOException {
    assertThat(decode("{\"action\":\"maintain\"}")).isInstanceOf(Invocation.MaintainRequest.class);
    assertThatThrownBy(() -> decode("{\"action\":\"compact\"}"))
        .isInstanceOf(BadEventException.class)
        .hasMessageContaining("\"preflight\" and \"maintain\"");
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

  /** Every field, byte arrays by content, so two decodings can be compared as text. */
  private static String describe(Invocation.KafkaBatch batch) {
    StringBuilder out = new StringBuilder();
    for (KafkaRecord r : batch.records()) {
      out.append(describe(r)).append('\n');
    }
    for (RejectedRecord r : batch.rejected()) {
      out.append("rejected ")
          .append(List.of(r.topic(), String.valueOf(r.partition()), String.valueOf(r.offset())))
          .append(' ')
          .append(r.timestamp())
          .append(' ')
          .append(r.reason())
          .append(' ')
          .append(r.record() == null ? "-" : describe(r.record()))
          .append(' ')
          .append(r.rawRecordJson())
          .append('\n');
    }
    return out.toString();
  }

  private static String describe(KafkaRecord r) {
    StringBuilder h = new StringBuilder();
    r.headers()
        .forEach(
            x -> h.append(x.name()).append('=').append(Arrays.toString(x.value())).append(';'));
    return String.join(
        "|",
        r.topic(),
        String.valueOf(r.partition()),
        String.valueOf(r.offset()),
        String.valueOf(r.timestamp()),
        r.timestampType(),
        Arrays.toString(r.key()),
        Arrays.toString(r.value()),
        h,
        String.valueOf(r.keySchema()),
        String.valueOf(r.valueSchema()));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"topic\":\"t\",\"partition\":0,\"offset\":-5,\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":99999999999999999999999}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":7.5,\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":\"7\",\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":true}"
      })
  void shouldRefuseTheEventWhenAnOffsetIsNegativeOrNotAWholeNumber(String record) {
    // Given a record whose offset no redelivery could name, between two ordinary ones
    String ok = "{\"topic\":\"t\",\"partition\":0,\"offset\":9,\"value\":\"e30=\"}";
    String event = "{\"records\":{\"t-0\":[" + ok + "," + record + "," + ok + "]}}";

    // When it is decoded by either path, Then the whole event is malformed (DESIGN §1)
    assertThatThrownBy(() -> decode(event))
        .isInstanceOf(BadEventException.class)
        .hasMessageContaining("\"offset\"");
    assertThatThrownBy(
            () ->
                EventDecoder.treeOnly()
                    .decode(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(BadEventException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"timestamp\":5,\"timestampType\":\"CREATE_TIME\","
            + "\"key\":\"aw==\",\"value\":\"eyJhIjoxfQ==\",\"headers\":[{\"s\":[103,119]}]}",
        "{\"offset\":1}",
        "{\"partition\":0}",
        "{\"topic\":\"t\",\"partition\":1.0,\"offset\":1,\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":\"2\",\"offset\":1,\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":3000000000,\"offset\":1}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"timestamp\":null,\"timestampType\":null}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"timestamp\":\"5\",\"timestampType\":7}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"timestamp\":1.5e3,\"timestampType\":{}}",
        "{\"topic\":7,\"partition\":0,\"offset\":1}",
        "{\"topic\":null,\"partition\":0,\"offset\":1,\"key\":null,\"value\":null,\"headers\":null}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":\"not*base64!\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":\"e30\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":\"e3\u00e90=\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":\"\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":12}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"key\":[1,2]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":\"bad!\",\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"offset\":2,\"partition\":5}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":\"aGk=\"},{\"b\":[-1,104]},{\"c\":null}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":[1],\"b\":[2],\"a\":[3]}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":[256]}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":[1.0]}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":\"**\"}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":{}}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[[1]]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":{\"a\":[1]}}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"headers\":[{\"a\":[]}]}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"extra\":{\"deep\":[{\"x\":[1,{\"y\":null}]}]},"
            + "\"valueSchemaMetadata\":{\"schemaId\":\"1\",\"dataFormat\":\"AVRO\"},\"value\":\"e30=\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"value\":\"e30=\","
            + "\"keySchemaMetadata\":{\"dataFormat\":\"JSON\",\"schemaId\":\"k-1\"},"
            + "\"valueSchemaMetadata\":{\"dataFormat\":\"PROTOBUF\",\"schemaId\":\"42\",\"x\":[1]}}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"valueSchemaMetadata\":null}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"valueSchemaMetadata\":{\"dataFormat\":\"AVRO\"}}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"valueSchemaMetadata\":\"AVRO\"}",
        "{\"topic\":\"t\",\"partition\":0,\"offset\":1,\"keySchemaMetadata\":{\"schemaId\":7,\"dataFormat\":\"AVRO\"}}",
        "{ \"topic\" : \"t\" ,\n \"partition\" : 0 , \"offset\" : 1 ,\r\n\t\"value\" : \"not*base64\" }",
        "\"a string\"",
        "[1,2]",
        "null",
        "{}"
      })
  void shouldDecodeEveryRecordExactlyAsTheTreePathDoes(String record) throws IOException {
    // Given the record in a batch between two ordinary ones, in two partitions
    String ok = "{\"topic\":\"t\",\"partition\":0,\"offset\":9,\"value\":\"e30=\"}";
    String event =
        "{\"records\":{\"t-0\":[" + ok + "," + record + "," + ok + "],\"u-1\":[" + record + "]}}";

    // When it is decoded by the shipped decoder and by the tree-only reference
    var fast = (Invocation.KafkaBatch) decode(event);
    var tree =
        (Invocation.KafkaBatch)
            EventDecoder.treeOnly()
                .decode(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)));

    // Then the records, the rejections, their reasons and raw JSON are identical
    assertThat(describe(fast)).isEqualTo(describe(tree));
    assertThat(fast.recordCount()).isEqualTo(4);
  }

  @Test
  void shouldCutALateRejectedRecordOutOfALargeEventExactly() throws IOException {
    // Given many records, so the parser refills its buffer many times before the bad one
    StringBuilder event = new StringBuilder("{\"records\":{\"t-0\":[");
    for (int i = 0; i < 5_000; i++) {
      event.append(i == 0 ? "" : ",");
      event.append("{\"topic\":\"t\",\"partition\":0,\"offset\":").append(i);
      event.append(",\"value\":\"").append(i == 4_321 ? "bad!" : "eyJhIjoxfQ==").append("\"}");
    }
    event.append("]}}");

    // When it is decoded with and without the fast path
    var fast = (Invocation.KafkaBatch) decode(event.toString());
    var tree =
        (Invocation.KafkaBatch)
            EventDecoder.treeOnly()
                .decode(
                    new ByteArrayInputStream(event.toString().getBytes(StandardCharsets.UTF_8)));

    // Then the one bad record is rejected with its exact JSON, and the rest decode the same
    assertThat(fast.rejected())
        .singleElement()
        .extracting(RejectedRecord::rawRecordJson)
        .isEqualTo("{\"topic\":\"t\",\"partition\":0,\"offset\":4321,\"value\":\"bad!\"}");
    assertThat(describe(fast)).isEqualTo(describe(tree));
  }

  @Test
  void shouldDecodeARandomEventReadInPiecesExactlyAsTheTreePathDoes() throws IOException {
    // Given records of random sizes, some values not in the usual base64 form, and a stream that
    // hands the parser a few bytes at a time, so values cross its buffer at every position
    long seed = Long.getLong("eventDecoder.seed", System.nanoTime());
    System.out.println("EventDecoderTest seed " + seed + " (-DeventDecoder.seed=" + seed + ")");
    Random random = new Random(seed);
    String[] unusual = {
      "e30", "e30=\\n", "\\u0065\\u0033\\u0030\\u003d", "e 30=", "e30==", "\u00e930=", "e3\\/="
    };
    StringBuilder event = new StringBuilder("{\"records\":{\"t-0\":[");
    for (int i = 0; i < 2_000; i++) {
      byte[] bytes = new byte[random.nextInt(random.nextInt(10) == 0 ? 3_000 : 60)];
      random.nextBytes(bytes);
      String value =
          random.nextInt(20) == 0
              ? unusual[random.nextInt(unusual.length)]
              : Base64.getEncoder().encodeToString(bytes);
      event.append(i == 0 ? "" : ",");
      event.append("{\"topic\":\"t\",\"partition\":0,\"offset\":").append(i);
      event.append(",\"key\":\"").append(random.nextBoolean() ? "aw==" : "a w==");
      event.append("\",\"value\":\"").append(value).append("\"}");
    }
    event.append("]}}");
    byte[] json = event.toString().getBytes(StandardCharsets.UTF_8);

    // When it is decoded by the shipped decoder, in pieces, and by the tree-only reference
    var fast =
        (Invocation.KafkaBatch)
            decoder.decode(
                new ByteArrayInputStream(json) {
                  @Override
                  public synchronized int read(byte[] b, int off, int len) {
                    return super.read(b, off, Math.min(len, 1 + random.nextInt(700)));
                  }
                });
    var tree =
        (Invocation.KafkaBatch) EventDecoder.treeOnly().decode(new ByteArrayInputStream(json));

    // Then every record and every rejection is the same
    assertThat(fast.recordCount()).isEqualTo(2_000);
    assertThat(describe(fast)).isEqualTo(describe(tree));
  }
}
