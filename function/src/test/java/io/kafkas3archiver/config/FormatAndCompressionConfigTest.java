package io.kafkas3archiver.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.group.ObjectGroup;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every OUTPUT_FORMAT × COMPRESSION pair is accepted, and gives the key suffix of DESIGN §3. */
class FormatAndCompressionConfigTest {

  @ParameterizedTest(name = "{0} + {1} -> {2}")
  @CsvSource({
    "json, none, .json",
    "json, gzip, .json.gz",
    "json, snappy, .json.snappy",
    "json, zstd, .json.zst",
    "ndjson, none, .ndjson",
    "ndjson, gzip, .ndjson.gz",
    "ndjson, snappy, .ndjson.snappy",
    "ndjson, zstd, .ndjson.zst",
    "csv, none, .csv",
    "csv, gzip, .csv.gz",
    "csv, snappy, .csv.snappy",
    "csv, zstd, .csv.zst",
    "parquet, none, .parquet",
    "parquet, gzip, .parquet",
    "parquet, snappy, .parquet",
    "parquet, zstd, .parquet"
  })
  void shouldAcceptEveryPairWithItsExtension(String format, String compression, String suffix) {
    ArchiverConfig config = config(format, compression);

    assertThat(config.format().configName()).isEqualTo(format);
    assertThat(config.compression().configName()).isEqualTo(compression);
    var group =
        new ObjectGroup(
            "t",
            ZonedDateTime.parse("2026-07-13T15:04:05Z"),
            List.of(
                new KafkaRecord(
                    "t", 0, 1, 0, "CREATE_TIME", null, new byte[] {'{', '}'}, List.of())),
            List.of());
    assertThat(config.keyTemplate().dataKey(group, group.jobId(format))).endsWith(suffix);
  }

  @ParameterizedTest
  @CsvSource({"OUTPUT_FORMAT, avro", "COMPRESSION, lz4"})
  void shouldStillRejectUnknownValuesListingTheLegalOnes(String variable, String value) {
    assertThatThrownBy(
            () ->
                config(
                    variable.equals("OUTPUT_FORMAT") ? value : "ndjson",
                    variable.equals("COMPRESSION") ? value : "none"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(variable)
        .hasMessageContaining(value)
        .hasMessageContaining(
            variable.equals("OUTPUT_FORMAT")
                ? "json, ndjson, csv, parquet"
                : "none, gzip, snappy, zstd");
  }

  private static ArchiverConfig config(String format, String compression) {
    return ArchiverConfig.fromEnv(
        Map.of(
            "BUCKET_NAME",
            "archive-bucket",
            "AWS_REGION",
            "us-east-1",
            "OUTPUT_FORMAT",
            format,
            "COMPRESSION",
            compression));
  }
}
