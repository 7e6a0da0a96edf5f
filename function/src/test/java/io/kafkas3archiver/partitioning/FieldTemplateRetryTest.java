package io.kafkas3archiver.partitioning;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.UnconditionalStore;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A retried batch under a field template and PARTITION_TIME=field writes the same keys with the
 * same bytes, whatever the clock says: nothing in a key depends on the invocation. (Re-formed
 * redeliveries are the exactly-once work's; see the report.)
 */
class FieldTemplateRetryTest {

  @Test
  void shouldWriteTheSameKeysAndBytesOnARetryAnHourLater() throws Exception {
    Map<String, byte[]> first =
        archive(Clock.fixed(Instant.parse("2026-07-14T09:59:00Z"), ZoneOffset.UTC));
    Map<String, byte[]> retry =
        archive(Clock.fixed(Instant.parse("2026-07-14T11:01:00Z"), ZoneOffset.UTC));

    assertThat(first).hasSizeGreaterThan(3);
    assertThat(retry.keySet()).isEqualTo(first.keySet());
    first.forEach((key, body) -> assertThat(Arrays.equals(body, retry.get(key))).as(key).isTrue());
  }

  private static Map<String, byte[]> archive(Clock clock) throws Exception {
    Map<String, byte[]> stored = new TreeMap<>();
    UnconditionalStore store =
        (key, body, type, deadline) -> {
          stored.put(key, body.toByteArray());
          return new ObjectStore.PutResult(1, 0);
        };
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "retry",
                "AWS_REGION", "eu-west-1",
                "OUTPUT_FORMAT", "ndjson",
                "COMPRESSION", "gzip",
                "KEY_TEMPLATE", FieldPartitionRoundTripIT.TEMPLATE,
                "PARTITION_TIME", "field",
                "TIME_FIELD", "eventTime",
                "REPORT_BATCH_ITEM_FAILURES", "true"));
    EventBuilder event = new EventBuilder();
    String[] regions = {"eu", "us", "eu", null, "ap", "us"};
    for (int i = 0; i < regions.length; i++) {
      String region = regions[i] == null ? "" : ",\"customer\":{\"region\":\"" + regions[i] + "\"}";
      String time = i == 5 ? "" : ",\"eventTime\":\"2026-07-13T1" + i + ":30:00Z\"";
      event.add(
          "orders", i % 2, 10 + i, 1783958399000L + i, null, "{\"id\":" + i + region + time + "}");
    }
    new ArchiverHandler(config, store, clock)
        .handleRequest(event.stream(), new ByteArrayOutputStream(), null);
    return stored;
  }
}
