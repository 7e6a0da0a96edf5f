package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Keys whose folders come from record content are payload (DESIGN §6): what logs and messages show
 * of them has those segments masked, whatever the values, and nothing else changed.
 */
class KeyMaskTest {
  private static final ZonedDateTime HOUR =
      ZonedDateTime.of(2026, 7, 13, 15, 0, 0, 0, ZoneOffset.UTC);
  private static final UUID ID = UUID.fromString("0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a");

  private static ObjectKeyTemplate template(String source, String prefix) {
    return ObjectKeyTemplate.of(
        source, prefix, "S3_Event_Archive_Prod", Format.NDJSON, Compression.GZIP);
  }

  private static ObjectGroup group(String topic, List<String> values) {
    var record = new KafkaRecord(topic, 3, 42, 0, "CREATE_TIME", null, new byte[0], List.of());
    return new ObjectGroup(topic, HOUR, List.of(record), List.of(), values);
  }

  private static List<String> rendered(ObjectKeyTemplate t, String... raw) {
    List<String> values = new ArrayList<>();
    for (String r : raw) {
      values.add(PartitionValue.render(r, t.maxValueBytes()));
    }
    return values;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "${KEY_PREFIX}/${OBJECT_NAME}/region=${value.region}/${JOB_ID}|condense"
            + "|condense/orders/region=…/"
            + "0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a.ndjson.gz",
        "${KEY_PREFIX}/${OBJECT_NAME}/t=${header.tenant}/k=${key}/hour=${HOUR}/${JOB_ID}|a/b"
            + "|a/b/orders/t=…/k=…/hour=15/0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a.ndjson.gz",
        "${KEY_PREFIX}/${OBJECT_NAME}/${JOB_ID}-${value.region}|condense"
            + "|condense/orders/….ndjson.gz",
        "${KEY_PREFIX}/${OBJECT_NAME}-${value.region}/${JOB_ID}|"
            + "|…/0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a.ndjson.gz",
        "${PIPELINE_NAME}//${value.region}=x/${PARTITION}/${START_OFFSET}/${OBJECT_NAME}|condense"
            + "|S3_Event_Archive_Prod/…/3/00000000000000000042/orders.ndjson.gz",
      })
  void shouldMaskEveryContentSegmentAndKeepTheRest(String source, String prefix, String masked) {
    // Given a template with record variables, and a key rendered from a value
    var t = template(source, prefix == null ? "" : prefix);
    String key = t.dataKey(group("orders", rendered(t, "eu-west-1", "eu-west-1")), ID);

    // When the key is shown in a log or message
    String shown = t.masked(key);

    // Then the content segments keep only the template's text before the value
    assertThat(shown).isEqualTo(masked).doesNotContain("eu-west");
  }

  @Test
  void shouldMaskHostileAndLongValuesWithoutTheirHash() {
    var t = template("${KEY_PREFIX}/${OBJECT_NAME}/r=${value.r}/k=${key}/${JOB_ID}", "condense");
    for (String hostile :
        List.of(
            "../../etc",
            "%2e%2e",
            "a\u2215b\uFF0Fc",
            "nul\u0000cr\rlf\n",
            "\u202Eevil",
            "__HIVE_DEFAULT_PARTITION__",
            "x".repeat(5_000))) {
      List<String> values = rendered(t, hostile, hostile);
      String key = t.dataKey(group("orders", values), ID);
      assertThat(t.masked(key))
          .as(hostile)
          .isEqualTo("condense/orders/r=…/k=…/" + ID + ".ndjson.gz");
    }
  }

  @Test
  void shouldMaskRandomValuesEverywhereTheyAppear() {
    long seed = System.nanoTime();
    System.out.println("KeyMaskTest seed=" + seed);
    Random random = new Random(seed);
    var t =
        template(
            "${KEY_PREFIX}/${OBJECT_NAME}-${value.a}${key}/${header.h}_${YEAR}/${JOB_ID}", "c");
    for (int i = 0; i < 500; i++) {
      String[] raw = new String[3];
      for (int v = 0; v < raw.length; v++) {
        StringBuilder s = new StringBuilder();
        int length = 1 + random.nextInt(40);
        for (int c = 0; c < length; c++) {
          s.appendCodePoint(
              random.nextInt(4) == 0 ? random.nextInt(0x3000) : 'a' + random.nextInt(26));
        }
        raw[v] = "Zq" + s;
      }
      String key = t.dataKey(group("orders", rendered(t, raw)), ID);
      String shown = t.masked(key);
      assertThat(shown).as("seed %d, key %s", seed, key).isEqualTo("c/…/…/" + ID + ".ndjson.gz");
    }
  }

  @Test
  void shouldLeaveErrorKeysAndTemplatesWithoutRecordVariablesAlone() {
    var t = template("${KEY_PREFIX}/${OBJECT_NAME}/r=${value.r}/${JOB_ID}", "condense");
    ObjectGroup g = group("orders", rendered(t, "secret-region"));
    assertThat(t.masked(t.errorKey(g, ID))).isEqualTo(t.errorKey(g, ID));

    var plain = template(ObjectKeyTemplate.DEFAULT, "condense");
    assertThat(plain.masked(plain.dataKey(g, ID))).isEqualTo(plain.dataKey(g, ID));
  }

  @Test
  void shouldMaskAKeyOfNoKnownLayoutAfterItsFirstSegment() {
    var t = template("${KEY_PREFIX}/${OBJECT_NAME}/r=${value.r}/${JOB_ID}", "condense");
    assertThat(t.masked("condense/orders/r=secret/extra/" + ID + ".ndjson.gz"))
        .isEqualTo("condense/…");
  }
}
