package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * At-least-once delivery needs idempotent writes: the same batch, retried by a fresh instance hours
 * later, or run twice at the same time, leaves exactly the same objects, byte for byte.
 */
class IdempotencyIT {
  private static final String BUCKET = "idempotency";
  private static final long HOUR = 3_600_000L;
  private static final long T0 = 1_784_000_000_000L - 1_784_000_000_000L % (24 * HOUR);
  private static S3ProxyServer server;
  private static S3Client s3;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    s3 = server.client();
  }

  @AfterAll
  static void stop() {
    s3.close();
    server.close();
  }

  /** 3 topic-partitions over 3 hours, with text values (csv error rows) and tombstones. */
  static List<Rec> batch(int perPartition) {
    List<Rec> records = new ArrayList<>();
    String[][] tps = {{"orders", "0"}, {"orders", "1"}, {"audit.log_v2", "4"}};
    for (String[] tp : tps) {
      for (int i = 0; i < perPartition; i++) {
        long ts = T0 + 9 * HOUR + i * (3 * HOUR / perPartition);
        String value =
            i % 11 == 4
                ? "text " + i
                : i % 23 == 9 ? null : "{\"i\":" + i + ",\"tp\":\"" + tp[0] + tp[1] + "\"}";
        records.add(Rec.of(tp[0], Integer.parseInt(tp[1]), 100 + i, ts, value));
      }
    }
    return records;
  }

  private static Harness harness(String prefix) {
    return Harness.against(server.endpoint().toString(), BUCKET).with("KEY_PREFIX", prefix);
  }

  /** A fresh handler (a cold start) whose clock is shifted, as a retry hours later would see. */
  private static void invoke(Harness h, byte[] event, Duration clockShift) throws Exception {
    var config = h.config();
    var store =
        S3ObjectStore.create(
            config,
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)));
    var handler = new ArchiverHandler(config, store, Clock.offset(Clock.systemUTC(), clockShift));
    var out = new ByteArrayOutputStream();
    handler.handleRequest(new ByteArrayInputStream(event), out, new LocalContext(30_000));
    assertThat(out.toString()).isEqualTo("{\"batchItemFailures\":[]}");
  }

  static Stream<Arguments> variantsAndPartitionTimes() {
    List<Arguments> args = new ArrayList<>();
    for (Formats.Variant v : Formats.variants()) {
      for (String time : List.of("batch", "record")) {
        for (String metadata : List.of("false", "true")) {
          args.add(Arguments.of(v, time, metadata));
        }
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0}, PARTITION_TIME={1}, metadata={2}")
  @MethodSource("variantsAndPartitionTimes")
  void shouldWriteIdenticalKeysAndBytesWhenABatchIsRetriedHoursLater(
      Formats.Variant variant, String partitionTime, String metadata) throws Exception {
    String prefix = "rerun-" + variant + "-" + partitionTime + "-" + metadata;
    Harness h =
        harness(prefix)
            .with("OUTPUT_FORMAT", variant.format().configName())
            .with("COMPRESSION", variant.compression().configName())
            .with("PARTITION_TIME", partitionTime)
            .with("INCLUDE_KAFKA_METADATA", metadata);
    byte[] event = KafkaEvents.event(batch(60));

    try (StdoutCapture quiet = new StdoutCapture()) {
      invoke(h, event, Duration.ZERO);
      Map<String, byte[]> first = Archive.objects(s3, BUCKET, prefix + "/");
      invoke(h, event, Duration.ofHours(3).plusMinutes(17));
      Map<String, byte[]> second = Archive.objects(s3, BUCKET, prefix + "/");

      assertThat(first).isNotEmpty();
      assertThat(second.keySet()).isEqualTo(first.keySet());
      first.forEach((key, bytes) -> assertThat(second.get(key)).as(key).isEqualTo(bytes));
    }
  }

  @Test
  void shouldLeaveOneCorrectObjectPerKeyWhenTwoInvocationsOfTheSameBatchRunAtOnce()
      throws Exception {
    byte[] event = KafkaEvents.event(batch(4_000));
    String reference = "concurrent-reference";
    try (StdoutCapture quiet = new StdoutCapture()) {
      invoke(harness(reference).with("OUTPUT_FORMAT", "csv"), event, Duration.ZERO);
    }
    Map<String, byte[]> expected = new java.util.TreeMap<>();
    Archive.objects(s3, BUCKET, reference + "/")
        .forEach((k, v) -> expected.put(k.substring(reference.length()), v));
    assertThat(expected).hasSizeGreaterThan(2);

    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (StdoutCapture quiet = new StdoutCapture()) {
      for (int round = 0; round < 8; round++) {
        String prefix = "concurrent-" + round;
        Harness h = harness(prefix).with("OUTPUT_FORMAT", "csv");
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<Void>> runs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          var function = h.handler();
          runs.add(
              pool.submit(
                  () -> {
                    start.await(30, TimeUnit.SECONDS);
                    function.invoke(new ByteArrayInputStream(event));
                    return null;
                  }));
        }
        for (Future<Void> run : runs) {
          run.get(60, TimeUnit.SECONDS);
        }

        Map<String, byte[]> written = Archive.objects(s3, BUCKET, prefix + "/");
        assertThat(written).hasSameSizeAs(expected);
        written.forEach(
            (key, bytes) ->
                assertThat(bytes).as(key).isEqualTo(expected.get(key.substring(prefix.length()))));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
