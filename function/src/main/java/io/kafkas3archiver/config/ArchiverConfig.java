package io.kafkas3archiver.config;

import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.group.InvalidKeyTemplateException;
import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.group.PartitionTime;
import io.kafkas3archiver.group.TimeField;
import io.kafkas3archiver.schema.ConfluentRegistry;
import io.kafkas3archiver.schema.DeclaredSchemaRef;
import java.net.URI;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Every setting of DESIGN §2, parsed and validated once at cold start. Any error throws a {@link
 * ConfigException} that names the variable, the bad value and the legal values.
 */
public record ArchiverConfig(
    String bucketName,
    String bucketRegion,
    String title,
    Optional<String> inputTopic,
    Format format,
    Compression compression,
    String keyPrefix,
    ObjectKeyTemplate keyTemplate,
    PartitionTime partitionTime,
    ZoneId timeZone,
    boolean includeKafkaMetadata,
    Optional<String> credentialsSecretArn,
    Optional<String> roleArn,
    Optional<String> externalId,
    Optional<ServerSideEncryption> sse,
    Optional<String> kmsKeyId,
    Optional<URI> endpoint,
    boolean forcePathStyle,
    boolean reportBatchItemFailures,
    LogLevel logLevel,
    Optional<DeclaredSchemaRef> parquetSchema,
    Optional<String> expectedBucketOwner,
    Optional<TimeField> timeField,
    int maxFoldersPerPartition,
    Optional<String> schemaRegistryUri,
    Optional<String> schemaRegistrySecretArn) {

  /** The fan-out guard's default: folders one topic-partition may open per batch (DESIGN §8). */
  public static final int DEFAULT_MAX_FOLDERS_PER_PARTITION = 100;

  public static final int MAX_MAX_FOLDERS_PER_PARTITION = 10_000;

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern IP_ADDRESS = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z0-9]+)+-\\d+");
  private static final Pattern PREFIX_SEGMENT = Pattern.compile("[A-Za-z0-9!\\-_.*'()=+,;:@ ]+");
  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");
  private static final Pattern ACCOUNT_ID = Pattern.compile("\\d{12}");
  private static final Pattern GLUE_REGISTRY =
      Pattern.compile("arn:aws[a-z-]*:glue:[a-z0-9-]+:\\d{12}:registry/[A-Za-z0-9_$#.-]+");

  /**
   * An object key as this function's log lines and error messages show it (DESIGN §6): segments
   * that a {@code KEY_TEMPLATE} fills from record content are payload, masked ({@code region=…})
   * unless {@code LOG_LEVEL=debug}, where the full key is shown.
   */
  public String shownKey(String key) {
    return logLevel.allows(LogLevel.DEBUG) ? key : keyTemplate.masked(key);
  }

  public static ArchiverConfig fromEnv(Map<String, String> env) {
    return fromEnv(env::get);
  }

  public static ArchiverConfig fromEnv(Function<String, String> source) {
    Env env = new Env(source);
    String bucket = env.required(Setting.BUCKET_NAME);
    validateBucketName(bucket);
    Setting regionSetting =
        env.optional(Setting.BUCKET_REGION).isPresent()
            ? Setting.BUCKET_REGION
            : Setting.AWS_REGION;
    String region =
        env.optional(regionSetting)
            .orElseThrow(
                () ->
                    new ConfigException(
                        "BUCKET_REGION is not set and neither is AWS_REGION: set BUCKET_REGION to"
                            + " the bucket's region, e.g. us-east-1"));
    if (!REGION.matcher(region).matches()) {
      throw Env.invalid(regionSetting, region, Setting.BUCKET_REGION.legalValues());
    }
    String title =
        env.optional(Setting.TITLE)
            .or(() -> env.optional(Setting.AWS_LAMBDA_FUNCTION_NAME))
            .orElse("kafka-s3-archiver");
    Optional<String> inputTopic = env.optional(Setting.INPUT_TOPIC);
    inputTopic.ifPresent(
        t -> {
          if (!TOPIC.matcher(t).matches()) {
            throw Env.invalid(Setting.INPUT_TOPIC, t);
          }
        });
    Format format = env.choice(Setting.OUTPUT_FORMAT, Format.values(), Format::configName).get();
    Compression compression =
        env.choice(Setting.COMPRESSION, Compression.values(), Compression::configName).get();
    String keyPrefix = keyPrefix(env.value(Setting.KEY_PREFIX).get());
    ObjectKeyTemplate template;
    try {
      template =
          ObjectKeyTemplate.of(
              env.value(Setting.KEY_TEMPLATE).get(), keyPrefix, title, format, compression);
    } catch (InvalidKeyTemplateException e) {
      throw new ConfigException(e.getMessage());
    }
    PartitionTime partitionTime =
        env.choice(Setting.PARTITION_TIME, PartitionTime.values(), PartitionTime::configName)
            // With record variables, batch cannot be exactly-once (see below): record is the
            // default that keeps each record's folder a function of the record alone.
            .orElse(template.recordFields().isEmpty() ? PartitionTime.BATCH : PartitionTime.RECORD);
    ZoneId zone = zone(env.value(Setting.TIME_ZONE).get());
    boolean metadata = env.bool(Setting.INCLUDE_KAFKA_METADATA);

    Optional<String> secretArn = env.optional(Setting.CREDENTIALS_SECRET_ARN);
    secretArn.ifPresent(arn -> requireArn(Setting.CREDENTIALS_SECRET_ARN, arn, "secretsmanager"));
    Optional<String> roleArn = env.optional(Setting.ROLE_ARN);
    roleArn.ifPresent(arn -> requireArn(Setting.ROLE_ARN, arn, "iam"));
    Optional<String> externalId = env.optional(Setting.EXTERNAL_ID);
    if (externalId.isPresent() && roleArn.isEmpty()) {
      throw new ConfigException(
          "EXTERNAL_ID is set but ROLE_ARN is not: the external ID is only sent when assuming"
              + " ROLE_ARN; set ROLE_ARN or remove EXTERNAL_ID");
    }

    Optional<ServerSideEncryption> sse =
        env.choice(Setting.SSE, ServerSideEncryption.values(), ServerSideEncryption::configName);
    Optional<String> kmsKeyId = env.optional(Setting.KMS_KEY_ID);
    if (kmsKeyId.isPresent() && sse.orElse(null) != ServerSideEncryption.KMS) {
      throw new ConfigException(
          "KMS_KEY_ID is set but SSE is '"
              + sse.map(ServerSideEncryption::headerValue).orElse("")
              + "'; set SSE=aws:kms to encrypt with that key");
    }

    Optional<URI> endpoint =
        env.optional(Setting.AWS_ENDPOINT_URL_S3).map(ArchiverConfig::endpoint);
    boolean pathStyle = env.bool(Setting.S3_FORCE_PATH_STYLE);
    boolean reportItemFailures = env.bool(Setting.REPORT_BATCH_ITEM_FAILURES);
    LogLevel logLevel =
        env.choice(Setting.LOG_LEVEL, LogLevel.values(), LogLevel::configName).get();
    Optional<DeclaredSchemaRef> parquetSchema =
        env.optional(Setting.PARQUET_SCHEMA).map(ArchiverConfig::schema);
    if (parquetSchema.isPresent() && format != Format.PARQUET) {
      throw new ConfigException(
          "PARQUET_SCHEMA is set but OUTPUT_FORMAT is '"
              + format.configName()
              + "'; it declares Parquet column types: set OUTPUT_FORMAT=parquet or remove"
              + " PARQUET_SCHEMA");
    }
    // S3 refuses (403) any call on a bucket that another account owns: a deleted and re-created
    // bucket name, or a typo that names someone else's bucket, then receives no data.
    Optional<String> expectedBucketOwner = env.optional(Setting.EXPECTED_BUCKET_OWNER);
    expectedBucketOwner.ifPresent(
        owner -> {
          if (!ACCOUNT_ID.matcher(owner).matches()) {
            throw Env.invalid(
                Setting.EXPECTED_BUCKET_OWNER,
                owner,
                "the 12-digit AWS account id that owns BUCKET_NAME, such as 123456789012, or"
                    + " unset");
          }
        });

    Optional<TimeField> timeField = Optional.empty();
    if (partitionTime == PartitionTime.FIELD) {
      String field = env.required(Setting.TIME_FIELD);
      try {
        timeField = Optional.of(TimeField.of(field, env.value(Setting.TIME_FORMAT).get(), zone));
      } catch (InvalidKeyTemplateException e) {
        throw new ConfigException(e.getMessage());
      }
    } else {
      for (Setting setting : new Setting[] {Setting.TIME_FIELD, Setting.TIME_FORMAT}) {
        env.optional(setting)
            .ifPresent(
                v -> {
                  throw new ConfigException(
                      setting.name()
                          + "='"
                          + v
                          + "' is set but PARTITION_TIME is '"
                          + partitionTime.configName()
                          + "'; set PARTITION_TIME=field to take the time folders from the"
                          + " value, or remove "
                          + setting.name());
                });
      }
    }
    int maxFolders =
        env.integer(Setting.MAX_FOLDERS_PER_PARTITION, 1, MAX_MAX_FOLDERS_PER_PARTITION);
    if (!template.recordFields().isEmpty() && partitionTime == PartitionTime.BATCH) {
      // Exactly-once names an object from its folder's first offset at the restart point. Under
      // batch the time folder is that of the partition's first record, which may sit in another
      // value folder, so no stored claim could say where a restart will name its object.
      throw new ConfigException(
          "PARTITION_TIME='batch' cannot be used with KEY_TEMPLATE='"
              + template.source()
              + "', which partitions by record content: a redelivery's time folder would depend"
              + " on where it starts, so its objects could not be named exactly once; legal"
              + " values with record variables: record (the default, each record's Kafka"
              + " timestamp) or field (with TIME_FIELD)");
    }
    boolean readsRecords =
        !template.recordFields().isEmpty() || partitionTime == PartitionTime.FIELD;
    if (readsRecords && !reportItemFailures) {
      throw new ConfigException(
          (template.recordFields().isEmpty()
                  ? "PARTITION_TIME='field'"
                  : "KEY_TEMPLATE='" + template.source() + "'")
              + " partitions by record content, so one batch can fan out into many folders;"
              + " the fan-out guard then defers the rest of a partition by reporting batch item"
              + " failures, which needs REPORT_BATCH_ITEM_FAILURES=true (and"
              + " FunctionResponseTypes: [ReportBatchItemFailures] on the event source mapping);"
              + " legal values: REPORT_BATCH_ITEM_FAILURES=true");
    }
    Optional<String> registryUri = env.optional(Setting.SCHEMA_REGISTRY_URI);
    Optional<String> registrySecret = env.optional(Setting.SCHEMA_REGISTRY_SECRET_ARN);
    registryUri.ifPresent(uri -> registry(uri, registrySecret.isPresent()));
    if (registrySecret.isPresent()
        && registryUri.map(GLUE_REGISTRY::matcher).map(m -> m.matches()).orElse(true)) {
      throw new ConfigException(
          "SCHEMA_REGISTRY_SECRET_ARN is set but SCHEMA_REGISTRY_URI is not a Confluent registry"
              + " URL; a Glue registry is read with the execution role: remove"
              + " SCHEMA_REGISTRY_SECRET_ARN, or set SCHEMA_REGISTRY_URI to the Confluent URL");
    }

    return new ArchiverConfig(
        bucket,
        region,
        title,
        inputTopic,
        format,
        compression,
        keyPrefix,
        template,
        partitionTime,
        zone,
        metadata,
        secretArn,
        roleArn,
        externalId,
        sse,
        kmsKeyId,
        endpoint,
        pathStyle,
        reportItemFailures,
        logLevel,
        parquetSchema,
        expectedBucketOwner,
        timeField,
        maxFolders,
        registryUri,
        registrySecret);
  }

  private static DeclaredSchemaRef schema(String value) {
    try {
      return DeclaredSchemaRef.parse(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "PARQUET_SCHEMA='"
              + value
              + "' is not a valid schema ("
              + e.getMessage()
              + "); legal: "
              + DeclaredSchemaRef.LEGAL);
    }
  }

  /** S3's bucket naming rules for general purpose buckets. */
  static void validateBucketName(String bucket) {
    String why = null;
    if (bucket.length() < 3 || bucket.length() > 63) {
      why = "it must be 3 to 63 characters long";
    } else if (!BUCKET.matcher(bucket).matches()) {
      why =
          "it may hold only lower-case letters, digits, '.' and '-', and must begin and end with a"
              + " letter or digit";
    } else if (bucket.contains("..") || bucket.contains(".-") || bucket.contains("-.")) {
      why = "it must not hold two adjacent periods or a period next to a hyphen";
    } else if (IP_ADDRESS.matcher(bucket).matches()) {
      why = "it must not be formatted as an IP address";
    } else if (bucket.startsWith("xn--")
        || bucket.startsWith("sthree-")
        || bucket.startsWith("amzn-s3-demo-")) {
      why = "it must not start with the reserved prefixes xn--, sthree- or amzn-s3-demo-";
    } else if (bucket.endsWith("-s3alias")
        || bucket.endsWith("--ol-s3")
        || bucket.endsWith(".mrap")
        || bucket.endsWith("--x-s3")
        || bucket.endsWith("--table-s3")) {
      why =
          "it must not end with the reserved suffixes -s3alias, --ol-s3, .mrap, --x-s3 or"
              + " --table-s3";
    }
    if (why != null) {
      throw new ConfigException(
          "BUCKET_NAME='" + bucket + "' is not a valid S3 bucket name: " + why);
    }
  }

  private static String keyPrefix(String raw) {
    String prefix = raw;
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (prefix.startsWith("/")) {
      throw Env.invalid(
          Setting.KEY_PREFIX,
          raw,
          "a relative path such as condense or archive/kafka (no leading '/')");
    }
    if (prefix.isEmpty()) {
      return prefix;
    }
    for (String segment : prefix.split("/", -1)) {
      if (segment.isEmpty()
          || segment.equals(".")
          || segment.equals("..")
          || !PREFIX_SEGMENT.matcher(segment).matches()) {
        throw Env.invalid(Setting.KEY_PREFIX, raw);
      }
    }
    return prefix;
  }

  private static ZoneId zone(String raw) {
    try {
      return ZoneId.of(raw);
    } catch (DateTimeException e) {
      throw Env.invalid(Setting.TIME_ZONE, raw);
    }
  }

  private static void requireArn(Setting setting, String value, String service) {
    if (!value.startsWith("arn:") || !value.contains(":" + service + ":")) {
      throw Env.invalid(setting, value, "an ARN of the form arn:aws:" + service + ":...");
    }
  }

  private static URI endpoint(String raw) {
    URI uri =
        HttpUrl.parse(raw)
            .orElseThrow(
                () ->
                    Env.invalid(
                        Setting.AWS_ENDPOINT_URL_S3,
                        HttpUrl.redacted(raw),
                        "an http:// or https:// URL such as http://127.0.0.1:9000"));
    return HttpUrl.withoutUserInfo(
        Setting.AWS_ENDPOINT_URL_S3.name(),
        uri,
        "S3's keys come from the execution role, CREDENTIALS_SECRET_ARN or ROLE_ARN");
  }

  /**
   * A Glue registry ARN, or a Confluent URL: http(s) with a host and no user-info, and https when
   * it gets credentials ({@code SCHEMA_REGISTRY_SECRET_ARN}), or the password would cross the
   * network in clear text. Messages never echo user-info.
   */
  private static void registry(String uri, boolean withCredentials) {
    if (GLUE_REGISTRY.matcher(uri).matches()) {
      return;
    }
    Optional<URI> url = HttpUrl.parse(uri);
    if (url.isEmpty()) {
      throw Env.invalid(
          Setting.SCHEMA_REGISTRY_URI,
          HttpUrl.redacted(uri),
          "a Glue registry ARN such as arn:aws:glue:us-east-1:123456789012:registry/orders,"
              + " or a Confluent registry URL such as https://registry.example.com:8081");
    }
    HttpUrl.withoutUserInfo(
        Setting.SCHEMA_REGISTRY_URI.name(),
        url.get(),
        "store {\"username\": \"...\", \"password\": \"...\"} in Secrets Manager and set"
            + " SCHEMA_REGISTRY_SECRET_ARN to it");
    if (withCredentials && !ConfluentRegistry.sendsCredentialsSafely(url.get())) {
      throw new ConfigException(
          "SCHEMA_REGISTRY_URI='"
              + uri
              + "' is plain http, but SCHEMA_REGISTRY_SECRET_ARN gives it basic-auth credentials:"
              + " the registry password would cross the network in clear text, readable on every"
              + " hop; legal values with SCHEMA_REGISTRY_SECRET_ARN: the registry's https:// URL"
              + " (plain http only to a loopback address such as http://127.0.0.1:8081), or unset"
              + " SCHEMA_REGISTRY_SECRET_ARN for a registry without authentication");
    }
  }
}
