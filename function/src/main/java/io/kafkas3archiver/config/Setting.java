package io.kafkas3archiver.config;

import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.group.PartitionTime;
import io.kafkas3archiver.group.TimeFormat;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every environment variable the function reads, declared once: name, type, default, legal values
 * and doc. {@link ArchiverConfig} reads through these constants, {@code docs/configuration.md} is
 * generated from them ({@code ./mvnw -q -pl function test-compile exec:java@config-docs}), and
 * tests fail when that file is stale or when {@code function/src/main} reads a variable that is not
 * declared here.
 *
 * <p>To add a setting: add one constant here, read it in {@link ArchiverConfig#fromEnv}, and
 * regenerate the docs.
 */
public enum Setting {
  BUCKET_NAME(
      Type.STRING,
      null,
      "required",
      "an S3 bucket name: 3-63 of a-z, 0-9, '.' and '-'",
      "The bucket to archive into. It must exist; the name is checked against S3's naming rules."),
  BUCKET_REGION(
      Type.STRING,
      null,
      "`AWS_REGION`",
      "an AWS region name such as us-east-1",
      "The bucket's region."),
  TITLE(
      Type.STRING,
      null,
      "the function name",
      "any text",
      "Connector name, in logs, metric dimensions and `${PIPELINE_NAME}`."),
  INPUT_TOPIC(
      Type.STRING,
      null,
      "unset = any topic",
      "a Kafka topic name: 1-249 of letters, digits, '.', '_', '-'",
      "The one topic to archive; records of any other topic go to the error object."),
  OUTPUT_FORMAT(
      Type.CHOICE,
      Format.NDJSON.configName(),
      null,
      names(Format.values(), Format::configName),
      "Object format: `json` is one array per object, `ndjson` one JSON value per line, `csv` a"
          + " header and rows, `parquet` columns; `iceberg` commits Parquet files to an Iceberg"
          + " table and needs its own jar (see [Iceberg](iceberg.md))."),
  COMPRESSION(
      Type.CHOICE,
      Compression.NONE.configName(),
      null,
      names(Compression.values(), Compression::configName),
      "Codec: text formats wrap the stream (`.gz`, `.snappy`, `.zst`), Parquet compresses its"
          + " columns."),
  KEY_PREFIX(
      Type.STRING,
      "condense",
      null,
      "path segments of letters, digits and !-_.*'()=+,;:@ separated by '/'; no leading '/',"
          + " no '.' or '..'",
      "First path segment(s) of every key."),
  KEY_TEMPLATE(
      Type.STRING,
      ObjectKeyTemplate.DEFAULT,
      null,
      "a template of ${VARIABLES}, see [object layout](object-layout.md#object-keys)",
      "The full key template."),
  PARTITION_TIME(
      Type.CHOICE,
      null,
      "`batch`; `record` when `KEY_TEMPLATE` has a record variable",
      names(PartitionTime.values(), PartitionTime::configName),
      "Which time picks the year/month/day/hour folder; see below."),
  TIME_FIELD(
      Type.STRING,
      null,
      "unset; required with `PARTITION_TIME=field`",
      "a dotted path into the value, such as eventTime or meta.createdAt; needs"
          + " `PARTITION_TIME=field`",
      "PARTITION_TIME=field takes the time folders from this field of the value; see [object"
          + " layout](object-layout.md#event-time-from-the-value-partition_timefield)."),
  TIME_FORMAT(
      Type.STRING,
      "iso8601",
      null,
      TimeFormat.LEGAL + "; needs `PARTITION_TIME=field`",
      "How `TIME_FIELD` is written."),
  MAX_FOLDERS_PER_PARTITION(
      Type.INTEGER,
      Integer.toString(ArchiverConfig.DEFAULT_MAX_FOLDERS_PER_PARTITION),
      null,
      "an integer from 1 to " + ArchiverConfig.MAX_MAX_FOLDERS_PER_PARTITION,
      "The fan-out guard: folders one topic-partition may open per batch when records choose"
          + " their folders; see [object layout](object-layout.md#the-fan-out-guard)."),
  TIME_ZONE(
      Type.STRING,
      "UTC",
      null,
      "an IANA zone id such as UTC or Europe/Berlin",
      "Zone of the time folders."),
  INCLUDE_KAFKA_METADATA(
      Type.BOOLEAN,
      "false",
      null,
      "true, false",
      "Add topic, partition, offset, timestamp, key and headers to every row."),
  CREDENTIALS_SECRET_ARN(
      Type.STRING,
      null,
      "unset = execution role",
      "a Secrets Manager ARN",
      "Secret with static keys `{\"accessKey\",\"secretKey\"}`."),
  ROLE_ARN(
      Type.STRING,
      null,
      "unset",
      "an IAM role ARN",
      "Role to assume for the bucket (cross-account buckets)."),
  EXTERNAL_ID(
      Type.STRING,
      null,
      "unset",
      "any text; needs `ROLE_ARN`",
      "External ID sent when assuming `ROLE_ARN`."),
  SSE(
      Type.CHOICE,
      null,
      "bucket default",
      names(ServerSideEncryption.values(), ServerSideEncryption::configName),
      "Server-side encryption of every PutObject."),
  KMS_KEY_ID(
      Type.STRING,
      null,
      "unset",
      "a KMS key id or ARN; needs `SSE=aws:kms`",
      "KMS key for `SSE=aws:kms`."),
  AWS_ENDPOINT_URL_S3(
      Type.STRING,
      null,
      "AWS",
      "an http:// or https:// URL",
      "S3-compatible endpoint (MinIO, Ceph, emulators)."),
  S3_FORCE_PATH_STYLE(
      Type.BOOLEAN,
      "false",
      null,
      "true, false",
      "Path-style requests, for S3-compatible endpoints."),
  REPORT_BATCH_ITEM_FAILURES(
      Type.BOOLEAN,
      "false",
      null,
      "true, false",
      "`true` only when the mapping has `FunctionResponseTypes: [ReportBatchItemFailures]`: failed"
          + " topic-partitions are then reported instead of failing the whole invocation."),
  LOG_LEVEL(
      Type.CHOICE,
      LogLevel.INFO.configName(),
      null,
      names(LogLevel.values(), LogLevel::configName),
      "The least severe log line written."),
  EXPECTED_BUCKET_OWNER(
      Type.STRING,
      null,
      "unset",
      "a 12-digit AWS account id",
      "The account that must own `BUCKET_NAME`; every S3 call sends it, and S3 refuses a bucket"
          + " another account owns."),
  PARQUET_SCHEMA(
      Type.STRING,
      null,
      "unset = inferred",
      "a JSON object from field name to type (boolean, int, bigint, float, double, decimal(p,s),"
          + " string, binary, date, timestamp, timestamp(6), json, struct<…>, array<…>,"
          + " map<string,…>); or `glue:<database>.<table>`; or `s3://<bucket>/<key>` holding that"
          + " JSON object; needs `OUTPUT_FORMAT=parquet`",
      "Declared Parquet columns (e.g. `{\"id\":\"bigint\",\"at\":\"timestamp\"}`), in every"
          + " object and first; wins over the schema registry and inference; a record that does"
          + " not match goes to the error object. A Glue table or S3 document is read once, on"
          + " the first batch after a cold start. See [object layout](object-layout.md)."),
  SCHEMA_REGISTRY_URI(
      Type.STRING,
      null,
      "unset = inferred",
      "a Glue registry ARN (arn:aws:glue:REGION:ACCOUNT:registry/NAME) or a Confluent registry's"
          + " http(s) URL without user-info; https with `SCHEMA_REGISTRY_SECRET_ARN` (http only to"
          + " a loopback address)",
      "The schema registry of the mapping's `SchemaRegistryConfig`: with `OUTPUT_FORMAT=parquet`,"
          + " the registry schema of records with `valueSchemaMetadata` gives the column types. See"
          + " [schema registry](schema-registry.md)."),
  SCHEMA_REGISTRY_SECRET_ARN(
      Type.STRING,
      null,
      "unset",
      "a Secrets Manager secret ARN holding {\"username\",\"password\"}; needs a Confluent"
          + " `SCHEMA_REGISTRY_URI`",
      "Basic-auth credentials for a Confluent registry, the mapping's `BASIC_AUTH` secret; read"
          + " on the registry's first call, never before the SnapStart snapshot."),

  // OUTPUT_FORMAT=iceberg only: parsed and validated by the iceberg jar's IcebergSettings (which
  // the plain jar does not carry); declared here so the infrastructure must set each of them.
  ICEBERG_CATALOG(
      Type.CHOICE,
      "glue",
      null,
      "glue, rest",
      "`iceberg`: the table's catalog, the Glue Data Catalog or an Iceberg REST catalog (S3 Tables"
          + " is `rest`). See [Iceberg](iceberg.md#configuration)."),
  ICEBERG_DATABASE(
      Type.STRING,
      null,
      "required with `iceberg`",
      "1-255 of a-z, 0-9 and '_', starting with a letter or digit",
      "`iceberg`: the Glue database, or the REST catalog's namespace."),
  ICEBERG_TABLE(
      Type.STRING,
      null,
      "the topic, lower-cased, other characters as `_`",
      "1-255 of a-z, 0-9 and '_', starting with a letter or digit",
      "`iceberg`: the table every topic goes to."),
  ICEBERG_REST_URI(
      Type.STRING,
      null,
      "required with `ICEBERG_CATALOG=rest`",
      "an http(s) URL such as https://s3tables.us-east-1.amazonaws.com/iceberg",
      "`iceberg`: the REST catalog's base URL."),
  ICEBERG_WAREHOUSE(
      Type.STRING,
      null,
      "Glue: `s3://<BUCKET_NAME>/<KEY_PREFIX>`",
      "Glue: an s3:// location; REST: the catalog's warehouse (S3 Tables: the table bucket ARN)",
      "`iceberg`: where tables live."),
  ICEBERG_SIGNING_NAME(
      Type.STRING,
      null,
      "unset = no signing",
      "an AWS service signing name such as s3tables or glue; needs `ICEBERG_CATALOG=rest`",
      "`iceberg`: SigV4-sign REST catalog calls for this service in `BUCKET_REGION`."),
  ICEBERG_TARGET_FILE_MB(
      Type.INTEGER,
      "128",
      null,
      "an integer from 1 to 4096",
      "`iceberg`: the size of the files `{\"action\":\"maintain\"}` compacts into."),
  ICEBERG_SNAPSHOT_RETENTION_HOURS(
      Type.INTEGER,
      "24",
      null,
      "an integer from 0 to 87600",
      "`iceberg`: snapshots older than this may be expired by maintenance."),
  ICEBERG_SNAPSHOTS_RETAINED(
      Type.INTEGER,
      "10",
      null,
      "an integer from 1 to 10000",
      "`iceberg`: the newest snapshots maintenance always keeps."),

  // Set by Lambda or the AWS SDK's conventions, not by the user; read, so declared too.
  AWS_REGION(Scope.RUNTIME, "the function's region; the default of `BUCKET_REGION`"),
  AWS_DEFAULT_REGION(Scope.RUNTIME, "fallback for `AWS_REGION` in local runs"),
  AWS_LAMBDA_FUNCTION_NAME(Scope.RUNTIME, "the default of `TITLE`"),
  AWS_ACCESS_KEY_ID(Scope.RUNTIME, "the execution role's credentials"),
  AWS_SECRET_ACCESS_KEY(Scope.RUNTIME, "the execution role's credentials"),
  AWS_SESSION_TOKEN(Scope.RUNTIME, "the execution role's credentials"),
  AWS_ENDPOINT_URL(Scope.RUNTIME, "the SDK's endpoint for every service (emulators)"),
  AWS_ENDPOINT_URL_SECRETS_MANAGER(Scope.RUNTIME, "the SDK's Secrets Manager endpoint"),
  AWS_ENDPOINT_URL_STS(Scope.RUNTIME, "the SDK's STS endpoint"),
  AWS_ENDPOINT_URL_GLUE(Scope.RUNTIME, "the SDK's Glue endpoint (schema registry)");

  /** Who sets the variable: the user (documented as a setting) or Lambda / the SDK conventions. */
  public enum Scope {
    SETTING,
    RUNTIME
  }

  /** How the value is parsed. */
  public enum Type {
    STRING,
    CHOICE,
    BOOLEAN,
    INTEGER
  }

  private final Scope scope;
  private final Type type;
  private final String defaultValue;
  private final String defaultDoc;
  private final String legalValues;
  private final String doc;

  Setting(Type type, String defaultValue, String defaultDoc, String legalValues, String doc) {
    this.scope = Scope.SETTING;
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultDoc = defaultDoc != null ? defaultDoc : "`" + defaultValue + "`";
    this.legalValues = legalValues;
    this.doc = doc;
  }

  Setting(Scope scope, String doc) {
    this.scope = scope;
    this.type = Type.STRING;
    this.defaultValue = null;
    this.defaultDoc = "set by Lambda or by you";
    this.legalValues = "";
    this.doc = doc;
  }

  public Scope scope() {
    return scope;
  }

  public Type type() {
    return type;
  }

  /** The value used when the variable is unset or blank; null when there is none to parse. */
  public String defaultValue() {
    return defaultValue;
  }

  public String defaultDoc() {
    return defaultDoc;
  }

  public String legalValues() {
    return legalValues;
  }

  public String doc() {
    return doc;
  }

  private static <E> String names(E[] values, Function<E, String> configName) {
    return Arrays.stream(values).map(configName).collect(Collectors.joining(", "));
  }
}
