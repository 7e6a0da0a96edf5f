package io.kafkas3archiver.chain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.Pipeline;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.testing.MemoryStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Producer clocks that jitter across an hour edge (issue 25): under {@code PARTITION_TIME=batch}
 * the restart folder alternates record by record, under {@code record} the two folders' offsets
 * interleave. A partition still writes at most 2 objects per folder per batch, and a shorter
 * redelivery (which leaves pointers) followed by the restart stores every offset once.
 */
class JitterTest {
  private static final long EDGE = Instant.parse("2026-07-14T11:00:00Z").toEpochMilli();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static List<KafkaRecord> records(Random rnd, int n) {
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long ts = EDGE - 5_000 + rnd.nextInt(10_000); // every record within 5 s of the edge
      records.add(
          new KafkaRecord(
              "orders",
              0,
              1_000 + i,
              ts,
              "CREATE_TIME",
              null,
              ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
              List.of()));
    }
    return records;
  }

  @ParameterizedTest(name = "PARTITION_TIME={0}, {1} records")
  @CsvSource({"batch, 2000", "batch, 10000", "record, 2000", "record, 10000"})
  void shouldWriteAtMostTwoObjectsPerFolderAndEveryOffsetOnce(String time, int n) throws Exception {
    long seed = Long.getLong("jitter.seed", System.nanoTime());
    Random rnd = new Random(seed);
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "jitter",
                "AWS_REGION", "eu-west-1",
                "OUTPUT_FORMAT", "ndjson",
                "INCLUDE_KAFKA_METADATA", "true",
                "PARTITION_TIME", time));
    MemoryStore store = new MemoryStore();
    Pipeline pipeline =
        new Pipeline(config, store, Clock.fixed(Instant.ofEpochMilli(EDGE), ZoneOffset.UTC));
    List<KafkaRecord> records = records(rnd, n);

    long cpu = System.nanoTime();
    pipeline.archive(new KafkaBatch("aws:kafka", records, List.of()), deadline());
    long millis = (System.nanoTime() - cpu) / 1_000_000;

    Map<String, Integer> perFolder = new TreeMap<>();
    store.objects.keySet().stream()
        .filter(k -> !k.contains("/_errors/"))
        .forEach(k -> perFolder.merge(k.substring(0, k.lastIndexOf('/')), 1, Integer::sum));
    System.out.printf(
        "JitterTest PARTITION_TIME=%s, %d records within 5 s of an hour edge: %d data objects %s"
            + " (%d ms; seed=%d, rerun with -Djitter.seed=%d)%n",
        time, n, store.objects.size(), perFolder.values(), millis, seed, seed);
    assertThat(perFolder.values()).as("seed=%d", seed).allMatch(c -> c <= 2);

    // A shorter redelivery from the same start ends inside the stored claims (pointers), then the
    // mapping restarts after it with more records: every offset is still stored once.
    int cut = 1 + rnd.nextInt(n - 1);
    pipeline.archive(new KafkaBatch("aws:kafka", records.subList(0, cut), List.of()), deadline());
    List<KafkaRecord> more = new ArrayList<>(records.subList(cut, n));
    for (int i = n; i < n + 50; i++) {
      more.add(
          new KafkaRecord(
              "orders",
              0,
              1_000 + i,
              EDGE + 6_000,
              "CREATE_TIME",
              null,
              "{}".getBytes(),
              List.of()));
    }
    pipeline.archive(new KafkaBatch("aws:kafka", more, List.of()), deadline());

    Map<Long, Integer> seen = new HashMap<>();
    for (var e : store.objects.entrySet()) {
      for (String line : new String(e.getValue(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank()) {
          seen.merge(MAPPER.readTree(line).get("offset").asLong(), 1, Integer::sum);
        }
      }
    }
    assertThat(seen).as("seed=%d cut=%d", seed, cut).hasSize(n + 50);
    assertThat(seen.values()).as("seed=%d cut=%d", seed, cut).allMatch(c -> c == 1);
  }

  private static Deadline deadline() {
    return Deadline.in(60_000, Clock.systemUTC());
  }
}
