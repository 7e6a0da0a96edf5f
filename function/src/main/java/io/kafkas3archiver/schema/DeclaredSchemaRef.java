package io.kafkas3archiver.schema;

import java.util.regex.Pattern;

/**
 * What {@code PARQUET_SCHEMA} names: the schema itself (inline JSON), a Glue table ({@code
 * glue:<database>.<table>}), or a JSON document in S3 ({@code s3://<bucket>/<key>}). Parsed and
 * checked at cold start; the table and the document are read on the first batch that needs them,
 * after the SnapStart restore, never while priming.
 */
public sealed interface DeclaredSchemaRef {
  /** The legal values, as the configuration error lists them. */
  String LEGAL =
      "a JSON object from field name to type, e.g. {\"id\":\"bigint\",\"at\":\"timestamp\"}"
          + " (types: "
          + DeclaredTypes.LEGAL
          + "); glue:<database>.<table>; or s3://<bucket>/<key> holding that JSON object";

  /** Glue's names: letters, digits, underscores and hyphens (databases may hold hyphens). */
  Pattern GLUE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,255}");

  /** The schema, given inline. */
  record Inline(DeclaredSchema schema) implements DeclaredSchemaRef {}

  /** A Glue Data Catalog table whose columns are the schema. */
  record GlueTable(String database, String table) implements DeclaredSchemaRef {
    public String describe() {
      return "the Glue table " + database + "." + table;
    }
  }

  /** An S3 object holding the inline JSON shape. */
  record S3Document(String bucket, String key) implements DeclaredSchemaRef {
    public String describe() {
      return "the schema document s3://" + bucket + "/" + key;
    }
  }

  /** Parses the setting; an {@link IllegalArgumentException} says what is wrong. */
  static DeclaredSchemaRef parse(String value) {
    String v = value.strip();
    if (v.startsWith("glue:")) {
      String name = v.substring("glue:".length());
      int dot = name.indexOf('.');
      if (dot < 0) {
        throw new IllegalArgumentException("a Glue table is glue:<database>.<table>");
      }
      String database = name.substring(0, dot);
      String table = name.substring(dot + 1);
      if (!GLUE_NAME.matcher(database).matches() || !GLUE_NAME.matcher(table).matches()) {
        throw new IllegalArgumentException(
            "a Glue database or table name holds only letters, digits, '_' and '-'");
      }
      return new GlueTable(database, table);
    }
    if (v.startsWith("s3://")) {
      String path = v.substring("s3://".length());
      int slash = path.indexOf('/');
      if (slash <= 0 || slash == path.length() - 1) {
        throw new IllegalArgumentException("an S3 document is s3://<bucket>/<key>");
      }
      return new S3Document(path.substring(0, slash), path.substring(slash + 1));
    }
    return new Inline(DeclaredSchema.parse(value, "PARQUET_SCHEMA"));
  }
}
