package io.kafkas3archiver.partitioning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.UnconditionalStore;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The fan-out guard through the real handler, with the event source mapping played by the test: it
 * redelivers each partition from the offset the response reports. Every record ends up stored
 * exactly once, every invocation moves every partition forward, and the deferrals are reported as
 * batch item failures, not errors.
 */
class FanOutGuardTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/tenant=${value.tenant}/year=${YEAR}/month=${MONTH}"
          + "/day=${DAY}/hour=${HOUR}/${JOB_ID}";

  @Test
  void shouldArchiveAWideFanOutOverSeveralInvocationsWithoutLossOrDuplicates() throws Exception {
    long seed = Long.getLong("fanout.seed", System.nanoTime());
    System.out.println("FanOutGuardTest seed=" + seed + " (rerun with -Dfanout.seed=" + seed + ")");
    SplittableRandom random = new SplittableRandom(seed);
    int perPartition = 400;
    Map<Integer, List<String>> values = new TreeMap<>();
    for (int p = 0; p < 2; p++) {
      List<String> list = new ArrayList<>();
      for (int i = 0; i < perPartition; i++) {
        // 60 tenants, some values without one (the default partition is a folder too)
        list.add(
            random.nextInt(20) == 0
                ? "{\"id\":\"" + p + "-" + i + "\"}"
                : "{\"id\":\"" + p + "-" + i + "\",\"tenant\":\"t" + random.nextInt(60) + "\"}");
      }
      values.put(p, list);
    }

    Map<String, byte[]> stored = new HashMap<>();
    UnconditionalStore store =
        (key, body, type, deadline) -> {
          assertThat(stored.put(key, body.toByteArray())).as("overwrote " + key).isNull();
          return new ObjectStore.PutResult(1, 0);
        };
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "guard",
                "AWS_REGION", "eu-west-1",
                "KEY_TEMPLATE", TEMPLATE,
                "REPORT_BATCH_ITEM_FAILURES", "true",
                "MAX_FOLDERS_PER_PARTITION", "10"));
    ArchiverHandler handler = new ArchiverHandler(config, store, Clock.systemUTC());

    Map<Integer, Integer> next = new LinkedHashMap<>(Map.of(0, 0, 1, 0));
    int invocations = 0;
    while (next.values().stream().anyMatch(o -> o < perPartition)) {
      EventBuilder event = new EventBuilder();
      for (var e : next.entrySet()) {
        List<String> list = values.get(e.getKey());
        // a batch of up to 150 records per partition, from where the mapping stands
        for (int o = e.getValue(); o < Math.min(perPartition, e.getValue() + 150); o++) {
          event.add("orders", e.getKey(), o, 1783958399000L + o, null, list.get(o));
        }
      }
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      handler.handleRequest(event.stream(), response, null);
      invocations++;
      Map<Integer, Integer> reported = new HashMap<>();
      for (JsonNode f : MAPPER.readTree(response.toByteArray()).get("batchItemFailures")) {
        String tp = f.at("/itemIdentifier/topic-partition").asText();
        reported.put(
            Integer.parseInt(tp.substring(tp.lastIndexOf('-') + 1)),
            f.at("/itemIdentifier/offset").asInt());
      }
      for (var e : next.entrySet()) {
        int before = e.getValue();
        if (before >= perPartition) {
          continue;
        }
        int after = reported.getOrDefault(e.getKey(), Math.min(perPartition, before + 150));
        assertThat(after).as("partition %d must move forward", e.getKey()).isGreaterThan(before);
        e.setValue(after);
      }
      assertThat(invocations).as("seed " + seed).isLessThan(500);
    }

    // Every record stored exactly once, under its tenant's folder.
    Map<String, Integer> seen = new HashMap<>();
    for (var e : stored.entrySet()) {
      for (String line : new String(e.getValue(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode row = MAPPER.readTree(line);
        seen.merge(row.get("id").asText(), 1, Integer::sum);
        String folder =
            row.has("tenant") ? "tenant=" + row.get("tenant").asText() : "tenant=__HIVE_DEFAULT";
        assertThat(e.getKey()).contains("/" + folder);
      }
    }
    assertThat(seen).as("records stored").hasSize(2 * perPartition);
    assertThat(seen.entrySet().stream().filter(e -> e.getValue() != 1).map(Map.Entry::getKey))
        .as("records stored more than once (seed %d)", seed)
        .isEmpty();
    assertThat(invocations).as("the guard of 10 folders had to defer").isGreaterThan(3);
    System.out.println(
        "FanOutGuardTest: " + invocations + " invocations, " + stored.size() + " objects");
  }
}
