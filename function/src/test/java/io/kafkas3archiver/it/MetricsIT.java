package io.kafkas3archiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The EMF documents and log lines a known batch emits, parsed back and checked field by field. */
class MetricsIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static S3ProxyServer server;

  /** Two topics: orders has 2 objects, 1 text value (csv error) and 1 tombstone; audit 1 object. */
  private static final String EVENT =
      """
      {"eventSource":"aws:kafka","records":{
        "orders-0":[
          {"topic":"orders","partition":0,"offset":10,"timestamp":1783955045000,"value":"eyJpZCI6MX0="},
          {"topic":"orders","partition":0,"offset":11,"timestamp":1783955046000,"value":"eyJpZCI6Mn0="},
          {"topic":"orders","partition":0,"offset":12,"timestamp":1783955047000,"value":"aGVsbG8="},
          {"topic":"orders","partition":0,"offset":13,"timestamp":1783955048000,"value":null}],
        "audit-3":[
          {"topic":"audit","partition":3,"offset":7,"timestamp":1783955049000,"value":"eyJ3aG8iOiJtZSJ9"}]}}
      """;

  private static final Map<String, String> UNITS = new LinkedHashMap<>();
  private static final java.util.concurrent.atomic.AtomicInteger RUNS =
      new java.util.concurrent.atomic.AtomicInteger();

  static {
    UNITS.put("RecordsIn", "Count");
    UNITS.put("RecordsWritten", "Count");
    UNITS.put("RecordsErrored", "Count");
    UNITS.put("TombstonesSkipped", "Count");
    UNITS.put("ObjectsWritten", "Count");
    UNITS.put("BytesWritten", "Bytes");
    UNITS.put("UploadLatency", "Milliseconds");
    UNITS.put("BatchAgeMs", "Milliseconds");
    UNITS.put("UploadRetries", "Count");
    // csv: values a column cannot hold exactly, kept in _overflow (issue 24).
    UNITS.put("ValuesOverflowed", "Count");
  }

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket("metrics");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static List<JsonNode> run(String logLevel) throws Exception {
    try (StdoutCapture out = new StdoutCapture()) {
      Harness.against(server.endpoint().toString(), "metrics")
          .with("OUTPUT_FORMAT", "csv")
          // A fresh prefix per run: since issue 12 a rerun of the same batch writes nothing.
          .with("KEY_PREFIX", "metrics-" + System.nanoTime())
          .with("TITLE", "S3_Event_Archive_Prod")
          .with("LOG_LEVEL", logLevel)
          // Each run its own prefix: the same batch again would meet its objects and write none.
          .with("KEY_PREFIX", "run-" + RUNS.incrementAndGet())
          .handler()
          .invoke(EVENT);
      List<JsonNode> lines = new java.util.ArrayList<>();
      for (String line : out.lines()) {
        lines.add(MAPPER.readTree(line));
      }
      return lines;
    }
  }

  @Test
  void shouldEmitOneValidEmfDocumentPerTopicWithReconcilingCounts() throws Exception {
    List<JsonNode> docs = run("info").stream().filter(n -> n.has("_aws")).toList();

    assertThat(docs).extracting(d -> d.get("Topic").asText()).containsExactly("audit", "orders");
    for (JsonNode doc : docs) {
      JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
      assertThat(doc.get("_aws").get("Timestamp").isIntegralNumber()).isTrue();
      assertThat(directive.get("Namespace").asText()).isEqualTo("KafkaS3Archiver");
      assertThat(directive.get("Dimensions").toString())
          .isEqualTo("[[\"Title\",\"Topic\"],[\"Title\"]]");
      assertThat(doc.get("Title").asText()).isEqualTo("S3_Event_Archive_Prod");
      Map<String, String> declared = new LinkedHashMap<>();
      directive
          .get("Metrics")
          .forEach(m -> declared.put(m.get("Name").asText(), m.get("Unit").asText()));
      assertThat(declared).isEqualTo(UNITS);
      for (String name : UNITS.keySet()) {
        assertThat(doc.has(name)).as("value of %s", name).isTrue();
      }
      assertThat(doc.get("RecordsIn").asInt())
          .isEqualTo(
              doc.get("RecordsWritten").asInt()
                  + doc.get("RecordsErrored").asInt()
                  + doc.get("TombstonesSkipped").asInt());
      assertThat(doc.get("UploadLatency").size()).isEqualTo(doc.get("ObjectsWritten").asInt());
      assertThat(doc.get("BatchAgeMs").asLong()).isGreaterThan(0);
      assertThat(doc.get("UploadRetries").asInt()).isZero();
      assertThat(doc.get("ValuesOverflowed").asInt()).isZero();
    }
    JsonNode orders = docs.get(1);
    assertThat(orders.get("RecordsIn").asInt()).isEqualTo(4);
    assertThat(orders.get("RecordsWritten").asInt()).isEqualTo(2);
    assertThat(orders.get("RecordsErrored").asInt()).isEqualTo(1);
    assertThat(orders.get("TombstonesSkipped").asInt()).isEqualTo(1);
    assertThat(orders.get("ObjectsWritten").asInt()).isEqualTo(2);
    assertThat(orders.get("BytesWritten").asLong()).isGreaterThan(0);
    JsonNode audit = docs.get(0);
    assertThat(audit.get("RecordsIn").asInt()).isEqualTo(1);
    assertThat(audit.get("ObjectsWritten").asInt()).isEqualTo(1);
  }

  @Test
  void shouldMatchTheInvocationLogLineToTheMetrics() throws Exception {
    List<JsonNode> lines = run("info");
    JsonNode log =
        lines.stream()
            .filter(n -> "batch archived".equals(n.path("message").asText()))
            .findFirst()
            .orElseThrow();
    int sumIn =
        lines.stream().filter(n -> n.has("_aws")).mapToInt(n -> n.get("RecordsIn").asInt()).sum();

    assertThat(log.get("level").asText()).isEqualTo("INFO");
    assertThat(log.get("recordsIn").asInt()).isEqualTo(5).isEqualTo(sumIn);
    assertThat(log.get("objectsWritten").asInt()).isEqualTo(3);
    assertThat(log.get("keys").size()).isEqualTo(3);
    assertThat(log.get("bytesBeforeCompression").asLong())
        .isEqualTo(log.get("bytesWritten").asLong());
  }

  @Test
  void shouldHonourTheLogLevel() throws Exception {
    List<JsonNode> quiet = run("error");
    List<JsonNode> verbose = run("debug");

    assertThat(quiet).allSatisfy(n -> assertThat(n.has("_aws")).isTrue());
    assertThat(verbose)
        .filteredOn(n -> "object written".equals(n.path("message").asText()))
        .hasSize(3)
        .allSatisfy(n -> assertThat(n.get("level").asText()).isEqualTo("DEBUG"));
  }
}
