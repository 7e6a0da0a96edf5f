package io.kafkas3archiver.partitioning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.testing.StdoutCapture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Values chosen to break keys, in a value field, a header and the key at once ({@code ../}, {@code
 * %2e%2e}, the look-alike slashes U+2215 and U+FF0F, NUL, CR/LF, a right-to-left override, 5,000
 * bytes): none adds a path segment, forms a {@code .} or {@code ..} segment, leaves the S3-safe
 * characters, or takes a key past 1024 bytes; every record is still written once; an independent
 * reader (DuckDB's Hive partitioning) reads the ASCII ones back as they were sent; and the log line
 * shows each key with its record-content segments masked (DESIGN §6).
 */
class HostileValuesIT {
  private static final String TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.customer.region}/tenant=${header.tenant}"
          + "/k=${key}/year=${YEAR}/month=${MONTH}/day=${DAY}/hour=${HOUR}/${JOB_ID}";
  private static final int SEGMENTS = TEMPLATE.split("/").length;

  private static final List<String> HOSTILE =
      List.of(
          "/",
          "..",
          ".",
          "../../../etc/passwd",
          "%2e%2e",
          "%2e%2e%2f%2e%2e%2fetc",
          "..\u2215..\u2215etc", // DIVISION SLASH
          "..\uFF0F..\uFF0Fetc", // FULLWIDTH SOLIDUS
          "\u202Eevil\u202C.exe", // RIGHT-TO-LEFT OVERRIDE
          "/leading",
          "a=b/c=d",
          "100%",
          "%2F",
          "ctl\u0000\u0001\u001f\u007f\n\r\t",
          "x".repeat(2048),
          "y".repeat(5_000),
          "\u00e9".repeat(1024), // 2 KB of two-byte characters
          "\uD83D\uDE00 emoji \uD83C\uDDEE\uD83C\uDDF3",
          "\uD83D\uDE00".repeat(600),
          "quote\"back\\slash{brace}[bracket]^caret`tick|pipe<>#?*~&$@;:+, ",
          "__HIVE_DEFAULT_PARTITION__");

  private static S3ProxyServer server;
  private static S3Client s3;
  private static DuckDb duck;

  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    server = S3ProxyServer.inMemory();
    server.createBucket("hostile");
    s3 = server.client();
    duck = new DuckDb();
  }

  @AfterAll
  static void stop() {
    duck.close();
    s3.close();
    server.close();
  }

  @Test
  void shouldNeverAddASegmentLeaveThePrefixOrExceed1024Bytes() throws Exception {
    EventBuilder event = new EventBuilder();
    Map<Long, String> sent = new HashMap<>();
    long offset = 0;
    for (String hostile : HOSTILE) {
      String json = "{\"id\":" + offset + ",\"customer\":{\"region\":" + jsonString(hostile) + "}}";
      event.add(
          "orders",
          0,
          offset,
          1783958399000L,
          hostile,
          json.getBytes(StandardCharsets.UTF_8),
          Map.of("tenant", hostile.getBytes(StandardCharsets.UTF_8)));
      sent.put(offset, hostile);
      offset++;
    }
    Harness harness =
        Harness.against(server.endpoint().toString(), "hostile")
            .with("KEY_TEMPLATE", TEMPLATE)
            .with("REPORT_BATCH_ITEM_FAILURES", "true")
            .with("MAX_FOLDERS_PER_PARTITION", "1000");
    Harness.Invocation handler;

    String response;
    List<String> printed;
    try (StdoutCapture stdout = new StdoutCapture()) {
      handler = harness.handler(); // built here: its log line goes to the captured stdout
      response = handler.invoke(event.stream());
      printed = stdout.lines();
    }

    assertThat(response).isEqualTo("{\"batchItemFailures\":[]}");
    List<String> keys = handler.store().keys();
    assertThat(keys).hasSize(HOSTILE.size());
    for (String key : keys) {
      assertThat(key.getBytes(StandardCharsets.UTF_8).length).as(key).isLessThanOrEqualTo(1024);
      assertThat(key).as(key).startsWith("condense/orders/region=").matches("[A-Za-z0-9._%=/-]+");
      String[] segments = key.split("/", -1);
      assertThat(segments).as(key).hasSize(SEGMENTS).doesNotContain("", ".", "..");
      assertThat(segments[3]).startsWith("tenant=");
      assertThat(segments[4]).startsWith("k=");
    }

    // The log line lists every key, its record-content segments masked
    JsonNode line =
        new ObjectMapper()
            .readTree(
                printed.stream()
                    .filter(l -> l.contains("\"batch archived\""))
                    .findFirst()
                    .orElseThrow());
    List<String> logged = new ArrayList<>();
    line.get("keys").forEach(k -> logged.add(k.asText()));
    assertThat(logged)
        .hasSize(keys.size())
        .allSatisfy(
            k ->
                assertThat(k)
                    .matches(
                        "condense/orders/region=\u2026/tenant=\u2026/k=\u2026/year=2026/month=07/day=13"
                            + "/hour=\\d\\d/[0-9a-f-]{36}\\.ndjson"));

    // Read back: every record once, each under the values it was sent with.
    for (String key : keys) {
      Path file = dir.resolve(key);
      Files.createDirectories(file.getParent());
      Files.write(file, ObjectBodies.raw(s3, "hostile", key));
    }
    String glob = DuckDb.literal(dir.resolve("condense/orders/*/*/*/*/*/*/*/*"));
    List<String> mismatches = new ArrayList<>();
    var rows =
        duck.query(
            "SELECT id, customer.region AS sent, region, tenant, k FROM read_json("
                + glob
                + ", format = 'newline_delimited', hive_partitioning = true) ORDER BY id");
    assertThat(rows).hasSize(HOSTILE.size());
    for (var row : rows) {
      String original = sent.get(((Number) row.get("id")).longValue());
      assertThat(row.get("sent")).isEqualTo(original);
      boolean plain =
          original.chars().allMatch(c -> c >= 0x20 && c < 0x7f) && original.length() <= 64;
      if (plain && !original.equals("__HIVE_DEFAULT_PARTITION__")) {
        // Percent-decoded by the reader, as Athena's Hive unescaping decodes it.
        for (String column : List.of("region", "tenant", "k")) {
          if (!original.equals(String.valueOf(row.get(column)))) {
            mismatches.add(column + " of " + original + " read back as " + row.get(column));
          }
        }
      }
    }
    assertThat(mismatches).isEmpty();
  }

  private static String jsonString(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
