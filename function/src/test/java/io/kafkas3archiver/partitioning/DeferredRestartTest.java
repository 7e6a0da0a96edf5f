package io.kafkas3archiver.partitioning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The fan-out guard under exactly-once: a delivery that defers from offset d and meets a stored
 * claim reaching past d must leave a pointer at d, because the mapping restarts there and names the
 * folder's object from its first offset at or after d, inside that claim.
 */
class DeferredRestartTest {
  private static final long KAFKA_TIME = Instant.parse("2026-07-14T09:10:00Z").toEpochMilli();

  /** S3's conditional writes, in memory: a key is written once; its metadata can be read. */
  static final class ConditionalStore implements ObjectStore {
    final Map<String, byte[]> bodies = new TreeMap<>();
    final Map<String, Map<String, String>> metadata = new TreeMap<>();

    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline) {
      bodies.put(key, body.toByteArray());
      return new PutResult(1, 0);
    }

    @Override
    public PutResult putIfAbsent(
        String key,
        ObjectBody body,
        String contentType,
        Map<String, String> meta,
        Deadline deadline) {
      if (bodies.containsKey(key)) {
        return new PutResult(1, 0, false);
      }
      bodies.put(key, body.toByteArray());
      metadata.put(key, Map.copyOf(meta));
      return new PutResult(1, 0, true);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline) {
      return Optional.ofNullable(metadata.get(key));
    }

    /** The ids of every data row stored, in key order. */
    List<Integer> ids() throws Exception {
      List<Integer> ids = new ArrayList<>();
      ObjectMapper mapper = new ObjectMapper();
      for (byte[] body : bodies.values()) {
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
          if (!line.isBlank()) {
            ids.add(mapper.readTree(line).get("id").asInt());
          }
        }
      }
      return ids;
    }
  }

  private static final String[] REGION = {"", "", "", "b", "a", "a", "c", "a"}; // by offset

  private static String deliver(ArchiverHandler handler, int from, int to) throws Exception {
    EventBuilder event = new EventBuilder();
    for (int offset = from; offset <= to; offset++) {
      event.add(
          "orders",
          0,
          offset,
          KAFKA_TIME,
          null,
          "{\"id\":" + offset + ",\"region\":\"" + REGION[offset] + "\"}");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(event.stream(), out, null);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldLeaveAPointerWhereTheDeferredRestartNamesItsObject() throws Exception {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "deferred",
                "AWS_REGION", "eu-west-1",
                "OUTPUT_FORMAT", "ndjson",
                "KEY_TEMPLATE",
                    "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.region}/hour=${HOUR}/${JOB_ID}",
                "PARTITION_TIME", "record",
                "MAX_FOLDERS_PER_PARTITION", "2",
                "REPORT_BATCH_ITEM_FAILURES", "true"));
    ConditionalStore store = new ConditionalStore();
    ArchiverHandler handler =
        new ArchiverHandler(
            config, store, Clock.fixed(Instant.parse("2026-07-20T00:00:00Z"), ZoneOffset.UTC));

    // An instance that held the partition from 4 wrote region=a as {4, 5, 7}, claiming 4-7, and c
    // as {6}: two folders, nothing deferred.
    assertThat(deliver(handler, 4, 7)).isEqualTo("{\"batchItemFailures\":[]}");
    // After a rebalance the mapping delivers from 3: b, a, then c would be a third folder, so 6..7
    // are deferred. Region a is named from 4 again and meets the claim 4-7.
    assertThat(deliver(handler, 3, 7)).contains("\"offset\":6");
    // The restart at 6: c meets its object; a is named from 7, inside the claim 4-7.
    assertThat(deliver(handler, 6, 7)).isEqualTo("{\"batchItemFailures\":[]}");

    assertThat(store.ids()).containsExactlyInAnyOrder(3, 4, 5, 6, 7);
  }
}
