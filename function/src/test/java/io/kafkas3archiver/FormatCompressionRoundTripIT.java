package io.kafkas3archiver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.RecordingStore;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.SnappyFramedInputStream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every OUTPUT_FORMAT × COMPRESSION pair, end to end: the handler writes a batch to a real
 * S3-compatible server, and DuckDB (read_parquet, read_csv, read_json) reads each object back.
 * Every value is compared with the input. DuckDB cannot read framed snappy text, so those objects
 * are decompressed here with snappy-java first; gzip and zstd are handed to DuckDB as stored.
 */
class FormatCompressionRoundTripIT {
  private static final String BUCKET = "round-trip";
  private static final String TOPIC = "orders";
  private static final long BASE_TIME = 1783955045000L; // 2026-07-13T15:04:05Z
  private static final ObjectMapper TREES =
      JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  /** The columns, in first-seen order, and the DuckDB type each is read as in text formats. */
  private static final Map<String, String> TEXT_COLUMNS = new LinkedHashMap<>();

  static {
    TEXT_COLUMNS.put("id", "BIGINT");
    TEXT_COLUMNS.put("name", "VARCHAR");
    TEXT_COLUMNS.put("price", "DOUBLE");
    TEXT_COLUMNS.put("ok", "BOOLEAN");
    TEXT_COLUMNS.put("tags", "JSON");
    TEXT_COLUMNS.put("loc", "JSON");
    TEXT_COLUMNS.put("ts", "VARCHAR");
    TEXT_COLUMNS.put("note", "VARCHAR");
  }

  /** The Parquet footer's types for the same columns (DuckDB's names for them). */
  private static final Map<String, String> PARQUET_TYPES =
      Map.of(
          "id", "BIGINT",
          "name", "VARCHAR",
          "price", "DOUBLE",
          "ok", "BOOLEAN",
          "tags", "VARCHAR",
          "loc", "VARCHAR",
          "ts", "VARCHAR",
          "note", "VARCHAR",
          "_overflow", "VARCHAR");

  private static S3ProxyServer server;
  private static S3Client s3;
  private static DuckDb duck;
  private static List<JsonNode> inputs;

  @TempDir static Path dir;

  @BeforeAll
  static void start() throws IOException {
    server = S3ProxyServer.inMemory();
    server.createBucket(BUCKET);
    s3 = server.client();
    duck = new DuckDb();
    inputs = new ArrayList<>();
    String[] names = {
      "plain", "comma, and \"quotes\"", "two\nlines", "unicode: température 名前 🚗", "tab\there"
    };
    for (int i = 0; i < 40; i++) {
      StringBuilder json = new StringBuilder();
      json.append("{\"id\": ").append(i);
      json.append(", \"name\": ").append(TREES.writeValueAsString(names[i % names.length] + i));
      json.append(", \"price\": ").append(i % 3 == 0 ? "0.1" : (i * 12.5) + "");
      json.append(", \"ok\": ").append(i % 2 == 0);
      json.append(", \"tags\": [\"a\", ").append(i).append(", {\"deep\": null}]");
      json.append(", \"loc\": {\"lat\": 12.9716, \"lon\": -77.5").append(i).append("}");
      json.append(", \"ts\": \"2026-07-13T15:04:").append(String.format("%02d", i)).append("Z\"");
      if (i % 4 == 1) {
        json.append(", \"note\": null");
      } else if (i % 4 == 2) {
        json.append(", \"note\": \"n").append(i).append('"');
      }
      json.append('}');
      inputs.add(TREES.readTree(json.toString()));
    }
  }

  @AfterAll
  static void stop() {
    duck.close();
    s3.close();
    server.close();
  }

  static Stream<Arguments> everyPair() {
    // Table formats are read back through their table (the iceberg artifact's tests).
    return Arrays.stream(Format.values())
        .filter(f -> !f.isTable())
        .flatMap(f -> Arrays.stream(Compression.values()).map(c -> Arguments.of(f, c)));
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("everyPair")
  void shouldReadBackEveryValueOfEveryFormatAndCompression(Format format, Compression compression)
      throws IOException {
    RecordingStore store = store("rt", format, compression);
    ArchiverHandler handler = handler("rt", format, compression, store);

    handler.handleRequest(event().stream(), new ByteArrayOutputStream(), new LocalContext(60_000));

    assertThat(store.keys()).hasSize(1);
    String key = store.keys().get(0);
    assertThat(key).endsWith(expectedExtension(format, compression));
    byte[] stored = ObjectBodies.raw(s3, BUCKET, key);
    assertThat(HexFormat.of().formatHex(stored, 0, 4)).startsWith(magic(format, compression));
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).contentType())
        .isEqualTo(expectedContentType(format, compression));

