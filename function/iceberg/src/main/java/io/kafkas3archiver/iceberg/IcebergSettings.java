package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.config.HttpUrl;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The {@code ICEBERG_*} settings of DESIGN §9, parsed and validated once at cold start. Every error
 * names the variable, the bad value and the legal values.
 *
 * @param database the Glue database, or the REST namespace (S3 Tables: the table bucket's
 *     namespace)
 * @param table the one table every topic goes to; empty = one table per topic, named from it
 * @param warehouse Glue: the table location root (default {@code s3://BUCKET_NAME/KEY_PREFIX});
 *     REST: the catalog's warehouse (S3 Tables: the table bucket ARN)
 * @param signingName REST only: SigV4-sign catalog calls for this service ({@code s3tables}, {@code
 *     glue}); empty = no signing
 * @param maintenance what {@code {"action":"maintain"}} aims for
 */
public record IcebergSettings(
    Catalog catalog,
    String database,
    Optional<String> table,
    Optional<URI> restUri,
    Optional<String> warehouse,
    Optional<String> signingName,
    Maintenance maintenance) {

  /**
   * {@code ICEBERG_TARGET_FILE_MB}, {@code ICEBERG_SNAPSHOT_RETENTION_HOURS}, {@code
   * ICEBERG_SNAPSHOTS_RETAINED}: compaction writes files of about {@code targetFileBytes}; expiry
   * removes snapshots older than {@code retentionHours} beyond the newest {@code
   * snapshotsRetained}.
   */
  public record Maintenance(long targetFileBytes, int retentionHours, int snapshotsRetained) {}

  /** {@code ICEBERG_CATALOG}. */
  public enum Catalog {
    GLUE,
    REST;

    String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Glue and S3 Tables both accept these, and so does every REST catalog we know. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_]{0,254}");

  private static final String NAME_RULE =
      "1-255 of lower-case letters, digits and '_', starting with a letter or digit (the rule"
          + " of Glue and S3 Tables)";

  public static IcebergSettings fromEnv(ArchiverConfig config, Function<String, String> env) {
    Catalog catalog =
        switch (optional(env, "ICEBERG_CATALOG")
            .map(v -> v.toLowerCase(Locale.ROOT))
            .orElse("glue")) {
          case "glue" -> Catalog.GLUE;
          case "rest" -> Catalog.REST;
          default ->
              throw invalid("ICEBERG_CATALOG", env.apply("ICEBERG_CATALOG").trim(), "glue, rest");
        };
    String database =
        optional(env, "ICEBERG_DATABASE")
            .orElseThrow(
                () ->
                    new ConfigException(
                        "ICEBERG_DATABASE is required but not set: the Glue database (or the REST"
                            + " catalog's namespace, for S3 Tables the table bucket's namespace)"
                            + " that holds the table; "
                            + NAME_RULE));
    name("ICEBERG_DATABASE", database);
    Optional<String> table = optional(env, "ICEBERG_TABLE");
    table.ifPresent(t -> name("ICEBERG_TABLE", t));
    Optional<URI> restUri = optional(env, "ICEBERG_REST_URI").map(IcebergSettings::restUri);
    Optional<String> warehouse = optional(env, "ICEBERG_WAREHOUSE");
    Optional<String> signingName = optional(env, "ICEBERG_SIGNING_NAME");
    switch (catalog) {
      case REST -> {
        if (restUri.isEmpty()) {
          throw new ConfigException(
              "ICEBERG_REST_URI is required when ICEBERG_CATALOG=rest: the catalog's base URL,"
                  + " e.g. https://s3tables.us-east-1.amazonaws.com/iceberg for S3 Tables");
        }
      }
      case GLUE -> {
        if (restUri.isPresent() || signingName.isPresent()) {
          throw new ConfigException(
              (restUri.isPresent() ? "ICEBERG_REST_URI" : "ICEBERG_SIGNING_NAME")
                  + " is set but ICEBERG_CATALOG is 'glue': set ICEBERG_CATALOG=rest to use a"
                  + " REST catalog (S3 Tables included), or remove it");
        }
      }
    }
    warehouse.ifPresent(
        w -> {
          if (catalog == Catalog.GLUE && !w.startsWith("s3://")) {
            throw invalid(
                "ICEBERG_WAREHOUSE", w, "an s3:// location such as s3://my-bucket/tables");
          }
        });
    signingName.ifPresent(
        n -> {
          if (!n.matches("[a-z0-9-]{1,64}")) {
            throw invalid(
                "ICEBERG_SIGNING_NAME", n, "an AWS service signing name such as s3tables or glue");
          }
        });
    Maintenance maintenance =
        new Maintenance(
            wholeNumber(env, "ICEBERG_TARGET_FILE_MB", 128, 1, 4096) * 1024L * 1024L,
            wholeNumber(env, "ICEBERG_SNAPSHOT_RETENTION_HOURS", 24, 0, 24 * 3650),
            wholeNumber(env, "ICEBERG_SNAPSHOTS_RETAINED", 10, 1, 10_000));
    return new IcebergSettings(
        catalog, database, table, restUri, warehouse, signingName, maintenance);
  }

  /**
   * The table a topic's records go to: {@code ICEBERG_TABLE}, or the topic with every character
   * that Glue and S3 Tables reject ({@code .}, {@code -}, upper case) mapped to {@code _} or lower
   * case.
   */
  public String tableFor(String topic) {
    return table.orElseGet(
        () -> {
          String name = topic.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
          return name.startsWith("_") ? "t" + name : name;
        });
  }

  private static Optional<String> optional(Function<String, String> env, String name) {
    String value = env.apply(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static int wholeNumber(
      Function<String, String> env, String name, int defaultValue, int min, int max) {
    Optional<String> raw = optional(env, name);
    if (raw.isEmpty()) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(raw.get());
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below with the legal range
    }
    throw invalid(name, raw.get(), "a whole number from " + min + " to " + max);
  }

  private static void name(String variable, String value) {
    if (!NAME.matcher(value).matches()) {
      throw invalid(variable, value, NAME_RULE);
    }
  }

  private static URI restUri(String raw) {
    URI uri =
        HttpUrl.parse(raw)
            .orElseThrow(
                () ->
                    invalid(
                        "ICEBERG_REST_URI",
                        HttpUrl.redacted(raw),
                        "an http:// or https:// URL such as https://s3tables.us-east-1.amazonaws.com/iceberg"));
    return HttpUrl.withoutUserInfo(
        "ICEBERG_REST_URI",
        uri,
        "the catalog's calls are signed with the function's AWS credentials (ICEBERG_SIGNING_NAME)");
  }

  private static ConfigException invalid(String name, String value, String legal) {
    return new ConfigException(name + "='" + value + "' is not valid; legal values: " + legal);
  }
}
