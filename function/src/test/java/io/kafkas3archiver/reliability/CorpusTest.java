package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.BadEventException;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.KafkaEvents;
import io.kafkas3archiver.testing.KafkaEvents.Rec;
import io.kafkas3archiver.testing.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bad-input corpus ({@code src/test/resources/corpus/}): every case, in every format this build
 * accepts, values-only and with Kafka metadata, through the real handler. Each case's outcome is
 * fixed in {@code manifest.json} and documented in the README's "Bad input" table. Whatever the
 * input, nothing escapes as an unexpected exception, and every record is accounted for: records in
 * = rows written + error rows + tombstones skipped, checked by reading every object back.
 */
class CorpusTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Path CORPUS = Path.of("src", "test", "resources", "corpus");

  /** One case of the manifest. Counts are per format family: "json" (json, ndjson) and "csv". */
  record Case(
      String name,
      String outcome,
      int records,
      Map<String, String> env,
      Map<String, Counts> expected,
      String reason,
      Map<String, List<String>> contains,
      List<String> keys,
      String generate,
      String outcomeDoc) {
    @Override
    public String toString() {
      return name;
    }
  }

  record Counts(int written, int errored, int tombstones) {}

  static List<Case> cases() throws IOException {
    JsonNode manifest = MAPPER.readTree(CORPUS.resolve("manifest.json").toFile());
    List<Case> cases = new ArrayList<>();
    for (JsonNode c : manifest.get("cases")) {
      Map<String, String> env = new TreeMap<>();
      c.path("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
      Map<String, Counts> expected = new HashMap<>();
      for (String family : List.of("json", "csv")) {
        JsonNode n = c.get(family);
        if (n != null) {
          expected.put(family, new Counts(n.get(0).asInt(), n.get(1).asInt(), n.get(2).asInt()));
        }
      }
      Map<String, List<String>> contains = new HashMap<>();
      c.path("contains")
          .properties()
          .forEach(
              e -> {
                List<String> texts = new ArrayList<>();
                e.getValue().forEach(t -> texts.add(t.asText()));
                contains.put(e.getKey(), texts);
              });
      List<String> keys = new ArrayList<>();
      c.path("keys").forEach(k -> keys.add(k.asText()));
      cases.add(
          new Case(
              c.get("case").asText(),
              c.get("outcome").asText(),
              c.path("records").asInt(0),
              env,
              expected,
              c.path("reason").isTextual() ? c.get("reason").asText() : null,
              contains,
              keys,
              c.path("generate").isTextual() ? c.get("generate").asText() : null,
              c.get("doc").asText()));
    }
    return cases;
  }

  static Stream<Arguments> runs() throws IOException {
    List<Arguments> runs = new ArrayList<>();
    for (Case c : cases()) {
      for (Format f : Formats.formats()) {
        runs.add(Arguments.of(c, f, false));
        runs.add(Arguments.of(c, f, true));
      }
    }
    return runs.stream();
  }

  /** Keeps every object in memory. */
  static final class MemoryStore extends io.kafkas3archiver.testing.MemoryStore {}

  @Test
  void shouldHaveAManifestEntryForEveryCaseFileAndAtLeastFortyCases() throws IOException {
    Set<String> files;
    try (Stream<Path> list = Files.list(CORPUS.resolve("cases"))) {
      files =
          list.map(p -> p.getFileName().toString().replaceAll("\\.json$", ""))
              .collect(Collectors.toCollection(TreeSet::new));
    }
    Set<String> fromFiles = new TreeSet<>();
    Set<String> generated = new TreeSet<>();
    for (Case c : cases()) {
      (c.generate() == null ? fromFiles : generated).add(c.name());
      assertThat(c.outcomeDoc()).as(c.name()).isNotBlank();
    }
    assertThat(fromFiles).isEqualTo(files);
    assertThat(generated).containsExactlyInAnyOrder("record-over-1mb", "ten-thousand-tiny-records");
    assertThat(cases()).hasSizeGreaterThanOrEqualTo(40);
  }

  @ParameterizedTest(name = "{0} [{1}, metadata={2}]")
  @MethodSource("runs")
  void shouldMeetTheDocumentedOutcomeAndLoseNoRecord(Case c, Format format, boolean metadata)
      throws Exception {
    byte[] event = c.generate() != null ? generate(c.generate()) : read(c.name());
    Map<String, String> env = new HashMap<>(c.env());
    env.put("BUCKET_NAME", "corpus-bucket");
    env.put("AWS_REGION", "us-east-1");
    env.put("OUTPUT_FORMAT", format.configName());
    env.put("INCLUDE_KAFKA_METADATA", Boolean.toString(metadata));
    MemoryStore store = new MemoryStore();
    ByteArrayOutputStream response = new ByteArrayOutputStream();
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();

    PrintStream original = System.out;
    Throwable thrown = null;
    try {
      System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
      // Built here: the handler's log writes to the System.out of its construction.
      ArchiverHandler handler =
          new ArchiverHandler(ArchiverConfig.fromEnv(env), store, Clock.systemUTC());
      handler.handleRequest(new ByteArrayInputStream(event), response, new LocalContext(60_000));
    } catch (Throwable t) {
      thrown = t;
    } finally {
      System.setOut(original);
    }

    if (c.outcome().equals("event-rejected")) {
      assertThat(thrown).as("an event that is not an ESM batch fails the invocation").isNotNull();
      Throwable failure = thrown;
      assertThatThrownBy(() -> rethrow(failure))
          .isInstanceOf(BadEventException.class)
          .hasMessageContaining(c.reason());
      assertThat(store.objects).isEmpty();
      return;
    }
    assertThat(thrown).as("no exception escapes for %s", c.name()).isNull();
    assertThat(response.toString(StandardCharsets.UTF_8)).isEqualTo("{\"batchItemFailures\":[]}");
    String[] lines = stdout.toString(StandardCharsets.UTF_8).split("\n");
    JsonNode log = MAPPER.readTree(lines[lines.length - 1]);
    int in = log.get("recordsIn").asInt();
    Counts actual =
        new Counts(
            log.get("recordsWritten").asInt(),
            log.get("recordsErrored").asInt(),
            log.get("tombstonesSkipped").asInt());

    // Every record accounted for, in the log and in the objects read back.
    assertThat(in).as("recordsIn").isEqualTo(c.records());
    assertThat(actual.written() + actual.errored() + actual.tombstones()).isEqualTo(in);
    assertThat(log.get("recordsFailed").asInt()).isZero();
    List<ObjectNode> dataRows = new ArrayList<>();
    List<ObjectNode> errorRows = new ArrayList<>();
    store.objects.forEach(
        (key, body) -> {
          assertThat(key).startsWith("condense/").doesNotContain("/../", "/./", "//");
          if (key.contains("/_schemas/")) {
            return; // the topic's schema versions (csv, parquet), not rows
          }
          (key.contains("/_errors/") ? errorRows : dataRows).addAll(Archive.rows(key, body));
        });
    assertThat(dataRows).as("data rows read back").hasSize(actual.written());
    assertThat(errorRows).as("error rows read back").hasSize(actual.errored());
    if (metadata) {
      assertThat(actual.tombstones()).as("with metadata, tombstones are rows").isZero();
      List<Long> offsets = new ArrayList<>();
      dataRows.forEach(r -> offsets.add(offsetOf(r)));
      errorRows.stream().filter(r -> r.hasNonNull("offset")).forEach(r -> offsets.add(offsetOf(r)));
      assertThat(offsets).containsExactlyInAnyOrderElementsOf(offsetsIn(event));
    }
    if (c.reason() != null && actual.errored() > 0) {
      assertThat(errorRows)
          .anySatisfy(r -> assertThat(r.get("reason").asText()).contains(c.reason()));
    }
    String family = family(format);
    if (!metadata && family != null && c.expected().containsKey(family)) {
      assertThat(actual).as("%s in %s", c.name(), format).isEqualTo(c.expected().get(family));
    }
    if (!metadata && family != null && c.contains().containsKey(family)) {
      StringBuilder data = new StringBuilder();
      store.objects.forEach(
          (key, body) -> {
            if (!key.contains("/_errors/") && !key.contains("/_schemas/")) {
              data.append(new String(body, StandardCharsets.UTF_8));
            }
          });
      assertThat(data.toString()).contains(c.contains().get(family));
    }
    for (String part : c.keys()) {
      assertThat(store.objects.keySet()).anySatisfy(k -> assertThat(k).contains(part));
    }
  }

  private static String family(Format f) {
    return switch (f) {
      case JSON, NDJSON -> "json";
      case CSV -> "csv";
      case PARQUET, ICEBERG -> null;
    };
  }

  private static long offsetOf(ObjectNode row) {
    Long offset = Archive.offset(row);
    assertThat(offset).as("offset of %s", row).isNotNull();
    return offset;
  }

  /** The offsets every record of the event carries (records without one are error rows). */
  private static List<Long> offsetsIn(byte[] event) throws IOException {
    List<Long> offsets = new ArrayList<>();
    JsonNode records = MAPPER.readTree(event).get("records");
    Iterator<JsonNode> lists = records.elements();
    while (lists.hasNext()) {
      for (JsonNode r : lists.next()) {
        if (r.path("offset").canConvertToLong()) {
          offsets.add(r.get("offset").asLong());
        }
      }
    }
    return offsets;
  }

  private static void rethrow(Throwable t) throws Throwable {
    throw t;
  }

  private static byte[] read(String name) throws IOException {
    return Files.readAllBytes(CORPUS.resolve("cases").resolve(name + ".json"));
  }

  /** The two cases too large to keep as files. */
  static byte[] generate(String name) {
    long t = 1_784_023_200_000L;
    List<Rec> records = new ArrayList<>();
    switch (name) {
      case "record-over-1mb" -> {
        String big = "{\"blob\":\"" + "z".repeat(1_500_000) + "\",\"n\":1}";
        records.add(Rec.of("corpus", 0, 900, t, big));
        records.add(Rec.of("corpus", 0, 901, t, "{\"small\":true}"));
      }
      case "ten-thousand-tiny-records" -> {
        for (int i = 0; i < 10_000; i++) {
          records.add(Rec.of("corpus", i % 3, 10_000 + i, t + i, "{\"i\":" + i + "}"));
        }
      }
      default -> throw new IllegalArgumentException("no generator for " + name);
    }
    return KafkaEvents.event(records);
  }
}