    Path file = dir.resolve(format + "-" + compression + fileSuffix(format, compression));
    boolean framedSnappy = compression == Compression.SNAPPY && !format.compressesItself();
    Files.write(file, framedSnappy ? unsnappy(stored) : stored);
    List<Map<String, Object>> rows = read(format, compression, file);

    assertThat(rows).hasSize(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      assertSameValues(format, inputs.get(i), rows.get(i));
    }
    if (format == Format.PARQUET) {
      assertParquetFooter(file, compression);
    }
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("everyPair")
  void shouldWriteNothingAgainWhenABatchIsRetried(Format format, Compression compression)
      throws IOException {
    RecordingStore store = store("retry", format, compression);
    ArchiverHandler handler = handler("retry", format, compression, store);

    handler.handleRequest(event().stream(), new ByteArrayOutputStream(), new LocalContext(60_000));
    assertThat(store.keys()).hasSize(1);
    String key = store.keys().get(0);
    byte[] first = ObjectBodies.raw(s3, BUCKET, key);
    handler.handleRequest(event().stream(), new ByteArrayOutputStream(), new LocalContext(60_000));

    // Exactly-once: the retry meets the object's claim (If-None-Match, 412) and writes nothing;
    // the stored bytes are those of the first delivery.
    assertThat(store.keys()).containsExactly(key);
    assertThat(ObjectBodies.raw(s3, BUCKET, key)).isEqualTo(first);
  }

  private static void assertSameValues(Format format, JsonNode input, Map<String, Object> row) {
    String where = format + " row " + input.get("id");
    assertThat(row.keySet()).as(where).containsExactlyElementsOf(TEXT_COLUMNS.keySet());
    // BIGINT and DOUBLE in Parquet, the same as DuckDB's read of the text formats
    assertThat(row.get("id")).as(where).isEqualTo(input.get("id").longValue());
    assertThat(row.get("price")).as(where).isEqualTo(input.get("price").doubleValue());
    assertThat(row.get("name")).as(where).isEqualTo(input.get("name").textValue());
    assertThat(row.get("ok")).as(where).isEqualTo(input.get("ok").booleanValue());
    assertSameJson(where, input.get("tags"), (String) row.get("tags"));
    assertSameJson(where, input.get("loc"), (String) row.get("loc"));
    assertThat(row.get("ts")).as(where).isEqualTo(input.get("ts").textValue());
    JsonNode note = input.get("note");
    assertThat(row.get("note"))
        .as(where)
        .isEqualTo(note == null || note.isNull() ? null : note.textValue());
  }

