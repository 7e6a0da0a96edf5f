package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.schema.DeclaredSchema;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.schema.TopicSchema;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The csv and parquet encoders give, byte for byte, the output they gave before issue 29 rewrote
 * their cell and column writing ({@link TabularCorpus}: every quoting rule, number edge, column
 * type, misfit, exact-cell case and shape). The golden file holds each output's SHA-256, size and
 * counts, recorded from the encoders as they were (commons-csv printing, a String per cell).
 *
 * <p>A change that is meant to change the output regenerates the file with {@code
 * -Dgolden.write=true} and says why in its commit. Each output is also written under {@code
 * target/golden-actual/}, so that a failure can be compared with {@code cmp} against a build of the
 * previous commit.
 */
class TabularGoldenTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden/tabular-encoders.txt");
  private static final Path ACTUAL = Path.of("target/golden-actual");

  /** A declared schema for the parquet scenarios that have one: a column of every simple type. */
  private static final String DECLARED =
      "{\"id\":\"number\",\"label\":\"string\",\"ok\":\"boolean\",\"meta\":\"json\","
          + "\"price\":\"double\",\"count\":\"bigint\",\"vehicleId\":\"string\"}";

  /** {@code compression} wraps a text format's stream, as the pipeline does. */
  private record Scenario(
      String name, Supplier<Encoder> encoder, Compression compression, String extension) {
    Scenario(String name, Supplier<Encoder> encoder, String extension) {
      this(name, encoder, Compression.NONE, extension);
    }
  }

  @Test
  void shouldEncodeTheCorpusExactlyAsBefore() throws Exception {
    Map<String, String> actual = new LinkedHashMap<>();
    Files.createDirectories(ACTUAL);
    for (Scenario s : scenarios()) {
      Encoder encoder = s.encoder().get();
      for (TabularCorpus.Batch batch : TabularCorpus.batches()) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EncodeResult r;
        try (OutputStream wrapped = s.compression().wrap(out)) {
          r =
              encoder.encode(
                  batch.records().get(0).topic(), batch.records(), wrapped, Deadline.UNBOUNDED);
        }
        String name = s.name() + "/" + batch.name();
        Files.write(ACTUAL.resolve(name.replace('/', '-') + s.extension()), out.toByteArray());
        actual.put(
            name,
            String.format(
                "sha256=%s bytes=%d rows=%d tombstones=%d rejected=%d misfits=%d",
                sha256(out.toByteArray()),
                out.size(),
                r.rowsWritten(),
                r.tombstonesSkipped(),
                r.rejected().size(),
                r.valuesOverflowed()));
      }
    }
    if (Boolean.getBoolean("golden.write")) {
      List<String> lines = new ArrayList<>();
      actual.forEach((k, v) -> lines.add(k + " " + v));
      Files.createDirectories(GOLDEN.getParent());
      Files.write(GOLDEN, lines, StandardCharsets.UTF_8);
    }
    Map<String, String> golden = new LinkedHashMap<>();
    for (String line : Files.readAllLines(GOLDEN, StandardCharsets.UTF_8)) {
      int space = line.indexOf(' ');
      golden.put(line.substring(0, space), line.substring(space + 1));
    }
    assertThat(actual).containsExactlyEntriesOf(golden);
  }

  private static List<Scenario> scenarios() {
    return List.of(
        new Scenario("csv", () -> new CsvEncoder(false, seeded()), ".csv"),
        new Scenario("csv-metadata", () -> new CsvEncoder(true, seeded()), ".csv"),
        // The codecs see the same bytes in the same writes and flushes as before.
        new Scenario("csv-gzip", () -> new CsvEncoder(true, seeded()), Compression.GZIP, ".gz"),
        new Scenario("csv-snappy", () -> new CsvEncoder(true, seeded()), Compression.SNAPPY, ".sz"),
        new Scenario("csv-zstd", () -> new CsvEncoder(true, seeded()), Compression.ZSTD, ".zst"),
        new Scenario("parquet", () -> parquet(false, seeded()), ".parquet"),
        new Scenario("parquet-metadata", () -> parquet(true, seeded()), ".parquet"),
        new Scenario("parquet-declared", () -> parquet(false, declared()), ".parquet"),
        new Scenario("parquet-declared-metadata", () -> parquet(true, declared()), ".parquet"));
  }

  private static Encoder parquet(boolean metadata, SchemaSource schemas) {
    return new ParquetEncoder(
        Compression.NONE, metadata, io.kafkas3archiver.schema.SchemaCatalog.none(), schemas);
  }

  private static SchemaSource declared() {
    return SchemaSource.declaring(seeded(), () -> DeclaredSchema.parse(DECLARED, "PARQUET_SCHEMA"));
  }

  /** A schema source in which the {@code typed} topic already has a column of every type. */
  private static SchemaSource seeded() {
    SchemaSource source = SchemaSource.inMemory();
    try {
      source.schemaFor(
          "typed",
          TabularCorpus.TYPED_SCHEMA.additionsOver(TopicSchema.empty("typed")),
          List.of(),
          Deadline.UNBOUNDED);
    } catch (UploadException e) {
      throw new IllegalStateException("an in-memory schema makes no request", e);
    }
    return source;
  }

  private static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
