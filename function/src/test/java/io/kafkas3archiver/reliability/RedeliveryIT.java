package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.FaultProxy;
import io.kafkas3archiver.testing.FaultProxy.ResetAfterRequestBytes;
import io.kafkas3archiver.testing.FaultProxy.Status;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Emulates the event source mapping with ReportBatchItemFailures: per topic-partition it delivers
 * from the committed position, re-batches differently every round (other sizes, new records
 * appended), and on a reported item failure redelivers that partition from the reported offset.
 * Uploads fail at random (whole hour folders, bucket-wide AccessDenied, transient resets). At the
 * end every object is read back: each record must be archived exactly once, by offset.
 */
class RedeliveryIT {
  private static final String BUCKET = "redelivery";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final long T0 = 1_784_000_000_000L - 1_784_000_000_000L % 86_400_000L;
  private static final int MAX_ROUNDS = 200;

  private static S3ProxyServer server;
  private static FaultProxy proxy;
  private static S3Client s3;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    proxy = FaultProxy.in(server.endpoint());
    s3 = server.client();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    s3.close();
    server.close();
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Format f : Formats.formats()) {
      cases.add(Arguments.of(f, "one object per topic and hour", ""));
      cases.add(
          Arguments.of(
              f,
              "one object per partition and hour",
              "${KEY_PREFIX}/${OBJECT_NAME}/partition=${PARTITION}/hour=${HOUR}/${JOB_ID}"));
    }
    return cases.stream();
  }

  /** The Kafka log the emulated ESM reads from. */
  private static final class Log {
    final Map<String, List<Rec>> partitions = new LinkedHashMap<>();
    final Map<String, Long> position = new HashMap<>();

    void append(String topic, int partition, long firstOffset, int count) {
      List<Rec> records =
          partitions.computeIfAbsent(topic + "-" + partition, k -> new ArrayList<>());
      long next = records.isEmpty() ? firstOffset : records.get(records.size() - 1).offset() + 1;
      position.putIfAbsent(topic + "-" + partition, next);
      for (int i = 0; i < count; i++) {
        long offset = next + i;
        // 90 s apart: a partition crosses an hour edge every 40 records.
        long ts = T0 + offset % 100_000 * 90_000L;
        String value =
            offset % 29 == 3
                ? null
                : offset % 13 == 7
                    ? "plain text, an error row under csv " + offset
                    : "{\"offset\":"
                        + offset
                        + ",\"v\":\""
                        + "y".repeat((int) (offset % 40))
                        + "\"}";
        records.add(Rec.of(topic, partition, offset, ts, value));
      }
    }

    /** From each partition's position, up to {@code max} records. */
    List<Rec> batch(Random rnd) {
      List<Rec> batch = new ArrayList<>();
      for (var e : partitions.entrySet()) {
        long from = position.get(e.getKey());
        int max = 5 + rnd.nextInt(60);
        for (Rec r : e.getValue()) {
          if (r.offset() >= from && max-- > 0) {
            batch.add(r);
          }
        }
      }
      return batch;
    }

    TreeSet<String> all() {
      TreeSet<String> all = new TreeSet<>();
      partitions
          .values()
          .forEach(rs -> rs.forEach(r -> all.add(r.topicPartition() + "@" + r.offset())));
      return all;
    }
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("cases")
  void shouldArchiveEveryRecordExactlyOnceByOffsetWhileRedeliveringLikeTheEsm(
      Format format, String layout, String template) throws Exception {
    String prefix = "esm-" + format.configName() + (template.isEmpty() ? "-topic" : "-partition");
    Random rnd = new Random(format.ordinal() * 31L + template.length());
    Harness harness =
        Harness.against(proxy.endpoint().toString(), BUCKET)
            .with("KEY_PREFIX", prefix)
            .with("OUTPUT_FORMAT", format.configName())
            .with("PARTITION_TIME", "record")
            .with("INCLUDE_KAFKA_METADATA", "true")
            .with("REPORT_BATCH_ITEM_FAILURES", "true");
    if (!template.isEmpty()) {
      harness = harness.with("KEY_TEMPLATE", template);
    }
    var function = harness.handler();
    Log log = new Log();
    log.append("orders", 0, 1_000, 90);
    log.append("orders", 1, 0, 90);
    log.append("audit.log_v2", 7, 500, 90);

    int rounds = 0;
    int reported = 0;
    int failedRounds = 0;
    try (StdoutCapture quiet = new StdoutCapture()) {
      while (rounds++ < MAX_ROUNDS) {
        if (rounds <= 8) {
          log.append("orders", 0, 0, 12);
          log.append("orders", 1, 0, 7);
          log.append("audit.log_v2", 7, 0, 10);
        }
        List<Rec> batch = log.batch(rnd);
        if (batch.isEmpty()) {
          if (rounds > 8) {
            break;
          }
          continue;
        }
        proxy.reset();
        injectFaults(rnd, batch);

        JsonNode response = MAPPER.readTree(function.invoke(KafkaEvents.eventJson(batch)));

        Map<String, Long> failed = new HashMap<>();
        for (JsonNode f : response.get("batchItemFailures")) {
          failed.put(
              f.get("itemIdentifier").get("topic-partition").asText(),
              f.get("itemIdentifier").get("offset").asLong());
        }
        failedRounds += failed.isEmpty() ? 0 : 1;
        reported += failed.size();
        Map<String, long[]> delivered = new HashMap<>();
        for (Rec r : batch) {
          delivered.merge(
              r.topicPartition(),
              new long[] {r.offset(), r.offset()},
              (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
        }
        assertThat(delivered.keySet()).containsAll(failed.keySet());
        for (var e : delivered.entrySet()) {
          Long failedAt = failed.get(e.getKey());
          if (failedAt == null) {
            log.position.put(e.getKey(), e.getValue()[1] + 1);
          } else {
            assertThat(failedAt).isBetween(e.getValue()[0], e.getValue()[1]);
            log.position.put(e.getKey(), failedAt);
          }
        }
      }
    }
    proxy.reset();

    assertThat(rounds).as("the log was drained within the round limit").isLessThan(MAX_ROUNDS);
    assertThat(failedRounds).as("rounds with reported item failures").isGreaterThan(3);
    List<String> archived = new ArrayList<>();
    for (String key : Archive.objects(s3, BUCKET, prefix + "/").keySet()) {
      Archive.rows(s3, BUCKET, key).forEach(row -> archived.add(Archive.position(row)));
    }
    assertThat(archived).doesNotHaveDuplicates();
    assertThat(new TreeSet<>(archived)).isEqualTo(log.all());
    System.out.printf(
        "redelivery %s/%s: %d records, %d rounds, %d rounds with item failures, %d reported%n",
        format.configName(), layout, archived.size(), rounds, failedRounds, reported);
  }

  /** Each round, one of: nothing, a failing hour folder (most often), AccessDenied, a reset. */
  private static void injectFaults(Random rnd, List<Rec> batch) {
    switch (rnd.nextInt(6)) {
      case 0 -> {}
      case 1, 2, 3 -> {
        Rec victim = batch.get(rnd.nextInt(batch.size()));
        String hour = String.format("%02d", (victim.timestamp() / 3_600_000L) % 24);
        proxy.always(
            r ->
                r.isPut()
                    && (r.target().contains("hour%3D" + hour + "/")
                        || r.target().contains("hour=" + hour + "/")),
            new Status(400, "InvalidRequest"));
      }
      case 4 ->
          proxy.next(
              1 + rnd.nextInt(3), FaultProxy.Request::isPut, new Status(403, "AccessDenied"));
      default -> proxy.nextPuts(2, new ResetAfterRequestBytes(100));
    }
  }
}