  private static void assertSameJson(String where, JsonNode expected, String actualText) {
    try {
      JsonNode actual = TREES.readTree(actualText);
      assertThat(actual.equals(FormatCompressionRoundTripIT::compareNodes, expected))
          .as(where + ": " + actualText + " vs " + expected)
          .isTrue();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Equal JSON, numbers compared by value (12.97 and 12.970 are one number). */
  private static int compareNodes(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return new BigDecimal(a.asText()).compareTo(new BigDecimal(b.asText()));
    }
    return a.equals(b) ? 0 : 1;
  }

  private static void assertParquetFooter(Path file, Compression compression) {
    String literal = DuckDb.literal(file);
    assertThat(duck.query("SELECT DISTINCT compression FROM parquet_metadata(" + literal + ")"))
        .extracting(r -> r.get("compression"))
        .containsExactly(compression == Compression.NONE ? "UNCOMPRESSED" : compression.name());
    Map<String, String> types = new LinkedHashMap<>();
    duck.query("DESCRIBE SELECT * FROM read_parquet(" + literal + ")")
        .forEach(r -> types.put((String) r.get("column_name"), (String) r.get("column_type")));
    assertThat(types).isEqualTo(PARQUET_TYPES);
    Map<String, String> physical = new LinkedHashMap<>();
    duck.query(
            "SELECT name, type, repetition_type FROM parquet_schema("
                + literal
                + ") WHERE type IS NOT NULL")
        .forEach(
            r ->
                physical.put(
                    (String) r.get("name"), r.get("type") + " " + r.get("repetition_type")));
    assertThat(physical)
        .containsEntry("id", "INT64 OPTIONAL")
        .containsEntry("price", "DOUBLE OPTIONAL")
        .containsEntry("ok", "BOOLEAN OPTIONAL")
        .containsEntry("name", "BYTE_ARRAY OPTIONAL")
        .containsEntry("ts", "BYTE_ARRAY OPTIONAL");
  }

  private static List<Map<String, Object>> read(Format format, Compression compression, Path file) {
    String literal = DuckDb.literal(file);
    String codec =
        switch (compression) {
          // read_csv names it 'none', read_json 'uncompressed'.
          case NONE, SNAPPY -> format == Format.CSV ? "none" : "uncompressed";
          case GZIP -> "gzip";
          case ZSTD -> "zstd";
        };
    StringBuilder select = new StringBuilder("SELECT ");
    // csv: _overflow sits right after the metadata columns, so appended columns never move it.
    StringBuilder columns =
        new StringBuilder(format == Format.CSV ? "{'_overflow': 'VARCHAR', " : "{");
    TEXT_COLUMNS.forEach(
        (name, type) -> {
          if (select.length() > 7) {
            select.append(", ");
            columns.append(", ");
          }
          boolean json = type.equals("JSON");
          select.append(json ? "CAST(" + name + " AS VARCHAR) AS " + name : name);
          String textType = format == Format.CSV && json ? "VARCHAR" : type;
          columns.append('\'').append(name).append("': '").append(textType).append('\'');
        });
    columns.append('}');
    String from =
        switch (format) {
          case PARQUET, ICEBERG -> "read_parquet(" + literal + ")";
          case CSV ->
              "read_csv("
                  + literal
                  + ", header = true, compression = '"
                  + codec
                  + "', columns = "
                  + columns
                  + ")";
          case JSON, NDJSON ->
              "read_json("
                  + literal
                  + ", format = '"
                  + (format == Format.JSON ? "array" : "newline_delimited")
                  + "', compression = '"
                  + codec
                  + "', columns = "
                  + columns
                  + ")";
        };
    return duck.query(select + " FROM " + from + " ORDER BY id");
  }

  private static EventBuilder event() {
    EventBuilder event = new EventBuilder();
    for (int i = 0; i < inputs.size(); i++) {
      // One partition, so one object holds the whole batch in order (objects are per
      // topic-partition; ExactlyOnceIT covers several).
      event.add(TOPIC, 0, 1000 + i, BASE_TIME + i, "k" + i, inputs.get(i).toString());
    }
    return event;
  }

  private static RecordingStore store(String test, Format format, Compression compression) {
    return new RecordingStore(
        S3ObjectStore.create(
            config(test, format, compression),
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))));
  }

  private static ArchiverHandler handler(
      String test, Format format, Compression compression, RecordingStore store) {
    return new ArchiverHandler(config(test, format, compression), store, Clock.systemUTC());
  }

  private static ArchiverConfig config(String test, Format format, Compression compression) {
    return ArchiverConfig.fromEnv(
        Map.of(
            "BUCKET_NAME",
            BUCKET,
            "AWS_REGION",
            S3ProxyServer.REGION,
            "AWS_ENDPOINT_URL_S3",
            server.endpoint().toString(),
            "S3_FORCE_PATH_STYLE",
            "true",
            "KEY_PREFIX",
            test + "-" + format.configName() + "-" + compression.configName(),
            "OUTPUT_FORMAT",
            format.configName(),
            "COMPRESSION",
            compression.configName()));
  }

  /** DESIGN §3: Parquet keeps {@code .parquet}; text formats add the codec's suffix. */
  private static String expectedExtension(Format format, Compression compression) {
    if (format == Format.PARQUET) {
      return ".parquet";
    }
    return "."
        + format.extension()
        + switch (compression) {
          case NONE -> "";
          case GZIP -> ".gz";
          case SNAPPY -> ".snappy";
          case ZSTD -> ".zst";
        };
  }

  private static String expectedContentType(Format format, Compression compression) {
    if (format == Format.PARQUET || compression == Compression.NONE) {
      return format.contentType();
    }
    return switch (compression) {
      case GZIP -> "application/gzip";
      case SNAPPY -> "application/x-snappy-framed";
      case ZSTD -> "application/zstd";
      case NONE -> throw new AssertionError();
    };
  }

  /** The first bytes each object must start with: the codec's magic, or Parquet's. */
  private static String magic(Format format, Compression compression) {
    if (format == Format.PARQUET) {
      return "50415231"; // PAR1
    }
    return switch (compression) {
      case NONE ->
          format == Format.JSON
              ? "5b"
              : format == Format.NDJSON ? "7b" : "5f6f"; // csv: "_o" of _overflow
      case GZIP -> "1f8b";
      case SNAPPY -> "ff060000"; // stream identifier chunk of the framing format
      case ZSTD -> "28b52ffd";
    };
  }

  private static String fileSuffix(Format format, Compression compression) {
    String ext = "." + format.extension();
    return compression == Compression.GZIP
        ? ext + ".gz"
        : compression == Compression.ZSTD ? ext + ".zst" : ext;
  }

  private static byte[] unsnappy(byte[] framed) throws IOException {
    try (InputStream in = new SnappyFramedInputStream(new ByteArrayInputStream(framed))) {
      return in.readAllBytes();
    }
  }
}
