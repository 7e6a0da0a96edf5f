package io.kafkas3archiver.schema;

/**
 * Where the schemas of a mapping's schema registry are read from: the same registry the mapping
 * validates against ({@code SCHEMA_REGISTRY_URI}).
 */
public sealed interface SchemaRegistry permits ConfluentRegistry, GlueRegistry {

  /** A schema's text and its data format ({@code AVRO}, {@code PROTOBUF}, {@code JSON}). */
  record Definition(String dataFormat, String text) {}

  /**
   * The schema with this id. Throws {@link SchemaRegistryException} when the registry cannot be
   * reached, refuses the call, or has no such schema, with the cause and the fix.
   */
  Definition fetch(String schemaId);

  /** What the registry is, for messages: its URL or ARN, never a credential. */
  String describe();
}
