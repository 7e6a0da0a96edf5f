package io.kafkas3archiver.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.MotoServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code audit --verify-checksums} where the store keeps each object's CRC32C, as S3 does: moto's
 * S3 server (5.2.5) stores the {@code x-amz-checksum-crc32c} a PutObject sends and returns it on a
 * HeadObject with checksum mode on. S3Proxy keeps none, so {@link AuditIT} only reaches the GET
 * fallback; here moto's request recording shows the audit verifies every object with HEADs alone,
 * and that other bytes put under a copied claim are still reported by key, exit 1: from the HEAD
 * when the overwrite sent a CRC32C, from a GET of that one object when it sent another algorithm.
 */
class ChecksumAuditIT {
  private static final String BUCKET = "audit-checksums";
  private static final String TOPIC = "vehicle-telemetry";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> KEY_PROPERTIES =
      List.of("aws.accessKeyId", "aws.secretAccessKey");

  private static MotoServer moto;
  private static S3Client s3;
  private static final Map<String, String> savedKeys = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    // The audit command takes the default credential chain; moto accepts any keys. The previous
    // values (another IT's in this JVM) come back afterwards.
    for (String name : KEY_PROPERTIES) {
      savedKeys.put(name, System.getProperty(name));
      System.setProperty(name, "auditor");
    }
    moto = MotoServer.start();
    s3 = moto.s3();
    s3.createBucket(b -> b.bucket(BUCKET));
    // The real handler: 3 batches of 10 records on partitions 0 and 1, one object per range.
    ArchiverHandler handler = handler();
    for (long from = 0; from < 30; from += 10) {
      assertThat(invoke(handler, from, from + 9)).isEqualTo("{\"batchItemFailures\":[]}");
    }
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
    if (moto != null) {
      moto.close();
    }
    savedKeys.forEach(
        (name, value) -> {
          if (value == null) {
            System.clearProperty(name);
          } else {
            System.setProperty(name, value);
          }
        });
  }

  @Test
  void shouldVerifyWithHeadsAloneAndNameOtherBytesUnderACopiedClaim() {
    List<String> keys = dataKeys();
    assertThat(keys).as("one object per batch and partition").hasSize(6);
    // The store holds the CRC32C the archiver sent, the value its claim recorded beside it.
    for (String key : keys) {
      var head = s3.headObject(b -> b.bucket(BUCKET).key(key).checksumMode(ChecksumMode.ENABLED));
      assertThat(head.checksumCRC32C())
          .as("moto's CRC32C of %s", key)
          .isNotNull()
          .isEqualTo(head.metadata().get(S3ObjectStore.CHECKSUM_METADATA));
    }

    // Intact: every object verified, by HEADs with checksum mode on, no data object downloaded.
    Audit intact = audit();
    assertThat(intact.exit()).as(intact.out()).isZero();
    assertThat(intact.json().path("checksumsVerified").asInt()).isEqualTo(6);
    assertThat(intact.json().path("checksumsUnverifiable").asInt()).isZero();
    assertThat(intact.gets()).as("GetObject of data objects").isEmpty();
    assertThat(intact.checksumHeads()).as("HEADs with checksum mode").containsAll(keys);
    assertThat(intact.json().path("requests").path("get").asInt()).isZero();

    // Other bytes under the copied claim, sent with a CRC32C of their own (S3 keeps it): the
    // HEAD's checksum differs from the recorded one, and still nothing is downloaded.
    String altered = keys.get(2);
    Map<String, String> meta = s3.headObject(b -> b.bucket(BUCKET).key(altered)).metadata();
    byte[] original = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(altered)).asByteArray();
    byte[] flipped = original.clone();
    flipped[flipped.length / 2] ^= 0x01;
    overwrite(altered, meta, flipped, ChecksumAlgorithm.CRC32_C);
    Audit tampered = audit();
    assertThat(tampered.exit()).as(tampered.out()).isEqualTo(1);
    assertThat(badKeys(tampered.json())).containsExactly(altered);
    assertThat(tampered.json().toString())
        .contains("not the bytes the archiver wrote")
        .contains("CRC32C recorded " + meta.get(S3ObjectStore.CHECKSUM_METADATA))
        .contains("stored " + S3ObjectStore.crc32c(flipped));
    assertThat(tampered.gets()).as("GetObject of data objects").isEmpty();

    // The same bytes sent with the SDK's default CRC32: the store keeps no CRC32C of them, so the
    // audit downloads that one object (and only it), and reports it the same way.
    overwrite(altered, meta, flipped, ChecksumAlgorithm.CRC32);
    Audit otherAlgorithm = audit();
    assertThat(otherAlgorithm.exit()).as(otherAlgorithm.out()).isEqualTo(1);
    assertThat(badKeys(otherAlgorithm.json())).containsExactly(altered);
    assertThat(otherAlgorithm.gets()).containsExactly(altered);

    // The original bytes back (with their CRC32C): clean again, by HEADs alone.
    overwrite(altered, meta, original, ChecksumAlgorithm.CRC32_C);
    Audit restored = audit();
    assertThat(restored.exit()).as(restored.out()).isZero();
    assertThat(restored.gets()).isEmpty();
  }

  /**
   * Puts other bytes under {@code key} with the archiver's metadata copied, as a tamperer would.
   */
  private static void overwrite(
      String key, Map<String, String> meta, byte[] bytes, ChecksumAlgorithm algorithm) {
    s3.putObject(
        b -> b.bucket(BUCKET).key(key).metadata(meta).checksumAlgorithm(algorithm),
        RequestBody.fromBytes(bytes));
  }

  /** The audit's exit code, its JSON report and the requests moto received while it ran. */
  private record Audit(int exit, String out, JsonNode json, List<MotoServer.Recorded> requests) {
    /** Keys of the data objects the audit downloaded. */
    List<String> gets() {
      return requests.stream()
          .filter(r -> r.method().equals("GET"))
          .map(r -> key(r.url()))
          .filter(k -> k.startsWith("condense/" + TOPIC + "/"))
          .toList();
    }

    /** Keys the audit HEADed with checksum mode on. */
    List<String> checksumHeads() {
      return requests.stream()
          .filter(r -> r.method().equals("HEAD"))
          .filter(r -> "ENABLED".equals(r.header("x-amz-checksum-mode")))
          .map(r -> key(r.url()))
          .toList();
    }
  }

  /** The object key of a path-style request URL; empty for a bucket-level request (a LIST). */
  private static String key(String url) {
    String path = URI.create(url).getRawPath();
    String bucketPath = "/" + BUCKET + "/";
    return path.startsWith(bucketPath)
        ? URLDecoder.decode(path.substring(bucketPath.length()), StandardCharsets.UTF_8)
        : "";
  }

  private static Audit audit() {
    int before = moto.recorded().size();
    String[] args = {
      "--bucket",
      BUCKET,
      "--topic",
      TOPIC,
      "--verify-checksums",
      "--no-state",
      "--json",
      "--endpoint-url",
      moto.endpoint().toString(),
      "--region",
      MotoServer.REGION,
      "--path-style"
    };
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        AuditCommand.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.println("audit -> exit " + rc + "\n" + text + err);
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isLessThan(2);
    List<MotoServer.Recorded> all = moto.recorded();
    try {
      return new Audit(rc, text, JSON.readTree(text), all.subList(before, all.size()));
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  private static List<String> badKeys(JsonNode report) {
    List<String> out = new ArrayList<>();
    report
        .path("partitions")
        .forEach(p -> p.path("badObjects").forEach(b -> out.add(b.path("key").asText())));
    report.path("unplacedObjects").forEach(b -> out.add(b.path("key").asText()));
    return out;
  }

  private static List<String> dataKeys() {
    return s3
        .listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix("condense/" + TOPIC + "/"))
        .contents()
        .stream()
        .map(S3Object::key)
        .sorted()
        .toList();
  }

  private static ArchiverHandler handler() {
    Map<String, String> env = new HashMap<>(moto.functionEnv());
    env.put("BUCKET_NAME", BUCKET);
    env.put("BUCKET_REGION", MotoServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", moto.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("OUTPUT_FORMAT", "csv");
    return new ArchiverHandler(ArchiverConfig.fromEnv(env), env::get);
  }

  /** Offsets {@code from..to} of partitions 0 and 1, all JSON (no error rows, no error object). */
  private static String invoke(ArchiverHandler handler, long from, long to) throws Exception {
    EventBuilder event = new EventBuilder();
    for (int p = 0; p < 2; p++) {
      for (long o = from; o <= to; o++) {
        String value = "{\"vehicle\":\"v" + o + "\",\"speed\":" + o + "}";
        event.add(
            TOPIC, p, o, 1_767_225_600_000L + o, "k" + o, value.getBytes(StandardCharsets.UTF_8));
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(event.stream(), out, new LocalContext(60_000));
    return out.toString(StandardCharsets.UTF_8);
  }
}
