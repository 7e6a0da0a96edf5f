package io.kafkas3archiver.decode;

/**
 * The {@code keySchemaMetadata} / {@code valueSchemaMetadata} that an event source mapping with a
 * schema registry ({@code EventRecordFormat: JSON}) adds to a record whose key or value it
 * validated and converted to JSON: the registry's data format ({@code AVRO}, {@code PROTOBUF},
 * {@code JSON}) and the schema's id in that registry (a Glue schema version id, a UUID, or a
 * Confluent schema id, a number).
 */
public record SchemaMetadata(String dataFormat, String schemaId) {
  public SchemaMetadata {
    if (schemaId == null || schemaId.isBlank()) {
      throw new IllegalArgumentException("schema metadata without a schemaId");
    }
    dataFormat = dataFormat == null ? "" : dataFormat;
  }
}
