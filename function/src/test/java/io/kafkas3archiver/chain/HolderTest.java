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
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which object holds a piece's claim (issue 25): an error-only group writes one object, a group of
 * skipped tombstones writes none, and a delivery that meets a piece later probes the same key.
 */
class HolderTest {
  private static final long TS = Instant.parse("2026-07-14T10:15:00Z").toEpochMilli();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static KafkaRecord record(long offset, String value) {
    return new KafkaRecord(
        "orders",
        0,
        offset,
        TS + offset,
        "CREATE_TIME",
        null,
        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
        List.of());
  }

  /** Offset {@code o}: a tombstone ("t"), an error row under csv ("e") or a JSON object ("d"). */
  private static List<KafkaRecord> records(String kinds, int from, int to) {
    List<KafkaRecord> out = new ArrayList<>();
    for (int o = from; o < to; o++) {
      out.add(
          switch (kinds.charAt(o)) {
            case 't' -> record(o, null);
            case 'e' -> record(o, "plain text " + o);
            default -> record(o, "{\"n\":" + o + "}");
          });
    }
    return out;
  }

  private static Pipeline pipeline(MemoryStore store, boolean metadata) {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "holder",
                "AWS_REGION", "eu-west-1",
                "OUTPUT_FORMAT", "csv",
                "INCLUDE_KAFKA_METADATA", Boolean.toString(metadata)));
    return new Pipeline(config, store, Clock.fixed(Instant.ofEpochMilli(TS), ZoneOffset.UTC));
  }

  private static void deliver(Pipeline p, List<KafkaRecord> records) {
    p.archive(
        new KafkaBatch("aws:kafka", records, List.of()), Deadline.in(60_000, Clock.systemUTC()));
  }

  /** Per offset, how many data rows and error lines hold it (metadata on). */
  private static Map<Long, Integer> stored(MemoryStore store) throws Exception {
    Map<Long, Integer> seen = new HashMap<>();
    for (var e : store.objects.entrySet()) {
      String body = new String(e.getValue(), StandardCharsets.UTF_8);
      if (e.getKey().contains("/_errors/")) {
        for (String line : body.split("\n")) {
          if (!line.isBlank()) {
            seen.merge(MAPPER.readTree(line).get("offset").asLong(), 1, Integer::sum);
          }
        }
      } else if (!body.isEmpty()) {
        String[] lines = body.split("\r?\n");
        int column = Arrays.asList(lines[0].split(",")).indexOf("kafka_offset");
        for (int i = 1; i < lines.length; i++) {
          seen.merge(Long.parseLong(lines[i].split(",")[column]), 1, Integer::sum);
        }
      }
    }
    return seen;
  }

  @Test
  void shouldWriteNothingForAGroupOfSkippedTombstonesOnly() {
    MemoryStore store = new MemoryStore();
    Pipeline p = pipeline(store, false);

    deliver(p, records("tttt", 0, 4));

    assertThat(store.objects).as("no data object, no error object").isEmpty();
  }

  @Test
  void shouldWriteOneObjectForAnErrorOnlyGroup() {
    MemoryStore store = new MemoryStore();
    Pipeline p = pipeline(store, true);

    deliver(p, records("eee", 0, 3));

    assertThat(store.objects.keySet()).hasSize(1).allMatch(k -> k.contains("/_errors/"));
    assertThat(store.metadata.values().iterator().next())
        .containsEntry(Claim.OFFSETS, "0-2")
        .containsEntry(Claim.ERROR_ROWS, "3+0");
  }

  @Test
  void shouldMeetAnErrorHeldClaimAndStoreEveryOffsetOnce() throws Exception {
    // Errors first, then data: the error object holds the claim, the data object is beside it.
    String kinds = "eeeddeddte" + "ddeedddtdd";
    MemoryStore store = new MemoryStore();
    Pipeline p = pipeline(store, true);

    deliver(p, records(kinds, 0, 3)); // error-only: one object
    deliver(p, records(kinds, 0, 6)); // meets it at the error key, writes 3..5 from 3
    deliver(p, records(kinds, 0, 4)); // shorter: pointers at 4
    deliver(p, records(kinds, 4, 20)); // the restart meets a pointer
    deliver(p, records(kinds, 0, 20)); // everything again

    Map<Long, Integer> seen = stored(store);
    assertThat(seen).hasSize(20);
    assertThat(seen.values()).allMatch(n -> n == 1);
  }
}
