package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BodyBufferTest {

  @Test
  void shouldHandOverAnExactlySizedBodyWithoutACopy() throws IOException {
    BodyBuffer buffer = new BodyBuffer(5);
    buffer.write(new byte[] {'a', 'b'});
    buffer.write('c');
    buffer.write("xde".getBytes(), 1, 2);

    byte[] body = buffer.toByteArray();

    assertThat(body).isEqualTo("abcde".getBytes());
    // The same array every time: nothing was copied.
    assertThat(buffer.toByteArray()).isSameAs(body);
    assertThatThrownBy(() -> buffer.write('f'))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("handed over");
  }

  @Test
  void shouldKeepEveryByteInOrderWhateverTheFirstChunkAndTheWrites() throws IOException {
    long seed = Long.getLong("bodyBuffer.seed", System.nanoTime());
    System.out.println("BodyBufferTest seed " + seed + " (-DbodyBuffer.seed=" + seed + ")");
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      byte[] expected = new byte[random.nextInt(400_000)];
      random.nextBytes(expected);
      BodyBuffer buffer = new BodyBuffer(random.nextInt(3) == 0 ? 0 : random.nextInt(300_000));
      int at = 0;
      while (at < expected.length) {
        if (random.nextInt(10) == 0) {
          buffer.write(expected[at++]);
        } else {
          int len = Math.min(expected.length - at, random.nextInt(100_000));
          buffer.write(expected, at, len);
          at += len;
        }
      }
      assertThat(buffer.size()).isEqualTo(expected.length);
      assertThat(Arrays.equals(buffer.toByteArray(), expected)).as("round %d", round).isTrue();
    }
  }

  @Test
  void shouldKnowTheExactSizeOfValuesOnlyJsonAndNdjson() throws IOException {
    List<KafkaRecord> records =
        new ArrayList<>(Records.ofValues("{\"a\":1}", "[1,2]", "\"text\"", "42", "{}"));
    KafkaRecord first = records.get(0);
    records.add(
        new KafkaRecord(
            first.topic(), 0, 99, first.timestamp(), first.timestampType(), null, null, List.of()));
    for (Format format : List.of(Format.JSON, Format.NDJSON)) {
      Encoder encoder = Encoder.forFormat(format, false);
      for (List<KafkaRecord> group :
          List.of(records, List.<KafkaRecord>of(), records.subList(5, 6))) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        encoder.encode(group, out);
        assertThat(encoder.expectedSize(group))
            .as("%s, %d records", format, group.size())
            .isEqualTo(out.size());
      }
    }
  }
}
