package io.kafkas3archiver.schema;

import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Where a topic's schema comes from, and where its growth goes: the one seam through which csv and
 * parquet get their columns and types. No encoder decides a column by itself.
 *
 * <p>The sources, by precedence (DESIGN §4): the declared schema ({@link #declared}: {@code
 * PARQUET_SCHEMA} inline, an S3 document or a Glue table), then the schema registry (per record, by
 * the schema id the mapping sends: {@link SchemaCatalog}), then inference ({@link #schemaFor}),
 * which also types the fields a declared schema leaves out.
 */
public interface SchemaSource {

  /**
   * The declared schema, or null when none is declared. A Glue table or S3 document is read on the
   * first call, once, and kept; a failed read throws {@link DeclaredSchemaException} and is tried
   * again on the next call.
   */
  default DeclaredSchema declared() {
    return null;
  }

  /**
   * {@code inferred}, with the declared schema that {@code loader} gives (may be null: none). The
   * loader runs on the first {@link #declared} call, so never at init or while priming, which use
   * sources of their own.
   */
  static SchemaSource declaring(SchemaSource inferred, Supplier<DeclaredSchema> loader) {
    return new SchemaSource() {
      private DeclaredSchema loaded;

      @Override
      public synchronized DeclaredSchema declared() {
        if (loaded == null && loader != null) {
          loaded = loader.get();
        }
        return loaded;
      }

      @Override
      public TopicSchema schemaFor(
          String topic,
          List<TopicSchema.Addition> additions,
          Collection<String> reserved,
          Deadline deadline)
          throws UploadException {
        return inferred.schemaFor(topic, additions, reserved, deadline);
      }

      @Override
      public TopicSchema known(String topic) {
        return inferred.known(topic);
      }
    };
  }

  /**
   * The topic's schema to write a batch with: the current version, extended by {@code additions}
   * (fields the batch would add, with their types there) where those fields have no column yet. A
   * field already in the schema keeps its column and type, whatever the batch holds. {@code
   * reserved} are names a column may not take (ignoring case).
   */
  TopicSchema schemaFor(
      String topic,
      List<TopicSchema.Addition> additions,
      Collection<String> reserved,
      Deadline deadline)
      throws UploadException;

  /** The current version this source knows, without extending or loading it; empty if none. */
  TopicSchema known(String topic);

  /**
   * A source held in this JVM only: versions grow as batches add fields, and are lost at exit. For
   * tests and for priming; the function persists its schemas ({@code upload.PersistedSchemas}).
   */
  static SchemaSource inMemory() {
    return new SchemaSource() {
      private final ConcurrentHashMap<String, TopicSchema> schemas = new ConcurrentHashMap<>();

      @Override
      public TopicSchema schemaFor(
          String topic,
          List<TopicSchema.Addition> additions,
          Collection<String> reserved,
          Deadline deadline) {
        return schemas.compute(
            topic, (t, s) -> (s == null ? TopicSchema.empty(t) : s).plus(additions, reserved));
      }

      @Override
      public TopicSchema known(String topic) {
        return schemas.getOrDefault(topic, TopicSchema.empty(topic));
      }
    };
  }
}
