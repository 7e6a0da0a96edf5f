package io.kafkas3archiver.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** EMF documents stay within CloudWatch's limit of 100 values per metric, and lose no value. */
class EmfMetricsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void shouldSplitMoreThanOneHundredUploadLatenciesOverDocumentsAndCountEverythingElseOnce()
      throws Exception {
    List<WrittenObject> objects = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      objects.add(new WrittenObject("k" + i, WrittenObject.Kind.DATA, 1, 10, 10, 1, 1000 + i));
    }
    TopicOutcome topic =
        new TopicOutcome("t", 250, 250, 0, 0, 0, 0, 1_000L, objects, 0, List.of(), 0, 0);

    List<JsonNode> documents = publish(new BatchOutcome(List.of(topic), List.of()));

    assertThat(documents).hasSize(3);
    List<Long> latencies = new ArrayList<>();
    for (JsonNode d : documents) {
      JsonNode values = d.get("UploadLatency");
      assertThat(values.size()).isBetween(1, EmfMetrics.MAX_VALUES_PER_METRIC);
      values.forEach(v -> latencies.add(v.asLong()));
      assertThat(d.get("Topic").asText()).isEqualTo("t");
      List<String> declared = new ArrayList<>();
      d.at("/_aws/CloudWatchMetrics/0/Metrics").forEach(m -> declared.add(m.get("Name").asText()));
      declared.forEach(name -> assertThat(d.has(name)).as(name).isTrue());
    }
    assertThat(latencies).hasSize(250).doesNotHaveDuplicates();
    assertThat(documents.stream().filter(d -> d.has("RecordsIn")).toList())
        .singleElement()
        .satisfies(d -> assertThat(d.get("ObjectsWritten").asInt()).isEqualTo(250));
  }

  @Test
  void shouldWriteOneDocumentPerTopicWhenLatenciesFit() throws Exception {
    List<WrittenObject> objects =
        List.of(new WrittenObject("k", WrittenObject.Kind.DATA, 1, 10, 10, 1, 5));
    TopicOutcome topic =
        new TopicOutcome("t", 1, 1, 0, 0, 0, 0, 1_000L, objects, 0, List.of(), 0, 0);

    assertThat(publish(new BatchOutcome(List.of(topic), List.of())))
        .singleElement()
        .satisfies(d -> assertThat(d.get("UploadLatency").size()).isEqualTo(1));
  }

  @Test
  void shouldSendThePartitioningCountsOnceBesideSplitLatencies() throws Exception {
    List<WrittenObject> objects = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      objects.add(new WrittenObject("k" + i, WrittenObject.Kind.DATA, 1, 10, 10, 1, 1000 + i));
    }
    TopicOutcome topic =
        new TopicOutcome("t", 157, 150, 0, 0, 0, 0, 1_000L, objects, 0, List.of(), 7, 3);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new EmfMetrics(new PrintStream(out, true, StandardCharsets.UTF_8), "title", true, true)
        .publish(new BatchOutcome(List.of(topic), List.of()), 2_000L);
    List<JsonNode> documents = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
      documents.add(JSON.readTree(line));
    }

    assertThat(documents).hasSize(2);
    for (JsonNode d : documents) {
      List<String> declared = new ArrayList<>();
      d.at("/_aws/CloudWatchMetrics/0/Metrics").forEach(m -> declared.add(m.get("Name").asText()));
      declared.forEach(name -> assertThat(d.has(name)).as(name).isTrue());
    }
    assertThat(documents.stream().filter(d -> d.has(EmfMetrics.TIME_FALLBACKS)).toList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.get(EmfMetrics.TIME_FALLBACKS).asInt()).isEqualTo(3);
              assertThat(d.get(EmfMetrics.RECORDS_DEFERRED).asInt()).isEqualTo(7);
              assertThat(d.at("/_aws/CloudWatchMetrics/0/Metrics").toString())
                  .contains("\"Name\":\"TimeFallbacks\",\"Unit\":\"Count\"")
                  .contains("\"Name\":\"RecordsDeferred\",\"Unit\":\"Count\"");
            });
  }

  @Test
  void shouldSendValuesOverflowedForTabularFormatsZerosIncluded() throws Exception {
    List<WrittenObject> objects =
        List.of(new WrittenObject("k", WrittenObject.Kind.DATA, 1, 10, 10, 1, 5));
    TopicOutcome overflowed =
        new TopicOutcome("t", 4, 4, 0, 0, 0, 0, 1_000L, objects, 0, List.of(), 0, 0, 2);
    TopicOutcome none =
        new TopicOutcome("u", 1, 1, 0, 0, 0, 0, 1_000L, objects, 0, List.of(), 0, 0, 0);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new EmfMetrics(new PrintStream(out, true, StandardCharsets.UTF_8), "title", false, false, true)
        .publish(new BatchOutcome(List.of(overflowed, none), List.of()), 2_000L);
    List<JsonNode> documents = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) {
      documents.add(JSON.readTree(line));
    }

    assertThat(documents).hasSize(2);
    assertThat(documents.get(0).get(EmfMetrics.VALUES_OVERFLOWED).asInt()).isEqualTo(2);
    assertThat(documents.get(1).get(EmfMetrics.VALUES_OVERFLOWED).asInt()).isZero();
    for (JsonNode d : documents) {
      assertThat(d.at("/_aws/CloudWatchMetrics/0/Metrics").toString())
          .contains("\"Name\":\"ValuesOverflowed\",\"Unit\":\"Count\"");
    }
    // json, ndjson and iceberg have no columns: no ValuesOverflowed
    assertThat(publish(new BatchOutcome(List.of(overflowed), List.of())))
        .allSatisfy(d -> assertThat(d.has(EmfMetrics.VALUES_OVERFLOWED)).isFalse());
  }

  private static List<JsonNode> publish(BatchOutcome outcome) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new EmfMetrics(new PrintStream(out, true, StandardCharsets.UTF_8), "title")
        .publish(outcome, 2_000L);
    List<JsonNode> documents = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) {
      documents.add(JSON.readTree(line));
    }
    return documents;
  }
}
