package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.testing.DuckDb;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Athena DDL that docs/object-layout.md prints for a topic declares the types the files have:
 * the test writes a file from the documented sample value and compares, column by column, what
 * DuckDB reads with what the DDL declares.
 */
class AthenaDdlDocTest {
  private static final Path DOC = Path.of("..", "docs", "object-layout.md");
  private static final String SAMPLE =
      "{\"vehicleId\":\"KA-01\",\"speedKmh\":64.5,\"odometerKm\":120344,\"ignition\":true,"
          + "\"location\":{\"lat\":12.97,\"lon\":77.59}}";
  private static final Pattern COLUMN = Pattern.compile("^\\s*`([^`]+)` ([a-z0-9(),]+?),?$");

  @TempDir Path dir;

  @Test
  void shouldDeclareInTheDocumentedDdlExactlyTheColumnsAndTypesOfTheFiles() throws IOException {
    Map<String, String> declared = documentedColumns();
    // a second batch of the topic where the numbers are integers: the DDL must still match
    ParquetEncoder encoder = new ParquetEncoder(Compression.SNAPPY, true);
    for (String value : List.of(SAMPLE, SAMPLE.replace("64.5", "64"))) {
      Path file = dir.resolve(Math.abs(value.hashCode()) + ".parquet");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      KafkaRecord record =
          new KafkaRecord(
              "vehicle-telemetry",
              0,
              1,
              1783955045000L,
              "CREATE_TIME",
              "KA-01".getBytes(StandardCharsets.UTF_8),
              value.getBytes(StandardCharsets.UTF_8),
              List.of());
      encoder.encode(List.of(record), out);
      Files.write(file, out.toByteArray());

      Map<String, String> actual = new LinkedHashMap<>();
      try (DuckDb duck = new DuckDb()) {
        for (var r :
            duck.query("DESCRIBE SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")")) {
          actual.put((String) r.get("column_name"), (String) r.get("column_type"));
        }
      }
      Map<String, String> expected = new LinkedHashMap<>();
      declared.forEach((name, type) -> expected.put(name, duckType(type)));
      assertThat(actual).as(value).containsExactlyEntriesOf(expected);
    }
  }

  private static Map<String, String> documentedColumns() throws IOException {
    String doc = Files.readString(DOC);
    int marker = doc.indexOf("<!-- athena-ddl:vehicle-telemetry -->");
    assertThat(marker).as("the DDL marker in " + DOC).isNotNegative();
    int start = doc.indexOf("CREATE EXTERNAL TABLE", marker);
    int end = doc.indexOf("PARTITIONED BY", start);
    Map<String, String> columns = new LinkedHashMap<>();
    for (String line : doc.substring(start, end).lines().toList()) {
      Matcher m = COLUMN.matcher(line);
      if (m.matches()) {
        columns.put(m.group(1), m.group(2));
      }
    }
    assertThat(columns).hasSizeGreaterThan(5);
    return columns;
  }

  /** The type DuckDB reports for a Parquet column that Athena reads as {@code athena}. */
  private static String duckType(String athena) {
    return switch (athena) {
      case "string" -> "VARCHAR";
      case "int" -> "INTEGER";
      case "bigint" -> "BIGINT";
      case "double" -> "DOUBLE";
      case "boolean" -> "BOOLEAN";
      case "timestamp" -> "TIMESTAMP WITH TIME ZONE";
      case "decimal(38,9)" -> "DECIMAL(38,9)";
      default -> throw new AssertionError("no DuckDB type known for Athena type " + athena);
    };
  }
}
