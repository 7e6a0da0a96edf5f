package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiveFailedException;
import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.FaultProxy;
import io.kafkas3archiver.testing.FaultProxy.CorruptRequestBody;
import io.kafkas3archiver.testing.FaultProxy.Delay;
import io.kafkas3archiver.testing.FaultProxy.Fault;
import io.kafkas3archiver.testing.FaultProxy.ResetAfterRequestBytes;
import io.kafkas3archiver.testing.FaultProxy.Status;
import io.kafkas3archiver.testing.FaultProxy.TruncateRequestBody;
import io.kafkas3archiver.testing.FaultProxy.TruncateResponse;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The real handler, through the real SDK, against S3Proxy behind a fault-injecting proxy on
 * 127.0.0.1. Every object is read back from S3Proxy directly and compared, key by key and byte by
 * byte, with what a clean run (no proxy) writes for the same batch.
 */
class FaultInjectionIT {
  private static final String CLEAN = "clean-run";
  private static final String FAULTY = "faulty-run";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private static S3ProxyServer server;
  private static FaultProxy proxy;
  private static S3Client s3;
  private static byte[] batch;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket(CLEAN);
    server.createBucket(FAULTY);
    proxy = FaultProxy.in(server.endpoint());
    s3 = server.client();
    batch = KafkaEvents.event(twoTopicsWithRejects());
  }

  @AfterAll
  static void stop() {
    proxy.close();
    s3.close();
    server.close();
  }

  @BeforeEach
  void resetProxy() {
    proxy.reset();
  }

  /**
   * 2 topics, 3 partitions, 240 records: JSON objects, some plain text (an error row under csv), a
   * tombstone. Under csv this writes 6 objects, one data and one error object per topic-partition
   * (issue 12: one object per topic-partition per folder).
   */
  static List<Rec> twoTopicsWithRejects() {
    List<Rec> records = new ArrayList<>();
    long t0 = 1_784_000_000_000L;
    for (int i = 0; i < 80; i++) {
      for (int p = 0; p < 2; p++) {
        String value =
            i % 17 == 5
                ? "plain text line " + i
                : "{\"order\":"
                    + i
                    + ",\"partition\":"
                    + p
                    + ",\"note\":\""
                    + "x".repeat(i)
                    + "\"}";
        records.add(Rec.of("orders", p, 1_000 + i, t0 + i * 1_000L, i == 40 ? null : value));
      }
      records.add(Rec.of("payments", 0, 50 + i, t0 + i, "{\"payment\":" + i + ",\"ok\":true}"));
    }
    records.add(Rec.of("payments", 0, 130, t0 + 200, "not json either"));
    return records;
  }

  private static String prefix(String name) {
    return "f" + PREFIXES.incrementAndGet() + "-" + name.replaceAll("[^A-Za-z0-9]", "");
  }

  private static Harness clean(String prefix) {
    return Harness.against(server.endpoint().toString(), CLEAN).with("KEY_PREFIX", prefix);
  }

  private static Harness faulty(String prefix) {
    return Harness.against(proxy.endpoint().toString(), FAULTY).with("KEY_PREFIX", prefix);
  }

  /** Invokes with a given time to the Lambda deadline; returns the response body. */
  private static String invoke(Harness h, byte[] event, LocalContext context) throws Exception {
    var out = new ByteArrayOutputStream();
    h.handler().handler().handleRequest(new ByteArrayInputStream(event), out, context);
    return out.toString();
  }

  private static Map<String, byte[]> written(String bucket, String prefix) {
    return Archive.objects(s3, bucket, prefix + "/");
  }

  private static void assertSameObjects(Map<String, byte[]> actual, Map<String, byte[]> expected) {
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    expected.forEach((key, bytes) -> assertThat(actual.get(key)).as(key).isEqualTo(bytes));
  }

  /** Whatever landed is byte-identical to the clean run's object of the same key. */
  private static void assertNothingCorrupt(Map<String, byte[]> actual, Map<String, byte[]> clean) {
    assertThat(clean.keySet()).containsAll(actual.keySet());
    actual.forEach((key, bytes) -> assertThat(bytes).as(key).isEqualTo(clean.get(key)));
  }

  static Stream<Arguments> transientFaults() {
    return Stream.of(
        Arguments.of("a burst of 500s", 3, 3, new Status(500, "InternalError")),
        Arguments.of("503 SlowDown", 3, 3, new Status(503, "SlowDown")),
        Arguments.of(
            "connection reset in the middle of an upload", 3, 3, new ResetAfterRequestBytes(300)),
        // The first cut answer's PUT had landed: its retry meets that write (issue 12), and the
        // second fault cuts that 412 answer after its status line, which is still read: 1 retry.
        Arguments.of("a truncated response", 2, 1, new TruncateResponse(0.5)),
        Arguments.of("a response cut before its status line", 2, 2, new TruncateResponse(0.0)),
        Arguments.of("a body corrupted in transit", 2, 2, new CorruptRequestBody()),
        Arguments.of(
            "a body truncated with its length fixed up", 2, 2, new TruncateRequestBody(100)),
        Arguments.of("one slow answer inside the deadline", 1, 0, new Delay(2_000, true)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transientFaults")
  void shouldRetryATransientFaultAndWriteExactlyWhatACleanRunWrites(
      String name, int times, int retries, Fault fault) throws Exception {
    String prefix = prefix(name);
    clean(prefix)
        .with("OUTPUT_FORMAT", "csv")
        .handler()
        .invoke(KafkaEvents.eventJson(twoTopicsWithRejects()));
    Map<String, byte[]> expected = written(CLEAN, prefix);
    assertThat(expected).hasSize(6);
    // The data objects' PUTs; a fault on the schema version's PUT has its own test below.
    proxy.next(times, FaultInjectionIT::isDataPut, fault);

    JsonNode log;
    String response;
    try (StdoutCapture out = new StdoutCapture()) {
      response =
          invoke(faulty(prefix).with("OUTPUT_FORMAT", "csv"), batch, new LocalContext(30_000));
      log = MAPPER.readTree(out.lines().get(out.lines().size() - 1));
    }

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(proxy.exchanges()).filteredOn(e -> e.fault() != null).hasSize(times);
    assertThat(log.get("uploadRetries").intValue()).isEqualTo(retries);
    assertThat(log.get("recordsIn").intValue()).isEqualTo(241);
    proxy.awaitIdle(10_000);
    assertSameObjects(written(FAULTY, prefix), expected);
  }

  private static boolean isDataPut(FaultProxy.Request r) {
    return r.isPut() && !r.target().contains("/_schemas/");
  }

  /** Every PUT under the prefix, schema versions included: key to the bytes stored. */
  private static Map<String, byte[]> everything(String bucket, String prefix) {
    Map<String, byte[]> all = new java.util.TreeMap<>(written(bucket, prefix));
    s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix + "/_schemas/"))
        .contents()
        .forEach(
            o ->
                all.put(
                    o.key(),
                    s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray()));
    return all;
  }

  static Stream<Arguments> schemaFaults() {
    return Stream.of(
        Arguments.of("a burst of 500s on the schema write", new Status(500, "InternalError")),
        // The version landed, its answer was lost: the retry meets it (412), reads it back, and
        // finds the columns it wanted.
        Arguments.of("a lost answer to the schema write", new TruncateResponse(0.5)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemaFaults")
  void shouldRetryAFaultOnTheSchemaVersionAndWriteExactlyWhatACleanRunWrites(
      String name, Fault fault) throws Exception {
    String prefix = prefix(name);
    clean(prefix)
        .with("OUTPUT_FORMAT", "csv")
        .handler()
        .invoke(KafkaEvents.eventJson(twoTopicsWithRejects()));
    proxy.next(2, r -> r.isPut() && r.target().contains("/_schemas/"), fault);

    String response =
        invoke(faulty(prefix).with("OUTPUT_FORMAT", "csv"), batch, new LocalContext(30_000));

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(proxy.exchanges()).filteredOn(e -> e.fault() != null).hasSize(2);
    proxy.awaitIdle(10_000);
    Map<String, byte[]> expected = everything(CLEAN, prefix);
    assertThat(expected.keySet()).anySatisfy(k -> assertThat(k).contains("/_schemas/"));
    assertSameObjects(everything(FAULTY, prefix), expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.testing.Formats#variants")
  void shouldSurviveABurstOf500sInEveryFormat(Formats.Variant variant) throws Exception {
    String prefix = prefix("burst-" + variant);
    clean(prefix)
        .with("OUTPUT_FORMAT", variant.format().configName())
        .with("COMPRESSION", variant.compression().configName())
        .handler()
        .invoke(KafkaEvents.eventJson(twoTopicsWithRejects()));
    proxy.nextPuts(4, new Status(500, "InternalError"));

    String response =
        invoke(
            faulty(prefix)
                .with("OUTPUT_FORMAT", variant.format().configName())
                .with("COMPRESSION", variant.compression().configName()),
            batch,
            new LocalContext(30_000));

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    assertSameObjects(written(FAULTY, prefix), written(CLEAN, prefix));
  }

  static Stream<Arguments> persistentFaults() {
    return Stream.of(
        Arguments.of("500 on every attempt", new Status(500, "InternalError"), "ServerError"),
        Arguments.of("SlowDown on every attempt", new Status(503, "SlowDown"), "Throttled"),
        Arguments.of("a reset on every attempt", new ResetAfterRequestBytes(300), "Network"),
        Arguments.of("a corrupted body on every attempt", new CorruptRequestBody(), "ServerError"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("persistentFaults")
  void shouldFailAPersistentFaultBeforeTheDeadlineWithAClearErrorAndWriteNothing(
      String name, Fault fault, String errorType) throws Exception {
    String prefix = prefix(name);
    proxy.always(FaultProxy.Request::isPut, fault);
    LocalContext context = new LocalContext(20_000);
    // One object, so the test takes one object's full retry budget, not one per object.
    byte[] event =
        KafkaEvents.event(
            twoTopicsWithRejects().stream().filter(r -> r.topic().equals("orders")).toList());

    assertThatThrownBy(() -> invoke(faulty(prefix), event, context))
        .isInstanceOf(ArchiveFailedException.class)
        .hasMessageStartingWith(errorType + ": ")
        .hasMessageContaining("6 attempts")
        .hasMessageContaining("records not archived; the batch will be retried");
    assertThat(context.getRemainingTimeInMillis()).isPositive();
    proxy.awaitIdle(10_000);
    assertThat(written(FAULTY, prefix)).isEmpty();
  }

  @Test
  void shouldFailBeforeTheDeadlineWhenS3AnswersTooLateAndLeaveNoCorruptObject() throws Exception {
    String prefix = prefix("latency");
    clean(prefix).handler().invoke(KafkaEvents.eventJson(twoTopicsWithRejects()));
    // Every PUT is held 8 s, then forwarded anyway: the write lands after the function gave up.
    proxy.always(FaultProxy.Request::isPut, new Delay(8_000, true));
    LocalContext context = new LocalContext(5_000);
    long started = System.currentTimeMillis();

    assertThatThrownBy(() -> invoke(faulty(prefix), batch, context))
        .isInstanceOf(ArchiveFailedException.class)
        .hasMessageStartingWith("Timeout: ")
        .hasMessageContaining("before the Lambda deadline");
    assertThat(context.getRemainingTimeInMillis()).isPositive();
    assertThat(System.currentTimeMillis() - started).isLessThan(5_000);

    proxy.awaitIdle(15_000);
    // The late write is the same key and bytes as the retry will write: harmless, never partial.
    assertNothingCorrupt(written(FAULTY, prefix), written(CLEAN, prefix));
  }

  /**
   * Changed with issue 12 (exactly-once). Every PUT lands but its answer is lost; the SDK's retry
   * of the same conditional PUT meets the object its first attempt wrote (412), the function reads
   * that object's claim (HeadObject), finds it covers exactly the offsets it meant to write, and so
   * the batch IS archived: success is the truth, and every offset is stored exactly once.
   */
  @Test
  void shouldReportSuccessWhenEveryAnswerIsLostButEachRetryMeetsItsOwnClaim() throws Exception {
    String prefix = prefix("lost-answers");
    clean(prefix).handler().invoke(KafkaEvents.eventJson(twoTopicsWithRejects()));
    proxy.always(FaultProxy.Request::isPut, new TruncateResponse(0.5));

    String response = invoke(faulty(prefix), batch, new LocalContext(20_000));

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(proxy.exchanges()).anySatisfy(e -> assertThat(e.status()).isEqualTo(412));
    proxy.awaitIdle(10_000);
    assertSameObjects(written(FAULTY, prefix), written(CLEAN, prefix));
  }

  @Test
  void shouldReportTheFailedTopicPartitionsInsteadOfThrowingWhenItemFailuresAreReported()
      throws Exception {
    String prefix = prefix("item-failures");
    proxy.always(
        r -> r.isPut() && r.target().contains("/payments/"), new Status(500, "InternalError"));

    String response =
        invoke(
            faulty(prefix).with("REPORT_BATCH_ITEM_FAILURES", "true"),
            batch,
            new LocalContext(30_000));

    assertThat(MAPPER.readTree(response))
        .isEqualTo(
            MAPPER.readTree(
                "{\"batchItemFailures\":[{\"itemIdentifier\":{\"topic-partition\":\"payments-0\","
                    + "\"offset\":50}}]}"));
    // orders-0 and orders-1 are archived, one object each (issue 12); nothing of payments.
    assertThat(written(FAULTY, prefix).keySet())
        .hasSize(2)
        .allSatisfy(k -> assertThat(k).startsWith(prefix + "/orders/"));
  }

  @Test
  void shouldSendAContentMd5OfExactlyTheBytesItMeansToStore() throws Exception {
    String prefix = prefix("md5");
    invoke(faulty(prefix).with("OUTPUT_FORMAT", "csv"), batch, new LocalContext(30_000));

    // Data and error objects, and the topics' schema versions (csv): each PUT carries its MD5.
    Map<String, byte[]> objects = everything(FAULTY, prefix);
    assertThat(objects.keySet()).anySatisfy(k -> assertThat(k).contains("/_schemas/"));
    assertThat(proxy.exchanges()).filteredOn(e -> e.method().equals("PUT")).hasSize(objects.size());
    for (var e : proxy.exchanges().stream().filter(x -> x.method().equals("PUT")).toList()) {
      String key =
          java.net.URLDecoder.decode(
              e.target().substring(("/" + FAULTY + "/").length()),
              java.nio.charset.StandardCharsets.UTF_8);
      byte[] md5 = MessageDigest.getInstance("MD5").digest(objects.get(key));
      assertThat(e.header("Content-MD5")).isEqualTo(Base64.getEncoder().encodeToString(md5));
    }
  }

  @Test
  void shouldHaveTheServerRefuseABodyThatDoesNotMatchItsContentMd5() {
    // What makes Content-MD5 an integrity check and not decoration: the server verifies it.
    assertThatThrownBy(
            () ->
                s3.putObject(
                    b -> b.bucket(FAULTY).key("md5-check").contentMD5("AAAAAAAAAAAAAAAAAAAAAA=="),
                    RequestBody.fromString("the real body")))
        .isInstanceOf(S3Exception.class)
        .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(400));
    assertThat(written(FAULTY, "md5-check")).isEmpty();
  }
}
