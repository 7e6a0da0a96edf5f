package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BodyBufferTest {

  @Test
  void shouldHandOverAnExactlySizedBodyWithoutACopy() throws IOException {
    BodyBuffer buffer = new BodyBuffer(5);
    buffer.write(new byte[] {'a', 'b'});
    buffer.write('c');
    buffer.write("xde".getBytes(), 1, 2);

    ObjectBody body = buffer.toBody();
    byte[] bytes = body.toByteArray();

    assertThat(bytes).isEqualTo("abcde".getBytes());
    // The same array every time: nothing was copied.
    assertThat(body.toByteArray()).isSameAs(bytes);
    assertThat(buffer.toBody().toByteArray()).isSameAs(bytes);
    assertThatThrownBy(() -> buffer.write('f'))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("handed over");
    assertThatThrownBy(() -> buffer.share(new byte[] {'g'}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("handed over");
  }

  @Test
  void shouldKeepEveryByteInOrderWhateverTheFirstChunkTheWritesAndTheSharedArrays()
      throws Exception {
    long seed = Long.getLong("bodyBuffer.seed", System.nanoTime());
    System.out.println("BodyBufferTest seed " + seed + " (-DbodyBuffer.seed=" + seed + ")");
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      byte[] expected = new byte[random.nextInt(400_000)];
      random.nextBytes(expected);
      BodyBuffer buffer =
          new BodyBuffer(random.nextInt(3) == 0 ? 0 : random.nextInt(300_000), random.nextInt(8));
      boolean shares = random.nextBoolean();
      int at = 0;
      while (at < expected.length) {
        int kind = random.nextInt(10);
        if (kind == 0) {
          buffer.write(expected[at++]);
        } else if (shares && kind < 4) {
          int len = Math.min(expected.length - at, random.nextInt(50_000));
          buffer.share(Arrays.copyOfRange(expected, at, at + len));
          at += len;
        } else {
          int len = Math.min(expected.length - at, random.nextInt(100_000));
          buffer.write(expected, at, len);
          at += len;
        }
      }
      assertThat(buffer.size()).isEqualTo(expected.length);
      ObjectBody body = buffer.toBody();
      assertThat(body.length()).isEqualTo(expected.length);
      assertThat(Arrays.equals(body.toByteArray(), expected)).as("round %d", round).isTrue();
      assertThat(Arrays.equals(readInPieces(body.newStream(), random), expected))
          .as("round %d, streamed", round)
          .isTrue();
      // A second stream starts again from the first byte (the SDK opens one per attempt).
      assertThat(Arrays.equals(body.newStream().readAllBytes(), expected))
          .as("round %d, streamed again", round)
          .isTrue();
      MessageDigest ranges = MessageDigest.getInstance("MD5");
      body.forEachRange(ranges::update);
      assertThat(ranges.digest())
          .as("round %d, digest", round)
          .isEqualTo(MessageDigest.getInstance("MD5").digest(expected));
    }
  }

  /** Reads with single bytes, skips and reads of random lengths, as a client might. */
  private static byte[] readInPieces(InputStream in, Random random) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] scratch = new byte[70_000];
    while (true) {
      int kind = random.nextInt(10);
      if (kind == 0) {
        int b = in.read();
        if (b < 0) {
          break;
        }
        out.write(b);
      } else {
        int len = random.nextInt(scratch.length);
        int off = random.nextInt(scratch.length - len + 1);
        int n = in.read(scratch, off, len);
        if (n < 0) {
          break;
        }
        assertThat(n).isBetween(len == 0 ? 0 : 1, len);
        out.write(scratch, off, n);
      }
    }
    assertThat(in.available()).isZero();
    return out.toByteArray();
  }

  @Test
  void shouldWriteValuesOnlyJsonAndNdjsonByReferenceAsTheGeneratorWritesThem() throws IOException {
    long seed = Long.getLong("bodyBuffer.seed", System.nanoTime());
    System.out.println("BodyBufferTest json seed " + seed + " (-DbodyBuffer.seed=" + seed + ")");
    Random random = new Random(seed);
    for (int round = 0; round < 300; round++) {
      List<KafkaRecord> records = randomValues(random, random.nextInt(40));
      for (Format format : List.of(Format.JSON, Format.NDJSON)) {
        Encoder encoder = Encoder.forFormat(format, false);
        // Through a generator: any stream other than the body buffer itself.
        ByteArrayOutputStream generated = new ByteArrayOutputStream();
        EncodeResult viaGenerator = encoder.encode(records, new FilterOutputStream(generated));
        BodyBuffer buffer = new BodyBuffer(random.nextInt(100), random.nextInt(8));
        EncodeResult byReference = encoder.encode(records, buffer);
        ObjectBody body = buffer.toBody();

        assertThat(new String(body.toByteArray(), StandardCharsets.UTF_8))
            .as("round %d, %s", round, format)
            .isEqualTo(generated.toString(StandardCharsets.UTF_8));
        assertThat(byReference).isEqualTo(viaGenerator);
        assertThat(buffer.size()).isEqualTo(generated.size());
      }
    }
  }

  @Test
  void shouldShareTheRecordsOwnValuesWhenEveryValueIsWrittenAsReceived() throws IOException {
    List<KafkaRecord> records =
        Records.ofValues("{\"a\":1}", "[1,2]", "\"text\"", "42", "{}", "{\"b\":\"\\u00e9\"}");
    for (Format format : List.of(Format.JSON, Format.NDJSON)) {
      BodyBuffer buffer = new BodyBuffer(1 << 20, 4);
      Encoder.forFormat(format, false).encode(records, buffer);
      ObjectBody body = buffer.toBody();

      Set<byte[]> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
      List<Integer> lengths = new ArrayList<>();
      body.forEachRange(
          (bytes, offset, length) -> {
            arrays.add(bytes);
            lengths.add(length);
          });
      for (KafkaRecord r : records) {
        assertThat(arrays).as("%s shares the value %s", format, r.offset()).contains(r.value());
      }
      // No chunk was filled: every range is a value or a separator of at most three bytes.
      int separators = format == Format.JSON ? records.size() + 2 : records.size();
      assertThat(body.ranges()).isEqualTo(records.size() + separators);
      assertThat(lengths.stream().filter(l -> l <= 3).count()).isGreaterThanOrEqualTo(separators);
    }
  }

  /** Values of every kind the encoder tells apart, and tombstones. */
  private static List<KafkaRecord> randomValues(Random random, int count) {
    String[] kinds = {
      "{\"a\":1,\"b\":[true,null]}",
      "{ \"spaced\" : 1 }",
      "{\n  \"pretty\": [1,\n 2]\n}",
      " {\"padded\":2} ",
      "\"a string\"",
      "1e400",
      "not json at all",
      "",
      "null",
      "[]",
      "{\"é\":\"ü\"}",
      "{\"dup\":1,\"dup\":2}",
      "{\"open\":",
    };
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] value;
      int pick = random.nextInt(kinds.length + 2);
      if (pick == kinds.length) {
        value = new byte[random.nextInt(20)];
        random.nextBytes(value);
      } else if (pick == kinds.length + 1) {
        value = null;
      } else {
        value = kinds[pick].getBytes(StandardCharsets.UTF_8);
      }
      records.add(
          new KafkaRecord("t", 0, i, 1783955045000L + i, "CREATE_TIME", null, value, List.of()));
    }
    return records;
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
