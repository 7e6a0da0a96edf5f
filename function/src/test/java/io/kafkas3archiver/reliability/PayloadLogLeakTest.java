package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.BadEventException;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.reliability.CorpusTest.Case;
import io.kafkas3archiver.reliability.CorpusTest.MemoryStore;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.testing.Archive;
import io.kafkas3archiver.testing.Formats;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.OutputCapture;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.S3ObjectStore;
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
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

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
    everything += errorReasons(store);
    assertNoCanary(everything, canaries.all());
  }

  /** The reasons of the store's error objects, one a line: they may be logged at DEBUG. */
  private static String errorReasons(MemoryStore store) {
    StringBuilder reasons = new StringBuilder();
    store.objects.forEach(
        (key, body) -> {
          if (key.contains("/_errors/")) {
            for (ObjectNode row : Archive.rows(key, body)) {
              reasons.append("\nerror-object reason: ").append(row.path("reason").asText());
            }
          }
        });
    return reasons.toString();
  }

  // ---- The other input paths: keys from record content, S3 failures, registry answers ----

  /** Folders from the value, a header and the key: the keys themselves are payload. */
  private static final String CONTENT_TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.region}/t=${header.tenant}/k=${key}/${JOB_ID}";

  private static ScriptedBackends backends;

  @BeforeAll
  static void startBackends() throws IOException {
    backends = new ScriptedBackends();
  }

  @AfterAll
  static void stopBackends() {
    if (backends != null) {
      backends.close();
    }
  }

  /** Canary {@code n}: the same shape as the corpus runs' canaries. */
  private static String c(int n) {
    return "Can\u00e4" + n + "Zq";
  }

  private static final int CANARIES = 40;

  /**
   * An input path beyond the corpus: its settings, whether it writes through the real S3 client to
   * the scripted backends (or to memory), how long the invocation may take, the backends' script,
   * and what the output must hold to show that the path was taken.
   */
  record InputPath(
      String name,
      Map<String, String> env,
      boolean realS3,
      long millis,
      Consumer<ScriptedBackends> script,
      List<String> expect) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static InputPath path(
      String name, Map<String, String> env, Consumer<ScriptedBackends> script, String... expect) {
    return new InputPath(name, env, true, 6_000, script, List.of(expect));
  }

  private static Map<String, String> contentKeys(String format) {
    return Map.of(
        "OUTPUT_FORMAT",
        format,
        "KEY_TEMPLATE",
        CONTENT_TEMPLATE,
        "PARTITION_TIME",
        "record",
        "REPORT_BATCH_ITEM_FAILURES",
        "true");
  }

  private static Map<String, String> confluent() {
    return Map.of("OUTPUT_FORMAT", "parquet", "SCHEMA_REGISTRY_URI", "http://127.0.0.1:1");
  }

  private static Map<String, String> glue() {
    return Map.of(
        "OUTPUT_FORMAT",
        "parquet",
        "SCHEMA_REGISTRY_URI",
        "arn:aws:glue:us-east-1:123456789012:registry/canaries");
  }

  /** An Avro schema with canaries wherever a schema holds free text: docs, defaults, aliases. */
  private static String avroSchema() {
    return "{\"type\":\"record\",\"name\":\"Order\",\"doc\":\""
        + c(30)
        + "\",\"fields\":["
        + "{\"name\":\"region\",\"type\":\"int\",\"doc\":\""
        + c(31)
        + "\"},"
        + "{\"name\":\"name\",\"type\":\"string\",\"default\":\""
        + c(32)
        + "\",\"aliases\":[\""
        + c(33)
        + "\"]},"
        + "{\"name\":\"total\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
        + "\"precision\":5,\"scale\":2}},"
        + "{\"name\":\"born\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
        + "{\"name\":\"at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
        + "{\"name\":\"ok\",\"type\":\"boolean\"},"
        + "{\"name\":\"nested\",\"type\":{\"type\":\"record\",\"name\":\"N\",\"fields\":["
        + "{\"name\":\"x\",\"type\":\"long\"}]}}]}";
  }

  private static String json(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<Arguments> inputPaths() {
    // ndjson: csv and parquet read and write the topic's schema (_schemas/) before the data object,
    // so a scripted S3 failure would stop them before any content key is asked.
    Map<String, String> s3 = contentKeys("ndjson");
    List<InputPath> paths = new ArrayList<>();
    paths.add(
        new InputPath(
            "keys from record content, written",
            contentKeys("parquet"),
            false,
            60_000,
            b -> {},
            List.of("\"batch archived\"")));
    paths.add(
        new InputPath(
            "keys from record content, csv",
            contentKeys("csv"),
            false,
            60_000,
            b -> {},
            List.of("\"batch archived\"")));
    paths.add(
        path(
            "S3 500 quoting the key",
            s3,
            b -> b.s3((m, p) -> ScriptedBackends.Answer.s3Error(500, "InternalError", p, Map.of())),
            "\"errorType\":\"ServerError\""));
    paths.add(
        path(
            "S3 503 SlowDown",
            s3,
            b -> b.s3((m, p) -> ScriptedBackends.Answer.s3Error(503, "SlowDown", p, Map.of())),
            "\"errorType\":\"Throttled\""));
    paths.add(
        path(
            "S3 403 AccessDenied",
            s3,
            b -> b.s3((m, p) -> ScriptedBackends.Answer.s3Error(403, "AccessDenied", p, Map.of())),
            "\"errorType\":\"AccessDenied\""));
    paths.add(
        path(
            "S3 403 InvalidAccessKeyId",
            s3,
            b ->
                b.s3(
                    (m, p) ->
                        ScriptedBackends.Answer.s3Error(403, "InvalidAccessKeyId", p, Map.of())),
            "\"errorType\":\"InvalidCredentials\""));
    paths.add(
        path(
            "S3 404 NoSuchBucket",
            s3,
            b -> b.s3((m, p) -> ScriptedBackends.Answer.s3Error(404, "NoSuchBucket", p, Map.of())),
            "\"errorType\":\"NoSuchBucket\""));
    paths.add(
        path(
            "S3 400 InvalidArgument quoting the key",
            s3,
            b ->
                b.s3(
                    (m, p) -> ScriptedBackends.Answer.s3Error(400, "InvalidArgument", p, Map.of())),
            "\"errorType\":\"InvalidRequest\"",
            "InvalidArgument"));
    paths.add(
        path(
            "S3 301 another region",
            s3,
            b ->
                b.s3(
                    (m, p) ->
                        ScriptedBackends.Answer.s3Error(
                            301,
                            "PermanentRedirect",
                            p,
                            Map.of("x-amz-bucket-region", "eu-west-1"))),
            "\"errorType\":\"WrongRegion\""));
    paths.add(
        path(
            "S3 412, then a stored object without a claim",
            s3,
            after412(200),
            "\"errorType\":\"InvalidRequest\"",
            "carries no offset range"));
    paths.add(
        path(
            "S3 412, then the object gone",
            s3,
            after412(404),
            "\"errorType\":\"ServerError\"",
            "was gone when its offset range was read"));
    paths.add(
        path(
            "S3 412, then HEAD denied",
            s3,
            after412(403),
            "\"errorType\":\"AccessDenied\"",
            "reading a stored object's offset range"));
    paths.add(
        new InputPath(
            "S3 out of time before the first attempt",
            s3,
            true,
            1_200,
            b -> {},
            List.of("\"errorType\":\"Timeout\"", "ran out of time")));
    Map<String, String> unreachable = new HashMap<>(s3);
    unreachable.put("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:" + closedPort());
    paths.add(path("S3 unreachable", unreachable, b -> {}, "\"errorType\":\"Network\""));

    String avro = avroSchema();
    paths.add(
        registry(
            "Confluent schema, values that do not fit it",
            confluent(),
            confluentSays(200, json(Map.of("schema", avro))),
            "but the registry schema declares"));
    paths.add(
        registry(
            "Confluent answer that is not JSON",
            confluent(),
            confluentSays(200, c(34) + " " + c(35)),
            "SchemaRegistryException",
            "that is not a schema"));
    paths.add(
        registry(
            "Confluent answer without a schema",
            confluent(),
            confluentSays(200, json(Map.of("message", c(36)))),
            "that is not a schema"));
    paths.add(
        registry(
            "Confluent Avro schema with a field without type",
            confluent(),
            confluentSays(
                200,
                json(
                    Map.of(
                        "schema",
                        "{\"type\":\"record\",\"name\":\"r\",\"fields\":"
                            + "[{\"name\":\"f\",\"doc\":\""
                            + c(37)
                            + "\"},{\"doc\":\""
                            + c(38)
                            + "\"}]}"))),
            "cannot be read as AVRO"));
    paths.add(
        registry(
            "Confluent Avro schema that is not JSON",
            confluent(),
            confluentSays(200, json(Map.of("schema", "{\"doc\": " + c(37) + "}"))),
            "the Avro schema is not JSON"));
    paths.add(
        registry(
            "Confluent Protobuf schema with stray text",
            confluent(),
            confluentSays(
                200,
                json(
                    Map.of(
                        "schemaType",
                        "PROTOBUF",
                        "schema",
                        "syntax = \"proto3\"; \"" + c(37) + "\" message M { string a = 1; }"))),
            "cannot be read as PROTOBUF"));
    for (int status : new int[] {401, 404, 500}) {
      paths.add(
          registry(
              "Confluent HTTP " + status + " with a body of canaries",
              confluent(),
              confluentSays(status, json(Map.of("error_code", status, "message", c(38) + c(39)))),
              "SchemaRegistryException"));
    }
    paths.add(
        registry(
            "Glue schema, values that do not fit it",
            glue(),
            b ->
                b.glue(
                    (m, p) ->
                        ScriptedBackends.Answer.of(
                            200, json(Map.of("SchemaDefinition", avro, "DataFormat", "AVRO")))),
            "but the registry schema declares"));
    paths.add(
        registry(
            "Glue error with a message of canaries",
            glue(),
            b ->
                b.glue(
                    (m, p) ->
                        ScriptedBackends.Answer.of(
                            400,
                            json(
                                Map.of(
                                    "__type",
                                    "InvalidInputException",
                                    "Message",
                                    c(38) + " " + c(39))))),
            "SchemaRegistryException",
            "InvalidInputException"));
    List<Arguments> runs = new ArrayList<>();
    for (InputPath p : paths) {
      runs.add(Arguments.of(p, "info"));
      runs.add(Arguments.of(p, "debug"));
    }
    return runs.stream();
  }

  /** Every put meets an existing key (412); the HEAD that reads its claim answers {@code head}. */
  private static Consumer<ScriptedBackends> after412(int head) {
    return b ->
        b.s3(
            (m, p) ->
                m.equals("HEAD")
                    ? ScriptedBackends.Answer.of(head, "")
                    : ScriptedBackends.Answer.s3Error(412, "PreconditionFailed", p, Map.of()));
  }

  private static Consumer<ScriptedBackends> confluentSays(int status, String body) {
    return b -> b.confluent((m, p) -> ScriptedBackends.Answer.of(status, body));
  }

  private static InputPath registry(
      String name, Map<String, String> env, Consumer<ScriptedBackends> script, String... expect) {
    return new InputPath(name, env, false, 60_000, script, List.of(expect));
  }

  private static int closedPort() {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Records whose every field, key, header name and header value is a canary: a JSON object (its
   * values of the wrong types for the registry schema), a text value, and a value with a duplicate
   * field, all with registry metadata.
   */
  private static byte[] canaryEvent() {
    ObjectNode event = MAPPER.createObjectNode();
    event.put("eventSource", "aws:kafka");
    event.put("eventSourceArn", "arn:aws:kafka:us-east-1:123456789012:cluster/c/1");
    var list = event.putObject("records").putArray("orders-0");
    String[] values = {
      json(
          Map.of(
              "region",
              c(1),
              "name",
              c(2) + " " + c(3),
              "total",
              c(4),
              "born",
              c(5),
              "at",
              c(6),
              "ok",
              c(7),
              "nested",
              Map.of("x", c(8)),
              "extra",
              c(9))),
      c(10) + " is plain text, " + c(11),
      "{\"region\":\"" + c(12) + "\",\"" + c(13) + "\":1,\"" + c(13) + "\":2}",
      json(Map.of("region", 1, "name", c(14), "total", 1.005, "ok", true, "nested", Map.of("x", 1)))
    };
    for (int i = 0; i < values.length; i++) {
      ObjectNode r = list.addObject();
      r.put("topic", "orders");
      r.put("partition", 0);
      r.put("offset", 100 + i);
      r.put("timestamp", 1_783_955_045_000L);
      r.put("timestampType", "CREATE_TIME");
      r.put("key", b64(c(15 + i)));
      r.put("value", b64(values[i]));
      var headers = r.putArray("headers");
      bytesHeader(headers.addObject(), "tenant", c(20 + i));
      bytesHeader(headers.addObject(), c(25), c(26 + i));
      r.putObject("valueSchemaMetadata").put("dataFormat", "AVRO").put("schemaId", "s-1");
    }
    return json(event).getBytes(StandardCharsets.UTF_8);
  }

  private static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static void bytesHeader(ObjectNode header, String name, String value) {
    var bytes = header.putArray(name);
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      bytes.add(b);
    }
  }

  @ParameterizedTest(name = "{0} [LOG_LEVEL={1}]")
  @MethodSource("inputPaths")
  void shouldLogNoPayloadOnAnyOtherInputPath(InputPath path, String logLevel) throws Exception {
    // Given records full of canaries, and backends that answer as the path scripts them
    path.script().accept(backends);
    Map<String, String> env = new HashMap<>(path.env());
    env.put("BUCKET_NAME", "canary-bucket");
    env.put("AWS_REGION", "us-east-1");
    env.put("LOG_LEVEL", logLevel);
    env.putIfAbsent("AWS_ENDPOINT_URL_S3", backends.endpoint());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("AWS_ENDPOINT_URL_GLUE", backends.endpoint() + "/glue");
    env.put("AWS_ACCESS_KEY_ID", "AKIDCANARYTEST000000");
    env.put("AWS_SECRET_ACCESS_KEY", "canary-test-secret");
    env.computeIfPresent(
        "SCHEMA_REGISTRY_URI", (k, v) -> v.startsWith("http") ? backends.endpoint() : v);
    MemoryStore memory = new MemoryStore();
    List<String> keys = new ArrayList<>();
    Throwable thrown = null;
    String everything;

    // When the real handler archives them, with everything printed, logged and thrown captured
    try (OutputCapture capture = OutputCapture.start()) {
      try {
        ArchiverConfig config = ArchiverConfig.fromEnv(env);
        ObjectStore store =
            path.realS3()
                ? S3ObjectStore.create(
                    config,
                    StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("AKIDCANARYTEST000000", "canary-test-secret")))
                : memory;
        ArchiverHandler handler =
            new ArchiverHandler(config, new KeysAsked(store, keys), Clock.systemUTC(), env::get);
        ByteArrayOutputStream response = new ByteArrayOutputStream();
        handler.handleRequest(
            new ByteArrayInputStream(canaryEvent()), response, new LocalContext(path.millis()));
        capture.text(response.toString(StandardCharsets.UTF_8));
      } catch (Throwable t) {
        thrown = t;
        capture.exception(t);
      }
      everything = capture.withoutSdkDebug();
    }
    everything += errorReasons(memory);

    // Then the path was taken
    for (String expected : path.expect()) {
      assertThat(everything).as("%s: the output shows the path was taken", path).contains(expected);
    }
    if (path.env().containsKey("KEY_TEMPLATE")) {
      // Keys from record content were asked for, and shown: masked at INFO, whole at DEBUG
      assertThat(keys).anySatisfy(k -> assertThat(k).contains("/region=Can%C3%A4"));
      if (!path.realS3() || path.name().contains("quoting")) {
        assertThat(everything)
            .as("the log line or the message quotes the key")
            .contains(logLevel.equals("debug") ? "condense/orders/region=Can" : "region=\u2026");
      }
    }

    // And no canary appears in anything printed, logged or thrown, nor in an error object's
    // reason; at DEBUG the full keys may, and only they
    String text = everything;
    if (logLevel.equals("debug")) {
      for (String key : keys) {
        text =
            text.replace(key, "<key>").replace(SdkHttpUtils.urlEncodeIgnoreSlashes(key), "<key>");
      }
    }
    List<String> all = new ArrayList<>();
    for (int n = 0; n < CANARIES; n++) {
      all.add(c(n));
    }
    assertNoCanary(text, all);
  }

  /** Remembers every key the pipeline asks the store for, whatever the answer. */
  private record KeysAsked(ObjectStore store, List<String> keys) implements ObjectStore {
    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
        throws UploadException {
      keys.add(key);
      return store.put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key, ObjectBody body, String type, Map<String, String> metadata, Deadline deadline)
        throws UploadException {
      keys.add(key);
      return store.putIfAbsent(key, body, type, metadata, deadline);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline)
        throws UploadException {
      keys.add(key);
      return store.metadata(key, deadline);
    }
  }

  /** Fails naming the first canary found, in which form, with its context. */
  private static void assertNoCanary(String everything, Iterable<String> canaries) {
    for (String canary : canaries) {
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
                return "{" + headerName(m.group(1)) + "[" + list + "]" + m.group(3) + "}";
              });
      text =
          replaceAll(
              BASE64_HEADER,
              text,
              m ->
                  "{"
                      + headerName(m.group(1))
                      + "\""
                      + base64(m.group(2), false)
                      + "\""
                      + m.group(3)
                      + "}");
      return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * A header's {@code "name":} with canaries in the name: header names are payload too. The event
     * is read as ISO-8859-1 here, so the canary's UTF-8 bytes go back in the same way.
     */
    private String headerName(String nameAndColon) {
      byte[] bytes = nameAndColon.getBytes(StandardCharsets.ISO_8859_1);
      return new String(words(bytes, Set.of()), StandardCharsets.ISO_8859_1);
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
