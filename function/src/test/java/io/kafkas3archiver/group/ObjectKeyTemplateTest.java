package io.kafkas3archiver.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ObjectKeyTemplateTest {
  private static final ZonedDateTime HOUR =
      ZonedDateTime.of(2026, 7, 13, 15, 0, 0, 0, ZoneOffset.UTC);
  private static final UUID ID = UUID.fromString("0b7c5e2a-3f7d-3c41-9a55-6f0e7c1d2b3a");

  private static ObjectGroup group(String topic, int partition, long... offsets) {
    List<KafkaRecord> records =
        java.util.Arrays.stream(offsets)
            .mapToObj(
                o ->
                    new KafkaRecord(
                        topic, partition, o, 0, "CREATE_TIME", null, new byte[0], List.of()))
            .toList();
    return new ObjectGroup(topic, HOUR, records, List.of());
  }

  private static ObjectKeyTemplate template(String source, Format format, Compression compression) {
    return ObjectKeyTemplate.of(source, "condense", "S3_Event_Archive_Prod", format, compression);
  }

  @Test
  void shouldRenderTheSeedLayout() {
    var t = template(ObjectKeyTemplate.DEFAULT, Format.JSON, Compression.NONE);
    assertThat(t.dataKey(group("orders", 0, 5, 9), ID))
        .isEqualTo("condense/orders/year=2026/month=07/day=13/hour=15/" + ID + ".json");
  }

  @Test
  void shouldAppendTheCompressionSuffixToTextFormats() {
    var t = template(ObjectKeyTemplate.DEFAULT, Format.NDJSON, Compression.GZIP);
    assertThat(t.dataKey(group("orders", 0, 5), ID)).endsWith(ID + ".ndjson.gz");
  }

  @Test
  void shouldPutErrorObjectsUnderTheErrorsPrefixUncompressed() {
    var t = template(ObjectKeyTemplate.DEFAULT, Format.CSV, Compression.GZIP);
    assertThat(t.errorKey(group("orders", 0, 5), ID))
        .isEqualTo("condense/_errors/orders/year=2026/month=07/day=13/hour=15/" + ID + ".ndjson");
  }

  @Test
  void shouldRenderEveryHevoStyleVariable() {
    var t =
        template(
            "${PIPELINE_NAME}/${OBJECT_NAME}/${DATE}/${YEAR}${MONTH}${DAY}${HOUR}/${PARTITION}-${START_OFFSET}-${JOB_ID}",
            Format.CSV,
            Compression.NONE);
    assertThat(t.dataKey(group("orders", 3, 42, 50), ID))
        .isEqualTo(
            "S3_Event_Archive_Prod/orders/2026-07-13/2026071315/3-00000000000000000042-"
                + ID
                + ".csv");
  }

  @Test
  void shouldAcceptPartitionAndStartOffsetInsteadOfTheJobId() {
    var t = template("${OBJECT_NAME}/${PARTITION}/${START_OFFSET}", Format.JSON, Compression.NONE);
    assertThat(t.dataKey(group("orders", 1, 7), ID))
        .isEqualTo("orders/1/00000000000000000007.json");
  }

  @Test
  void shouldEscapeValuesSoTheyCannotClimbOutOfThePrefix() {
    var t = template(ObjectKeyTemplate.DEFAULT, Format.JSON, Compression.NONE);
    assertThat(t.dataKey(group("..", 0, 1), ID)).startsWith("condense/%2E%2E/year=");
    assertThat(ObjectKeyTemplate.escape("a/b c")).isEqualTo("a%2Fb%20c");
    assertThat(ObjectKeyTemplate.escape("topic.with_dots-and_underscores"))
        .isEqualTo("topic.with_dots-and_underscores");
  }

  @Test
  void shouldRejectAnUnknownVariableListingTheLegalOnes() {
    assertThatThrownBy(() -> template("${TOPIC}/${JOB_ID}", Format.JSON, Compression.NONE))
        .isInstanceOf(InvalidKeyTemplateException.class)
        .hasMessageContaining("unknown variable ${TOPIC}")
        .hasMessageContaining("${OBJECT_NAME}");
  }

  @Test
  void shouldRejectALeadingSlashAndDotDotSegments() {
    assertThatThrownBy(() -> template("/x/${JOB_ID}", Format.JSON, Compression.NONE))
        .hasMessageContaining("must not start with '/'");
    assertThatThrownBy(() -> template("x/../${JOB_ID}", Format.JSON, Compression.NONE))
        .hasMessageContaining("'..' path segment");
  }

  @Test
  void shouldRejectCharactersS3AdvisesAgainst() {
    assertThatThrownBy(() -> template("x{y}/${JOB_ID}", Format.JSON, Compression.NONE))
        .hasMessageContaining("characters S3 advises against");
  }

  @Test
  void shouldRejectATemplateThatCanExceedS3sKeyLength() {
    String longLiteral = "a".repeat(900);
    assertThatThrownBy(
            () ->
                template(longLiteral + "/${OBJECT_NAME}/${JOB_ID}", Format.JSON, Compression.NONE))
        .hasMessageContaining("longer than S3's 1024 bytes");
  }

  @Test
  void shouldKeepRenderedKeysWithinS3sLimit() {
    var t = template(ObjectKeyTemplate.DEFAULT, Format.NDJSON, Compression.GZIP);
    String key = t.dataKey(group("t".repeat(249), 0, 1), ID);
    assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
  }
}
