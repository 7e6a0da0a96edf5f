package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.TopicSchema;
import io.kafkas3archiver.testing.DuckDb;
import io.kafkas3archiver.testing.MemoryStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The persisted version chain under {@code _schemas/<topic>/v<N>.json}: writers that add different
 * fields at once converge on one chain holding all of them (each version written once, with a
 * conditional write), and an object with no rows still carries every column of its version.
 */
class PersistedSchemasTest {
  private static final List<String> RESERVED = List.of("_overflow");

  @TempDir Path dir;

  @Test
  void shouldConvergeOnOneAppendOnlyChainWhenTwoWritersAddDifferentFieldsAtOnce() throws Exception {
    MemoryStore store = new MemoryStore();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        // two execution environments, each with its own view of the chain
        PersistedSchemas a = new PersistedSchemas(store, "p");
        PersistedSchemas b = new PersistedSchemas(store, "p");
        CountDownLatch go = new CountDownLatch(1);
        String fa = "a" + round;
        String fb = "b" + round;
        Future<TopicSchema> ra = pool.submit(() -> add(go, a, fa, ColumnType.BIGINT));
        Future<TopicSchema> rb = pool.submit(() -> add(go, b, fb, ColumnType.STRING));
        go.countDown();
        assertThat(ra.get().has(fa)).isTrue();
        assertThat(rb.get().has(fb)).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }

    // the newest version holds all 40 fields, each with the type its writer gave it
    TopicSchema newest =
        new PersistedSchemas(store, "p").schemaFor("t", List.of(), RESERVED, Deadline.UNBOUNDED);
    assertThat(newest.columns()).hasSize(40);
    assertThat(newest.version()).isEqualTo(40);
    for (TopicSchema.Column c : newest.columns()) {
      assertThat(c.name()).isEqualTo(c.field());
      assertThat(c.type())
          .isEqualTo(c.field().startsWith("a") ? ColumnType.BIGINT : ColumnType.STRING);
    }
    // each version is the one before it plus one column: nothing renamed, retyped or moved
    TopicSchema previous = TopicSchema.empty("t");
    for (int v = 1; v <= newest.version(); v++) {
      TopicSchema version = TopicSchema.parse(store.objects.get(PersistedSchemas.key("p", "t", v)));
      assertThat(version.columns().subList(0, previous.columns().size()))
          .isEqualTo(previous.columns());
      assertThat(version.columns()).hasSize(previous.columns().size() + 1);
      previous = version;
    }
    assertThat(store.objects.keySet()).hasSize(40);
  }

  private static TopicSchema add(
      CountDownLatch go, PersistedSchemas schemas, String field, ColumnType type) throws Exception {
    go.await();
    return schemas.schemaFor(
        "t", List.of(new TopicSchema.Addition(field, type)), RESERVED, Deadline.UNBOUNDED);
  }

  @Test
  void shouldWriteEveryColumnOfTheVersionIntoAZeroRowObject() throws Exception {
    MemoryStore store = new MemoryStore();
    Encoder parquet =
        Encoder.forFormat(
            Format.PARQUET,
            Compression.SNAPPY,
            false,
            SchemaCatalog.none(),
            new PersistedSchemas(store, "p"));
    parquet.encode(
        "t",
        List.of(
            new KafkaRecord(
                "t",
                0,
                0,
                0,
                "CREATE_TIME",
                null,
                "{\"id\":1,\"name\":\"a\",\"temp\":0.5}".getBytes(StandardCharsets.UTF_8),
                List.of())),
        new ByteArrayOutputStream(),
        Deadline.UNBOUNDED);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    // a group with no rows (all its records went to the error object, say)
    var result = parquet.encode("t", new ArrayList<>(), out, Deadline.UNBOUNDED);

    assertThat(result.rowsWritten()).isZero();
    Path file = Files.write(dir.resolve("empty.parquet"), out.toByteArray());
    try (DuckDb duck = new DuckDb()) {
      assertThat(duck.query("DESCRIBE SELECT * FROM read_parquet(" + DuckDb.literal(file) + ")"))
          .extracting(r -> r.get("column_name") + " " + r.get("column_type"))
          .containsExactly("id BIGINT", "name VARCHAR", "temp DOUBLE", "_overflow VARCHAR");
      assertThat(duck.query("SELECT count(*) AS n FROM read_parquet(" + DuckDb.literal(file) + ")"))
          .extracting(r -> r.get("n"))
          .containsExactly(0L);
    }
    assertThat(Set.copyOf(store.objects.keySet()))
        .containsExactly(PersistedSchemas.key("p", "t", 1));
  }
}
