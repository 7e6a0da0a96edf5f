package io.kafkas3archiver.schema;

import io.kafkas3archiver.decode.SchemaMetadata;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry schemas of a function, fetched once per schema id and kept for the life of the
 * execution environment: a schema id names one immutable schema in both registries.
 */
public final class SchemaCatalog {
  private static final SchemaCatalog NONE = new SchemaCatalog(null);

  private final SchemaRegistry registry;
  private final ConcurrentHashMap<String, Optional<RegistrySchema>> cache =
      new ConcurrentHashMap<>();

  private SchemaCatalog(SchemaRegistry registry) {
    this.registry = registry;
  }

  /** No registry configured: records with schema metadata are typed by inference. */
  public static SchemaCatalog none() {
    return NONE;
  }

  public static SchemaCatalog over(SchemaRegistry registry) {
    return new SchemaCatalog(registry);
  }

  public boolean configured() {
    return registry != null;
  }

  /**
   * The schema's columns; empty for a JSON Schema, whose values are typed by inference as any JSON.
   * Throws {@link SchemaRegistryException} when the registry cannot give it.
   */
  public Optional<RegistrySchema> schemaFor(SchemaMetadata metadata) {
    Optional<RegistrySchema> cached = cache.get(metadata.schemaId());
    if (cached != null) {
      return cached;
    }
    SchemaRegistry.Definition definition = registry.fetch(metadata.schemaId());
    Optional<RegistrySchema> parsed = parse(metadata.schemaId(), definition);
    cache.put(metadata.schemaId(), parsed);
    return parsed;
  }

  private Optional<RegistrySchema> parse(String schemaId, SchemaRegistry.Definition d) {
    try {
      return switch (d.dataFormat().toUpperCase(Locale.ROOT)) {
        case "AVRO" -> Optional.of(AvroSchemas.parse(d.text()));
        case "PROTOBUF" -> Optional.of(ProtobufSchemas.parse(d.text()));
        default -> Optional.empty();
      };
    } catch (IllegalArgumentException e) {
      throw new SchemaRegistryException(
          "schema "
              + schemaId
              + " from "
              + registry.describe()
              + " cannot be read as "
              + d.dataFormat()
              + ": "
              + e.getMessage()
              + "; see docs/schema-registry.md for what is supported",
          false,
          e);
    }
  }
}
