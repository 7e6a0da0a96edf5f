package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * ReportBatchItemFailures when only some objects fail: the response names exactly the failed
 * topic-partitions at their first unwritten offset, and nothing at or after that offset is written
 * (the ESM redelivers from there, so it would be written twice).
 */
class PartialFailureTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final long HOUR = 3_600_000L;
  private static final long T0 = 1_784_000_000_000L - 1_784_000_000_000L % (24 * HOUR);

  /** Keeps what was put; fails keys that match. */
  static final class FailingStore extends io.kafkas3archiver.testing.MemoryStore {
    final Predicate<String> fails;

    FailingStore(Predicate<String> fails) {
      this.fails = fails;
    }

    @Override
    protected void fail(String key) throws UploadException {
      if (fails.test(key)) {
        throw new UploadException(ErrorType.SERVER_ERROR, "injected failure for " + key, 6, null);
      }
    }
  }

  private static String invoke(Map<String, String> env, FailingStore store, List<Rec> records)
      throws Exception {
    Map<String, String> all = new HashMap<>(env);
    all.put("BUCKET_NAME", "unit-bucket");
    all.put("AWS_REGION", "us-east-1");
    all.put("REPORT_BATCH_ITEM_FAILURES", "true");
    all.put("INCLUDE_KAFKA_METADATA", "true");
    var out = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    try {
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
      new ArchiverHandler(ArchiverConfig.fromEnv(all), store, Clock.systemUTC())
          .handleRequest(
              new ByteArrayInputStream(KafkaEvents.event(records)), out, new LocalContext(30_000));
    } finally {
      System.setOut(stdout);
    }
    return out.toString();
  }

  @Test
  void shouldFailTheInvocationWhenAFailedRecordHasNoOffsetToReport() throws Exception {
    // A record without an offset goes to an error object of its own; when that object fails, no
    // batchItemFailures entry can name it, and an empty list would tell the mapping "all done".
    String event =
        "{\"eventSource\":\"SelfManagedKafka\",\"bootstrapServers\":\"b:9092\",\"records\":"
            + "{\"t-0\":[{\"topic\":\"t\",\"partition\":0,\"timestamp\":1,"
            + "\"timestampType\":\"CREATE_TIME\",\"value\":\"e30=\",\"headers\":[]}]}}";
    var store = new FailingStore(key -> key.contains("/_errors/"));
    Map<String, String> all = new HashMap<>();
    all.put("BUCKET_NAME", "unit-bucket");
    all.put("AWS_REGION", "us-east-1");
    all.put("REPORT_BATCH_ITEM_FAILURES", "true");
    PrintStream stdout = System.out;
    Throwable thrown = null;
    var out = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
      new ArchiverHandler(ArchiverConfig.fromEnv(all), store, Clock.systemUTC())
          .handleRequest(
              new ByteArrayInputStream(event.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
              out,
              new LocalContext(30_000));
    } catch (RuntimeException e) {
      thrown = e;
    } finally {
      System.setOut(stdout);
    }

    assertThat(thrown).as("answered %s", out).isNotNull().hasMessageContaining("injected failure");
    assertThat(out.toString()).doesNotContain("batchItemFailures");
  }

  /** Partitions 0 and 1 of topic t, offsets 0..9 each: 0-4 in hour 10, 5-9 in hour 11. */
  private static List<Rec> twoHours() {
    List<Rec> records = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      for (int o = 0; o < 10; o++) {
        long ts = T0 + 10 * HOUR + (o < 5 ? 0 : HOUR) + o;
        records.add(Rec.of("t", p, o, ts, "{\"o\":" + o + "}"));
      }
    }
    return records;
  }

  private static String failures(String... tpOffsets) {
    StringBuilder sb = new StringBuilder("{\"batchItemFailures\":[");
    for (int i = 0; i < tpOffsets.length; i++) {
      String[] parts = tpOffsets[i].split("@");
      sb.append(i == 0 ? "" : ",")
          .append("{\"itemIdentifier\":{\"topic-partition\":\"")
          .append(parts[0])
          .append("\",\"offset\":")
          .append(parts[1])
          .append("}}");
    }
    return sb.append("]}").toString();
  }

  @Test
  void shouldNotWriteALaterHourOfAPartitionOnceAnEarlierHourFailed() throws Exception {
    // Given PARTITION_TIME=record: one object per hour, each holding both partitions.
    var store = new FailingStore(key -> key.contains("/hour=10/"));

    // When the hour-10 object fails
    String response = invoke(Map.of("PARTITION_TIME", "record"), store, twoHours());

    // Then both partitions are redelivered from offset 0, and hour 11 was not written (it would
    // be written again, under another key, by the redelivery).
    assertThat(MAPPER.readTree(response)).isEqualTo(MAPPER.readTree(failures("t-0@0", "t-1@0")));
    assertThat(store.objects.keySet()).isEmpty();
  }

  @Test
  void shouldNameOnlyTheFailedPartitionWhenObjectsArePerPartition() throws Exception {
    var store = new FailingStore(key -> key.contains("/t/0/") && key.contains("/10/"));
    Map<String, String> env =
        Map.of(
            "PARTITION_TIME", "record",
            "KEY_TEMPLATE", "${KEY_PREFIX}/${OBJECT_NAME}/${PARTITION}/${HOUR}/${JOB_ID}");

    String response = invoke(env, store, twoHours());

    assertThat(MAPPER.readTree(response)).isEqualTo(MAPPER.readTree(failures("t-0@0")));
    assertThat(store.objects.keySet())
        .hasSize(2)
        .allSatisfy(k -> assertThat(k).startsWith("condense/t/1/"));
  }

  @Test
  void shouldReportTheFirstUnwrittenOffsetWhenALaterHourFails() throws Exception {
    var store = new FailingStore(key -> key.contains("/hour=11/"));

    String response = invoke(Map.of("PARTITION_TIME", "record"), store, twoHours());

    assertThat(MAPPER.readTree(response)).isEqualTo(MAPPER.readTree(failures("t-0@5", "t-1@5")));
    assertThat(store.objects.keySet())
        .hasSize(2) // one object per partition
        .allSatisfy(k -> assertThat(k).contains("/hour=10/"));
  }

  @Test
  void shouldStillWriteALaterObjectWhoseRecordsAllPrecedeTheFailedOffset() throws Exception {
    // Timestamps out of order: offsets 0-4 are in hour 11, offsets 5-9 in hour 10. Hour 10 is
    // uploaded first and fails at offset 5; hour 11 holds only offsets before 5, which the
    // redelivery from 5 does not repeat, so it is written.
    List<Rec> records = new ArrayList<>();
    for (int o = 0; o < 10; o++) {
      records.add(Rec.of("t", 0, o, T0 + (o < 5 ? 11 : 10) * HOUR, "{\"o\":" + o + "}"));
    }
    var store = new FailingStore(key -> key.contains("/hour=10/"));

    String response = invoke(Map.of("PARTITION_TIME", "record"), store, records);

    assertThat(MAPPER.readTree(response)).isEqualTo(MAPPER.readTree(failures("t-0@5")));
    assertThat(store.objects.keySet()).singleElement().asString().contains("/hour=11/");
  }

  @Test
  void shouldLeaveOtherTopicsAloneWhenOneTopicFails() throws Exception {
    List<Rec> records = new ArrayList<>(twoHours());
    records.add(Rec.of("u", 3, 70, T0 + 10 * HOUR, "{}"));
    var store = new FailingStore(key -> key.startsWith("condense/t/"));

    String response = invoke(Map.of(), store, records);

    assertThat(MAPPER.readTree(response)).isEqualTo(MAPPER.readTree(failures("t-0@0", "t-1@0")));
    assertThat(store.objects.keySet()).singleElement().asString().startsWith("condense/u/");
  }
}
