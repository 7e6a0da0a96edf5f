package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.BadEventException;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.reliability.CorpusTest.Case;
import io.kafkas3archiver.reliability.CorpusTest.MemoryStore;
import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.OutputCapture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No payload bytes in logs (DESIGN §6). Every case of the bad-input corpus is fed through the real
 * handler with canaries in its payloads: each word of ASCII letters in every record key, value and
 * header value is replaced by a canary ({@code Canä<n>Zq}, the same word always by the same canary,
 * so duplicate fields stay duplicates and each case keeps its outcome). Cases the handler rejects
 * as a whole get the canaries in the event text itself. Then every printed line, every SLF4J event
 * and the full text of any exception thrown (causes included) is searched for each canary as is,
 * JSON-escaped, URL-encoded and base64-encoded at every byte alignment.
 *
 * <p>At the default level nothing may leak; at LOG_LEVEL=debug the masked excerpts and positions
 * may appear, but still no canary.
 */
class PayloadLogLeakTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Path CORPUS = Path.of("src", "test", "resources", "corpus");

  /** Words left alone when canaries go into a whole event: the event's own field names. */
  private static final Set<String> EVENT_WORDS =
      Set.of(
          "eventSource",
          "eventSourceArn",
          "bootstrapServers",
          "records",
          "topic",
          "partition",
          "offset",
          "timestamp",
          "timestampType",
          "key",
          "value",
          "headers",
          "action",
          "aws",
          "kafka",
          "arn",
          "east",
          "corpus",
          "cluster",
          "CREATE",
          "TIME",
          "LOG",
          "APPEND",
          "true",
          "false",
          "null");

  private static final Set<String> JSON_LITERALS = Set.of("true", "false", "null");

  static Stream<Arguments> runs() throws IOException {
    List<Arguments> runs = new ArrayList<>();
    for (Case c : CorpusTest.cases()) {
      for (Format f : Formats.formats()) {
        runs.add(Arguments.of(c, f, false, "info"));
        runs.add(Arguments.of(c, f, true, "info"));
      }
      // DEBUG adds positions and masked excerpts: still no payload.
      runs.add(Arguments.of(c, Format.CSV, true, "debug"));
    }
    return runs.stream();
  }

  @ParameterizedTest(name = "{0} [{1}, metadata={2}, LOG_LEVEL={3}]")
  @MethodSource("runs")
  void shouldLogNoPayloadByteOfAnyBadInput(Case c, Format format, boolean metadata, String logLevel)
      throws Exception {
    // Given the case's event with a canary in every word of its payloads
    Canaries canaries = new Canaries();
    byte[] original =
        c.generate() != null
            ? CorpusTest.generate(c.generate())
            : Files.readAllBytes(CORPUS.resolve("cases").resolve(c.name() + ".json"));
    boolean wholeEvent = c.outcome().equals("event-rejected");
    byte[] event =
        wholeEvent ? canaries.inText(original, EVENT_WORDS) : canaries.inPayloads(original);

    Map<String, String> env = new HashMap<>(c.env());
    env.put("BUCKET_NAME", "corpus-bucket");
    env.put("AWS_REGION", "us-east-1");
    env.put("OUTPUT_FORMAT", format.configName());
    env.put("INCLUDE_KAFKA_METADATA", Boolean.toString(metadata));
    env.put("LOG_LEVEL", logLevel);
    MemoryStore store = new MemoryStore();
    Throwable thrown = null;
    String everything;

    // When the real handler archives it, with everything printed, logged and thrown captured
    try (OutputCapture capture = OutputCapture.start()) {
      try {
        ArchiverHandler handler =
            new ArchiverHandler(ArchiverConfig.fromEnv(env), store, Clock.systemUTC());
        handler.handleRequest(
            new ByteArrayInputStream(event), new ByteArrayOutputStream(), new LocalContext(60_000));
      } catch (Throwable t) {
        thrown = t;
        capture.exception(t);
      }
      everything = capture.all();
    }

    // Then the case kept its outcome (the canaries changed no case into another)
    if (wholeEvent) {
      assertThat(thrown).isInstanceOf(BadEventException.class).hasMessageContaining(c.reason());
    } else {
      assertThat(thrown).as("no exception escapes for %s", c.name()).isNull();
      JsonNode log = lastLogLine(everything);
      assertThat(
              log.get("recordsWritten").asInt()
                  + log.get("recordsErrored").asInt()
                  + log.get("tombstonesSkipped").asInt())
          .as("records accounted for")
          .isEqualTo(log.get("recordsIn").asInt())
          .isEqualTo(c.records());
      if (logLevel.equals("debug") && log.get("recordsErrored").asInt() > 0) {
        // At DEBUG each rejected record gets a line with its position, lengths and masked excerpt
        assertThat(everything)
            .contains("\"message\":\"record sent to the error object\"")
            .contains("\"maskedExcerpt\"");
      }
      if (canaries.inValues) {
        // And the canaries did travel: the archive (rows or error objects) holds them
        assertThat(canaries.foundIn(store.objects.values()))
            .as("a canary reached the archive")
            .isTrue();
      }
    }

    // And no canary appears in any form in anything printed, logged or thrown, nor in the reasons
    // of the error objects (those may be logged; the raw value beside them may not)
    StringBuilder reasons = new StringBuilder();
    store.objects.forEach(
        (key, body) -> {
          if (key.contains("/_errors/")) {
            for (ObjectNode row : Archive.rows(key, body)) {
              reasons.append("\nerror-object reason: ").append(row.path("reason").asText());
            }
          }
        });
    everything += reasons;
    for (String canary : canaries.all()) {
      for (Map.Entry<String, String> form : forms(canary).entrySet()) {
        int at = everything.indexOf(form.getValue());
        if (at >= 0) {
          throw new AssertionError(
              "payload canary '"
                  + canary
                  + "' leaked "
                  + form.getKey()
                  + " ('"
                  + form.getValue()
                  + "'); context:\n"
                  + everything.substring(
                      Math.max(0, at - 300), Math.min(everything.length(), at + 200)));
        }
      }
    }
  }

  @Test
  void shouldPutCanariesIntoNearlyEveryCase() throws IOException {
    int withCanaries = 0;
    for (Case c : CorpusTest.cases()) {
      byte[] original =
          c.generate() != null
              ? CorpusTest.generate(c.generate())
              : Files.readAllBytes(CORPUS.resolve("cases").resolve(c.name() + ".json"));
      Canaries canaries = new Canaries();
      if (c.outcome().equals("event-rejected")) {
        canaries.inText(original, EVENT_WORDS);
      } else {
        canaries.inPayloads(original);
      }
      if (!canaries.all().isEmpty()) {
        withCanaries++;
      }
    }
    assertThat(withCanaries).isGreaterThanOrEqualTo(50);
  }

  @Test
  void shouldFindACanaryInEveryEncodingItChecks() {
    // The scan is only as good as its encodings: each must find a canary inside a longer value.
    String canary = "Canä7Zq";
    byte[] value = ("{\"name\":\"" + canary + "\",\"n\":1}").getBytes(StandardCharsets.UTF_8);
    for (int pad = 0; pad < 3; pad++) {
      byte[] shifted = new byte[value.length + pad];
      System.arraycopy(value, 0, shifted, pad, value.length);
      String b64 = Base64.getEncoder().encodeToString(shifted);
      assertThat(forms(canary).values()).anySatisfy(f -> assertThat(b64).contains(f));
    }
    assertThat(forms(canary).values())
        .contains(canary, "Can\\u00e47Zq", URLEncoder.encode(canary, StandardCharsets.UTF_8));
  }

  /** A canary as it could appear in text: as is, JSON-escaped, URL-encoded, base64 (3 shifts). */
  static Map<String, String> forms(String canary) {
    Map<String, String> forms = new LinkedHashMap<>();
    forms.put("as is", canary);
    StringBuilder escaped = new StringBuilder();
    StringBuilder escapedUpper = new StringBuilder();
    for (char ch : canary.toCharArray()) {
      escaped.append(ch < 0x80 ? String.valueOf(ch) : String.format("\\u%04x", (int) ch));
      escapedUpper.append(ch < 0x80 ? String.valueOf(ch) : String.format("\\u%04X", (int) ch));
    }
    forms.put("JSON-escaped", escaped.toString());
    forms.put("JSON-escaped (upper-case hex)", escapedUpper.toString());
    forms.put("URL-encoded", URLEncoder.encode(canary, StandardCharsets.UTF_8));
    forms.put(
        "URL-encoded (lower-case hex)",
        URLEncoder.encode(canary, StandardCharsets.UTF_8).replace("%C3%A4", "%c3%a4"));
    byte[] bytes = canary.getBytes(StandardCharsets.UTF_8);
    for (int shift = 0; shift < 3; shift++) {
      byte[] padded = new byte[shift + bytes.length];
      System.arraycopy(bytes, 0, padded, shift, bytes.length);
      for (Base64.Encoder encoder :
          List.of(Base64.getEncoder().withoutPadding(), Base64.getUrlEncoder().withoutPadding())) {
        String b64 = encoder.encodeToString(padded);
        // Characters that depend only on the canary's bytes, whatever surrounds it.
        int from = (shift + 2) / 3 * 4;
        int to = (shift + bytes.length) / 3 * 4;
        if (to - from >= 4) {
          forms.put("base64 at shift " + shift, b64.substring(from, to));
        }
      }
    }
    return forms;
  }

  private static JsonNode lastLogLine(String printed) throws IOException {
    JsonNode last = null;
    for (String line : printed.split("\n")) {
      if (line.startsWith("{\"level\"")) {
        last = MAPPER.readTree(line);
      }
    }
    assertThat(last).as("the invocation's log line").isNotNull();
    return last;
  }

  /** Puts canaries into payloads and remembers them. */
  static final class Canaries {
    private static final Pattern BASE64_FIELD =
        Pattern.compile("\"(key|value)\"(\\s*:\\s*)\"([^\"\\\\]*)\"");
    private static final Pattern BYTE_ARRAY_HEADER =
        Pattern.compile("\\{(\\s*\"[^\"]*\"\\s*:\\s*)\\[([-0-9,\\s]*)\\](\\s*)\\}");
    private static final Pattern BASE64_HEADER =
        Pattern.compile("\\{(\\s*\"[^\"]*\"\\s*:\\s*)\"([A-Za-z0-9+/=]+)\"(\\s*)\\}");

    private final Map<String, String> byWord = new LinkedHashMap<>();
    boolean inValues;

    Set<String> all() {
      return new LinkedHashSet<>(byWord.values());
    }

    private String canary(String word) {
      return byWord.computeIfAbsent(word, w -> "Canä" + byWord.size() + "Zq");
    }

    /** Canaries into every base64 key and value, and every header value, of a parseable event. */
    byte[] inPayloads(byte[] event) {
      String text = new String(event, StandardCharsets.ISO_8859_1); // byte-exact round trip
      text =
          replaceAll(
              BASE64_FIELD,
              text,
              m -> {
                String mutated = base64(m.group(3), m.group(1).equals("value"));
                return "\"" + m.group(1) + "\"" + m.group(2) + "\"" + mutated + "\"";
              });
      text =
          replaceAll(
              BYTE_ARRAY_HEADER,
              text,
              m -> {
                String[] parts = m.group(2).split(",");
                if (m.group(2).isBlank()) {
                  return m.group();
                }
                byte[] bytes = new byte[parts.length];
                for (int i = 0; i < parts.length; i++) {
                  bytes[i] = (byte) Integer.parseInt(parts[i].trim());
                }
                byte[] mutated = words(bytes, Set.of());
                StringBuilder list = new StringBuilder();
                for (byte b : mutated) {
                  list.append(list.isEmpty() ? "" : ",").append(b);
                }
                return "{" + m.group(1) + "[" + list + "]" + m.group(3) + "}";
              });
      text =
          replaceAll(
              BASE64_HEADER,
              text,
              m -> "{" + m.group(1) + "\"" + base64(m.group(2), false) + "\"" + m.group(3) + "}");
      return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Canaries into the words of a whole event that the handler rejects, but its field names. */
    byte[] inText(byte[] event, Set<String> keep) {
      return words(event, keep);
    }

    private String base64(String encoded, boolean value) {
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(encoded);
      } catch (IllegalArgumentException notBase64) {
        // Invalid base64 stays invalid ('ä' is no base64 character), now with canaries in it.
        byte[] mutated = words(encoded.getBytes(StandardCharsets.ISO_8859_1), Set.of());
        return new String(mutated, StandardCharsets.ISO_8859_1);
      }
      int before = byWord.size();
      byte[] mutated = words(bytes, Set.of());
      inValues |= value && byWord.size() > before;
      return Base64.getEncoder().encodeToString(mutated);
    }

    /**
     * Replaces every run of ASCII letters by its canary, leaving JSON escapes ({@code \n}, {@code
     * \u00e9}), JSON literals and the {@code keep} words alone. Other bytes, valid UTF-8 or not,
     * are kept as they are, so a value that is invalid, truncated or binary stays so.
     */
    private byte[] words(byte[] in, Set<String> keep) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + 16);
      int i = 0;
      while (i < in.length) {
        if (in[i] == '\\' && i + 1 < in.length) {
          int skip = in[i + 1] == 'u' ? Math.min(6, in.length - i) : 2;
          out.write(in, i, skip);
          i += skip;
          continue;
        }
        int end = i;
        while (end < in.length && isLetter(in[end])) {
          end++;
        }
        if (end == i) {
          out.write(in[i++]);
          continue;
        }
        String word = new String(in, i, end - i, StandardCharsets.US_ASCII);
        // A letter right after a digit or '.' belongs to a number (1e5, 2.5E-3): left alone.
        boolean inNumber = i > 0 && ((in[i - 1] >= '0' && in[i - 1] <= '9') || in[i - 1] == '.');
        if (!inNumber && !JSON_LITERALS.contains(word) && !keep.contains(word)) {
          out.writeBytes(canary(word).getBytes(StandardCharsets.UTF_8));
        } else {
          out.write(in, i, end - i);
        }
        i = end;
      }
      return out.toByteArray();
    }

    private static boolean isLetter(byte b) {
      return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
    }

    /** Whether any canary, as is or in base64, is in one of the stored objects. */
    boolean foundIn(Iterable<byte[]> objects) {
      for (byte[] body : objects) {
        String asText = new String(body, StandardCharsets.UTF_8);
        for (String canary : all()) {
          for (String form : forms(canary).values()) {
            if (asText.contains(form)) {
              return true;
            }
          }
        }
      }
      return false;
    }

    private interface Replacement {
      String apply(Matcher m);
    }

    private static String replaceAll(Pattern pattern, String text, Replacement replacement) {
      Matcher m = pattern.matcher(text);
      StringBuilder out = new StringBuilder(text.length() + 64);
      while (m.find()) {
        m.appendReplacement(out, Matcher.quoteReplacement(replacement.apply(m)));
      }
      m.appendTail(out);
      return out.toString();
    }
  }
}
