package io.kafkas3archiver.audit;

import io.kafkas3archiver.cli.CommandLine;
import io.kafkas3archiver.cli.UsageException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/** The audit command's settings, parsed and checked once; every error names the flag. */
public record AuditOptions(
    String bucket,
    String topic,
    String keyPrefix,
    Optional<String> listPrefix,
    Set<Integer> partitions,
    long fromOffset,
    long toOffset,
    Optional<Instant> fromTime,
    Optional<Instant> toTime,
    Optional<String> bootstrapServers,
    Optional<String> group,
    Map<String, String> clientProperties,
    boolean mskIam,
    int partitionCount,
    boolean json,
    boolean full,
    boolean stateless,
    boolean verifyChecksums,
    Optional<String> region,
    Optional<String> endpointUrl,
    boolean pathStyle) {

  public static final String USAGE =
      """
      Usage: audit --bucket B --topic T [range] [cluster] [options]
             (java -jar kafka-s3-archiver-restore.jar audit ...)

      Proves an archive complete from the claims in each object's user metadata: per partition the
      covered offsets, the gaps with their reasons, offsets stored twice (must be 0) and the
      error-object offsets; given the cluster, also the log's start and end offsets, the group's
      committed offset, archived-through, lag and missing ranges. See docs/audit.md.
      Exit code: 0 clean, 1 an unexplained gap, a duplicate or an object without a claim, 2 a bad
      command line, 3 the audit could not run.

      Source
        --bucket B                 the archive bucket (required)
        --topic T                  the archived topic (required)
        --key-prefix P             KEY_PREFIX of the archive (default condense)
        --list-prefix X            list data objects under X instead of P/T/ (repeatable is not
                                   needed: point it at a parent to audit two prefixes at once)
        --region R, --endpoint-url U, --path-style   as for restore
      Range (optional)
        --partitions 0,2,5         only these partitions
        --from-offset N            first offset audited, per partition (inclusive)
        --to-offset N              last offset audited, per partition (inclusive)
        --from T                   first record time audited (ISO-8601 instant, e.g.
                                   2026-03-01T00:00:00Z): per partition the first offset whose
                                   timestamp is T or later; needs --bootstrap-servers
        --to T                     end of the record times audited (exclusive, as for restore):
                                   per partition the offset before the first one whose timestamp
                                   is T or later; needs --bootstrap-servers
      Cluster (optional)
        --bootstrap-servers S      the archived cluster: log offsets, lag, and a probe of each
                                   unclaimed range for records
        --group G                  the event source mapping's consumer group (committed offsets)
        --consumer-property k=v    any Kafka client setting; repeatable (security.protocol, ...)
        --consumer-config FILE     the same settings from a properties file
        --msk-iam                  MSK IAM auth (SASL_SSL + AWS_MSK_IAM)
        --partition-count N        without a cluster: how many partitions to match object names
                                   against (default 256)
      Output and state
        --json                     one JSON document instead of the table
        --full                     HEAD every object again (the state's claims are not trusted);
                                   the state is rewritten
        --no-state                 neither read nor write the audit state
        --verify-checksums         compare each object's bytes with the CRC32C its claim
                                   recorded (a HEAD where S3 keeps the checksum, else a GET)
        --help                     this text
      """;

  public static Optional<AuditOptions> parse(String... args) {
    return parse(System::getenv, args);
  }

  public static Optional<AuditOptions> parse(Function<String, String> env, String... args) {
    CommandLine flags =
        CommandLine.parse(
            args,
            Set.of(
                "--msk-iam",
                "--json",
                "--full",
                "--no-state",
                "--verify-checksums",
                "--path-style",
                "--help"),
            Set.of(
                "--bucket",
                "--topic",
                "--key-prefix",
                "--list-prefix",
                "--partitions",
                "--from-offset",
                "--to-offset",
                "--from",
                "--to",
                "--bootstrap-servers",
                "--group",
                "--consumer-property",
                "--consumer-config",
                "--partition-count",
                "--region",
                "--endpoint-url"));
    if (flags.has("--help")) {
      return Optional.empty();
    }
    Set<Integer> partitions = new TreeSet<>();
    flags
        .one("--partitions")
        .ifPresent(
            list -> {
              for (String p : list.split(",")) {
                partitions.add(
                    (int) CommandLine.number("--partitions", p.trim(), 0, Integer.MAX_VALUE));
              }
            });
    long from =
        flags
            .one("--from-offset")
            .map(v -> CommandLine.number("--from-offset", v, 0, Long.MAX_VALUE))
            .orElse(0L);
    long to =
        flags
            .one("--to-offset")
            .map(v -> CommandLine.number("--to-offset", v, 0, Long.MAX_VALUE))
            .orElse(Long.MAX_VALUE);
    if (to < from) {
      throw new UsageException("--to-offset " + to + " is before --from-offset " + from);
    }
    Optional<String> group = flags.one("--group");
    Optional<String> bootstrap = flags.one("--bootstrap-servers");
    Optional<Instant> fromTime = flags.one("--from").map(v -> instant("--from", v));
    Optional<Instant> toTime = flags.one("--to").map(v -> instant("--to", v));
    if (fromTime.isPresent() && flags.has("--from-offset")) {
      throw new UsageException(
          "--from and --from-offset both say where the audit starts: give one");
    }
    if (toTime.isPresent() && flags.has("--to-offset")) {
      throw new UsageException("--to and --to-offset both say where the audit ends: give one");
    }
    if (fromTime.isPresent() && toTime.isPresent() && !toTime.get().isAfter(fromTime.get())) {
      throw new UsageException("--to " + toTime.get() + " must be after --from " + fromTime.get());
    }
    if ((fromTime.isPresent() || toTime.isPresent()) && bootstrap.isEmpty()) {
      throw new UsageException(
          "--from/--to need --bootstrap-servers: the offsets of a time come from the cluster's"
              + " record timestamps, and the claims record offsets and folders, not record times;"
              + " pass the cluster, or give --from-offset/--to-offset");
    }
    if (group.isPresent() && bootstrap.isEmpty()) {
      throw new UsageException("--group needs --bootstrap-servers (the cluster that holds it)");
    }
    if (flags.has("--full") && flags.has("--no-state")) {
      throw new UsageException("--full rewrites the state and --no-state ignores it: give one");
    }
    return Optional.of(
        new AuditOptions(
            flags.required("--bucket"),
            flags.required("--topic"),
            flags.one("--key-prefix").orElse("condense"),
            flags.one("--list-prefix"),
            Set.copyOf(partitions),
            from,
            to,
            fromTime,
            toTime,
            bootstrap,
            group,
            Map.copyOf(flags.clientProperties("--consumer-config", "--consumer-property")),
            flags.has("--msk-iam"),
            flags
                .one("--partition-count")
                .map(v -> (int) CommandLine.number("--partition-count", v, 1, 100_000))
                .orElse(256),
            flags.has("--json"),
            flags.has("--full"),
            flags.has("--no-state"),
            flags.has("--verify-checksums"),
            flags.one("--region"),
            flags
                .one("--endpoint-url")
                .or(() -> Optional.ofNullable(env.apply("AWS_ENDPOINT_URL_S3"))),
            flags.has("--path-style")));
  }

  private static Instant instant(String flag, String value) {
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new UsageException(
          flag
              + " "
              + value
              + " is not an ISO-8601 instant; write it in UTC like 2026-03-01T00:00:00Z");
    }
  }

  /** Whether the range is given in record times (resolved per partition by the cluster). */
  boolean timeRange() {
    return fromTime.isPresent() || toTime.isPresent();
  }

  public String dataPrefix() {
    return listPrefix.orElse(keyPrefix + "/" + topic + "/");
  }

  public String errorPrefix() {
    return keyPrefix + "/_errors/" + topic + "/";
  }

  /** Where the incremental audit keeps its state: outside the data and error prefixes. */
  public String stateKey() {
    return keyPrefix
        + "/_audit/"
        + topic
        + "/"
        + (listPrefix.isPresent() ? Integer.toHexString(listPrefix.get().hashCode()) + "-" : "")
        + "state.json.gz";
  }

  /** The Kafka client settings: --msk-iam's, then the given ones, then the bootstrap servers. */
  Map<String, Object> kafkaProperties() {
    Map<String, Object> p = new LinkedHashMap<>();
    if (mskIam) {
      p.putAll(CommandLine.mskIam());
    }
    p.putAll(clientProperties);
    bootstrapServers.ifPresent(b -> p.put("bootstrap.servers", b));
    return p;
  }

  boolean inRange(int partition) {
    return partitions.isEmpty() || partitions.contains(partition);
  }
}
