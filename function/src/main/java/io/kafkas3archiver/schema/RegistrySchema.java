package io.kafkas3archiver.schema;

import java.util.List;

/** A registry schema, parsed: the columns of its top-level record or message, in order. */
public record RegistrySchema(String dataFormat, List<FieldType.Column> columns) {
  public RegistrySchema {
    columns = List.copyOf(columns);
  }
}
