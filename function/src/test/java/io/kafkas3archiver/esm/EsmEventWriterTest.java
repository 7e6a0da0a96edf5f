package io.kafkas3archiver.esm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.decode.EventDecoder;
import io.kafkas3archiver.decode.Invocation;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.esm.EsmEventWriter.Flavour;
import io.kafkas3archiver.esm.EsmEventWriter.SerializedRecord;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class EsmEventWriterTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String ARN = "arn:aws:kafka:us-east-1:123456789012:cluster/c/uuid-1";

  private static ConsumerRecord<byte[], byte[]> record(
      int partition, long offset, String key, String value, RecordHeader... headers) {
    return new ConsumerRecord<>(
        "vehicle-telemetry",
        partition,
        offset,
        1_783_955_045_000L + offset,
        TimestampType.CREATE_TIME,
        -1,
        -1,
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
        new RecordHeaders(headers),
        Optional.empty());
  }

  private static List<SerializedRecord> sample() {
    return List.of(
            record(
                0,
                7,
                "KA-01",
                "{\"speedKmh\":62.5}",
                new RecordHeader("trace-id", new byte[] {104, 105})),
            record(0, 8, null, null),
            record(1, 3, "KA-02", "engine fault", new RecordHeader("bin", new byte[] {-1, 0, 127})))
        .stream()
        .map(EsmEventWriter::serialize)
        .toList();
  }

  @Test
  void shouldWriteTheMskEventShapeWithArnKeysValuesAndHeaderBytes() throws Exception {
    byte[] event = new EsmEventWriter(new Flavour.Msk(ARN), "127.0.0.1:9092").event(sample());

    JsonNode root = MAPPER.readTree(event);
    assertThat(root.get("eventSource").asText()).isEqualTo("aws:kafka");
    assertThat(root.get("eventSourceArn").asText()).isEqualTo(ARN);
    assertThat(root.get("bootstrapServers").asText()).isEqualTo("127.0.0.1:9092");
    assertThat(root.get("records").properties())
        .extracting(e -> e.getKey())
        .containsExactly("vehicle-telemetry-0", "vehicle-telemetry-1");
    JsonNode first = root.at("/records/vehicle-telemetry-0/0");
    assertThat(first.get("offset").longValue()).isEqualTo(7);
    assertThat(first.get("timestampType").asText()).isEqualTo("CREATE_TIME");
    assertThat(first.get("key").asText()).isEqualTo("S0EtMDE=");
    assertThat(first.at("/headers/0/trace-id").toString()).isEqualTo("[104,105]");
    JsonNode tombstone = root.at("/records/vehicle-telemetry-0/1");
    assertThat(tombstone.has("key")).isFalse();
    assertThat(tombstone.get("value").isNull()).isTrue();
  }

  @Test
  void shouldWriteTheSelfManagedEventThatTheFunctionDecodesByteForByte() throws Exception {
    byte[] event = new EsmEventWriter(Flavour.selfManaged(), "b-1:9092,b-2:9092").event(sample());

    assertThat(MAPPER.readTree(event).get("eventSource").asText()).isEqualTo("SelfManagedKafka");
    assertThat(MAPPER.readTree(event).has("eventSourceArn")).isFalse();
    var batch =
        (Invocation.KafkaBatch) new EventDecoder(MAPPER).decode(new ByteArrayInputStream(event));
    assertThat(batch.rejected()).isEmpty();
    assertThat(batch.records()).extracting(KafkaRecord::offset).containsExactly(7L, 8L, 3L);
    KafkaRecord binary = batch.records().get(2);
    assertThat(new String(binary.value(), StandardCharsets.UTF_8)).isEqualTo("engine fault");
    assertThat(binary.headers().get(0).value()).containsExactly(-1, 0, 127);
    assertThat(batch.records().get(1).value()).isNull();
    assertThat(batch.records().get(1).key()).isNull();
  }

  @Test
  void shouldKnowTheEventSizeFromTheEnvelopeAndEachRecord() {
    EsmEventWriter writer = new EsmEventWriter(new Flavour.Msk(ARN), "127.0.0.1:9092");
    List<SerializedRecord> records = sample();
    long estimate = writer.envelopeBytes();
    Set<String> seen = new HashSet<>();
    for (SerializedRecord r : records) {
      estimate +=
          r.json().length
              + EsmEventWriter.recordOverhead(r.topicPartition(), seen.add(r.topicPartition()));
    }

    int actual = writer.event(records).length;

    // The estimate counts one comma too many: it is an upper bound, off by one byte.
    assertThat(actual).isEqualTo(estimate - 1);
    assertThat(writer.event(List.of()).length).isEqualTo(writer.envelopeBytes());
  }
}
