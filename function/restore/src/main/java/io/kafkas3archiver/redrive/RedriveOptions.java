package io.kafkas3archiver.redrive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.cli.CommandLine;
import io.kafkas3archiver.cli.UsageException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The redrive command's settings, parsed and checked once. The archiver's own settings are not
 * flags: they are the archiver's environment variables (from this process, or from {@code
 * --archiver-env}), read by the archiver's own configuration parser.
 */
public record RedriveOptions(
    Source source,
    Optional<String> bootstrapServers,
    Map<String, String> consumerProperties,
    boolean mskIam,
    Optional<Path> archiverEnv,
    Optional<String> archiverFunction,
    Optional<String> region,
    Optional<String> endpointUrl,
    boolean pathStyle,
    int maxRecords,
    boolean keepMessages,
    boolean dryRun,
    Duration timeout) {

  /** Where the on-failure records are. */
  public sealed interface Source {
    record Sqs(String queueUrl) implements Source {}

    record S3(String bucket, String prefix) implements Source {}

    record Files(List<Path> files) implements Source {}
  }

  public static final String USAGE =
      """
      Usage: redrive (--sqs-queue-url U | --s3 s3://BUCKET/PREFIX | --record FILE...) [options]

      Archives the batches the event source mapping gave up on (recorded in its on-failure
      destination): reads each on-failure record, consumes the skipped offsets from Kafka while the
      topic still holds them, and hands them to the archiver with the archiver's own configuration.
      Each offset is stored once: a second redrive writes nothing. See docs/restore.md#redrive.

      On-failure records
        --sqs-queue-url U          the mapping's on-failure queue (or a queue subscribed to its SNS
                                   topic); a message is deleted once all its offsets are archived
        --s3 s3://B/P              the mapping's on-failure bucket, objects under P (default
                                   aws/lambda/); objects are left in place
        --record FILE              one on-failure record saved to a file; repeatable
        --region R                 the queue's or bucket's region (default: the SDK's chain)
        --endpoint-url U           an SQS- or S3-compatible endpoint
        --path-style               path-style S3 requests
        --max-records N            records per run (default 1000)
        --keep-messages            leave redriven SQS messages in the queue
      Kafka (the cluster the skipped records are on)
        --bootstrap-servers S      default: the record's own KafkaBatchInfo.bootstrapServers
        --consumer-property k=v    any Kafka consumer setting; repeatable (security.protocol, sasl.*,
                                   ssl.*)
        --consumer-config FILE     the same settings from a properties file
        --msk-iam                  MSK IAM auth (SASL_SSL + AWS_MSK_IAM, the SDK's credentials)
      The archiver
        (default)                  built in this process from the archiver's environment variables
                                   (BUCKET_NAME, OUTPUT_FORMAT, KEY_PREFIX, ...: the function's own)
        --archiver-env FILE        those variables as a JSON object, as printed by aws lambda
                                   get-function-configuration --query Environment.Variables; they win
                                   over this process's environment
        --archiver-function F      invoke the deployed archiver function (name, ARN, or name:alias)
                                   with the event the mapping would have sent, instead
      Behaviour
        --dry-run                  read the records and Kafka; archive and delete nothing
        --timeout-seconds N        bound of one Kafka read and one archive call (default 120)
        --help                     this text

      Exit code: 0 every record redriven; 1 a record failed, or offsets are gone from Kafka; 2 a bad
      command line.
      """;

  /** Parses {@code args}; empty for {@code --help}. */
  public static Optional<RedriveOptions> parse(Function<String, String> env, String... args) {
    CommandLine flags =
        CommandLine.parse(
            args,
            Set.of("--msk-iam", "--path-style", "--keep-messages", "--dry-run", "--help"),
            Set.of(
                "--sqs-queue-url",
                "--s3",
                "--record",
                "--region",
                "--endpoint-url",
                "--max-records",
                "--bootstrap-servers",
                "--consumer-property",
                "--consumer-config",
                "--archiver-env",
                "--archiver-function",
                "--timeout-seconds"));
    if (flags.has("--help")) {
      return Optional.empty();
    }
    List<Source> sources = new java.util.ArrayList<>();
    flags.one("--sqs-queue-url").ifPresent(u -> sources.add(new Source.Sqs(u)));
    flags.one("--s3").ifPresent(u -> sources.add(s3(u)));
    if (!flags.all("--record").isEmpty()) {
      sources.add(new Source.Files(flags.all("--record").stream().map(Path::of).toList()));
    }
    if (sources.size() != 1) {
      throw new UsageException(
          "give exactly one of --sqs-queue-url, --s3 and --record (where the mapping's on-failure"
              + " records are)");
    }
    if (flags.has("--archiver-env") && flags.has("--archiver-function")) {
      throw new UsageException(
          "--archiver-env configures the archiver built here; --archiver-function invokes the"
              + " deployed one with its own: give one of them");
    }
    return Optional.of(
        new RedriveOptions(
            sources.get(0),
            flags.one("--bootstrap-servers"),
            Map.copyOf(flags.clientProperties("--consumer-config", "--consumer-property")),
            flags.has("--msk-iam"),
            flags.one("--archiver-env").map(Path::of),
            flags.one("--archiver-function"),
            flags.one("--region"),
            flags.one("--endpoint-url"),
            flags.has("--path-style"),
            flags
                .one("--max-records")
                .map(v -> (int) CommandLine.number("--max-records", v, 1, 1_000_000))
                .orElse(1000),
            flags.has("--keep-messages"),
            flags.has("--dry-run"),
            Duration.ofSeconds(
                flags
                    .one("--timeout-seconds")
                    .map(v -> CommandLine.number("--timeout-seconds", v, 1, 3600))
                    .orElse(120L))));
  }

  private static Source s3(String uri) {
    URI u;
    try {
      u = URI.create(uri);
    } catch (IllegalArgumentException e) {
      u = null;
    }
    if (u == null || !"s3".equals(u.getScheme()) || u.getHost() == null) {
      throw new UsageException("--s3 '" + uri + "' is not s3://BUCKET/PREFIX");
    }
    String prefix = u.getPath() == null ? "" : u.getPath().replaceFirst("^/", "");
    return new Source.S3(u.getHost(), prefix.isEmpty() ? "aws/lambda/" : prefix);
  }

  /** The same options without {@code --endpoint-url} (for a client of another service). */
  RedriveOptions withoutEndpoint() {
    return new RedriveOptions(
        source,
        bootstrapServers,
        consumerProperties,
        mskIam,
        archiverEnv,
        archiverFunction,
        region,
        Optional.empty(),
        pathStyle,
        maxRecords,
        keepMessages,
        dryRun,
        timeout);
  }

  /**
   * The Kafka consumer's settings, given the bootstrap servers a record names: the command line's
   * servers win, then the record's; MSK IAM and the user's properties on top.
   */
  public Map<String, Object> kafkaClients(Optional<String> fromRecord) {
    Map<String, Object> p = new LinkedHashMap<>();
    String servers =
        bootstrapServers
            .or(() -> fromRecord)
            .orElseThrow(
                () ->
                    new RedriveException(
                        "the record names no bootstrapServers: pass --bootstrap-servers"));
    p.put("bootstrap.servers", servers);
    if (mskIam) {
      p.putAll(CommandLine.mskIam());
    }
    p.putAll(consumerProperties);
    return p;
  }

  /**
   * The archiver's environment: {@code --archiver-env}'s variables over {@code env}. The file is
   * the function's {@code Environment.Variables}, a JSON object of strings.
   */
  public Function<String, String> archiverEnvironment(Function<String, String> env) {
    if (archiverEnv.isEmpty()) {
      return env;
    }
    Map<String, String> file = new HashMap<>();
    try {
      JsonNode root = new ObjectMapper().readTree(archiverEnv.get().toFile());
      JsonNode variables = root.has("Variables") ? root.get("Variables") : root;
      if (!variables.isObject()) {
        throw new UsageException(
            "--archiver-env " + archiverEnv.get() + " is not a JSON object of variables");
      }
      variables.fields().forEachRemaining(e -> file.put(e.getKey(), e.getValue().asText()));
    } catch (IOException e) {
      throw new UsageException(
          "--archiver-env " + archiverEnv.get() + " could not be read as JSON: " + e.getMessage());
    }
    return name -> file.containsKey(name) ? file.get(name) : env.apply(name);
  }
}
