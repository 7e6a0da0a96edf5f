package io.kafkas3archiver.schema;

/** The words of the registry errors that both registries share. */
final class SchemaRegistries {
  private SchemaRegistries() {}

  static SchemaRegistryException unreachable(
      SchemaRegistry registry, String schemaId, String why, Throwable cause) {
    return new SchemaRegistryException(
        "could not read schema "
            + schemaId
            + " from "
            + registry.describe()
            + " ("
            + why
            + "); the batch fails and the event source mapping retries it. Check that the function"
            + " can reach the registry (VPC subnets, security groups, a NAT gateway or VPC"
            + " endpoint) and that SCHEMA_REGISTRY_URI names the registry the mapping uses",
        true,
        cause);
  }

  static SchemaRegistryException notFound(SchemaRegistry registry, String schemaId) {
    return new SchemaRegistryException(
        registry.describe()
            + " has no schema "
            + schemaId
            + ", which the event source mapping sent as the records' schemaId; set"
            + " SCHEMA_REGISTRY_URI to the registry in the mapping's SchemaRegistryConfig",
        false,
        null);
  }
}
