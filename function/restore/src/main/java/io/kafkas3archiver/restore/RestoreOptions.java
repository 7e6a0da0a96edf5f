package io.kafkas3archiver.restore;

import io.kafkas3archiver.cli.CommandLine;
import io.kafkas3archiver.cli.UsageException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The restore command's settings, parsed and checked once. Every error names the flag, the bad
 * value and what is legal.
 */
public record RestoreOptions(
    String bucket,
    String topic,
    String keyPrefix,
    Optional<String> listPrefix,
    Set<Integer> partitions,
    long fromOffset,
    long toOffset,
    Optional<Instant> from,
    Optional<Instant> to,
    Optional<String> bootstrapServers,
    String targetTopic,
    Map<String, String> producerProperties,
    boolean mskIam,
    boolean rekey,
    boolean includeErrors,
    boolean dryRun,
    boolean verify,
    boolean verifyOnly,
    boolean restart,
    double maxMbPerSec,
    String checkpointTopic,
    String transactionalId,
    int transactionRecords,
    Optional<String> region,
    Optional<String> endpointUrl,
    boolean pathStyle,
    long progressIntervalMs) {

  public static final String USAGE =
      """
      Usage: restore --bucket B --topic T [range] [target] [options]
             (java -jar kafka-s3-archiver-restore.jar [restore] ...; the same jar's redrive command
             archives the batches the event source mapping skipped: redrive --help)

      Replays archived records (written with INCLUDE_KAFKA_METADATA=true) back into Kafka: key and
      value bytes, headers, create-time timestamps, and per-partition order. See docs/restore.md.

      Source
        --bucket B                 the archive bucket (required)
        --topic T                  the archived topic (required)
        --key-prefix P             KEY_PREFIX of the archive (default condense): data is listed
                                   under P/T/, error objects under P/_errors/T/
        --list-prefix X            list data objects under X instead (a custom KEY_TEMPLATE)
        --region R                 the bucket's region (default: the SDK's region chain)
        --endpoint-url U           an S3-compatible endpoint (MinIO, S3Proxy); also AWS_ENDPOINT_URL_S3
        --path-style               path-style S3 requests (most S3-compatible servers need this)
      Range (all optional, combined with AND)
        --partitions 0,2,5         only these source partitions
        --from-offset N            first source offset to restore, per partition (inclusive)
        --to-offset N              last source offset to restore, per partition (inclusive)
        --from 2026-03-01T00:00:00Z  first record create time (inclusive, ISO-8601 instant)
        --to 2026-04-01T00:00:00Z    end of record create time (exclusive)
      Target
        --bootstrap-servers S      target cluster (required unless --dry-run)
        --target-topic T2          target topic (default: the archived topic); it must exist
        --producer-property k=v    any Kafka producer/admin/consumer setting; repeatable
                                   (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*)
        --producer-config FILE     the same settings from a properties file
        --msk-iam                  MSK IAM auth (SASL_SSL + AWS_MSK_IAM, credentials from the SDK chain)
      Behaviour
        --rekey                    route by key hash (the target's partitioner) instead of keeping
                                   the source partition number
        --include-errors           also restore the records of error objects, with their raw bytes
        --dry-run                  print objects, records, bytes and time span, restore nothing
        --verify                   after the restore, compare count and checksum per partition
        --verify-only              only compare archive and target, restore nothing
        --restart                  ignore the checkpoint and restore the whole range again
        --max-mb-per-sec X         rate limit on key+value+header bytes (default: unlimited)
        --checkpoint-topic C       where progress is stored (default: <target-topic>.restore-checkpoint)
        --transactional-id ID      (default: kafka-s3-archiver-restore.<target-topic>)
        --transaction-records N    records per transaction (default 5000)
        --progress-seconds N       progress line interval (default 5)
        --help                     this text
      """;

  /** Parses {@code args}; {@link Optional#empty()} for {@code --help}. */
  public static Optional<RestoreOptions> parse(String... args) {
    return parse(System::getenv, args);
  }

  /**
   * Parses {@code args}, reading the environment only through {@code env} (the same seam the
   * handler uses, so tests can pass their own).
   */
  public static Optional<RestoreOptions> parse(Function<String, String> env, String... args) {
    CommandLine flags =
        CommandLine.parse(
            args,
            Set.of(
                "--msk-iam",
                "--rekey",
                "--include-errors",
                "--dry-run",
                "--verify",
                "--verify-only",
                "--restart",
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
                "--target-topic",
                "--producer-property",
                "--producer-config",
                "--max-mb-per-sec",
                "--checkpoint-topic",
                "--transactional-id",
                "--transaction-records",
                "--region",
                "--endpoint-url",
                "--progress-seconds"));
    if (flags.has("--help")) {
      return Optional.empty();
    }
    String bucket = flags.required("--bucket");
    String topic = flags.required("--topic");
    boolean dryRun = flags.has("--dry-run");
    Optional<String> bootstrap = flags.one("--bootstrap-servers");
    if (!dryRun && bootstrap.isEmpty()) {
      throw new UsageException(
          "--bootstrap-servers is required (the target cluster), unless --dry-run");
    }
    String targetTopic = flags.one("--target-topic").orElse(topic);
    Map<String, String> producer =
        flags.clientProperties("--producer-config", "--producer-property");
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
    long fromOffset =
        flags
            .one("--from-offset")
            .map(v -> CommandLine.number("--from-offset", v, 0, Long.MAX_VALUE))
            .orElse(0L);
    long toOffset =
        flags
            .one("--to-offset")
            .map(v -> CommandLine.number("--to-offset", v, 0, Long.MAX_VALUE))
            .orElse(Long.MAX_VALUE);
    if (toOffset < fromOffset) {
      throw new UsageException(
          "--to-offset " + toOffset + " is before --from-offset " + fromOffset);
    }
    Optional<Instant> from = flags.one("--from").map(v -> instant("--from", v));
    Optional<Instant> to = flags.one("--to").map(v -> instant("--to", v));
    if (from.isPresent() && to.isPresent() && !to.get().isAfter(from.get())) {
      throw new UsageException("--to " + to.get() + " must be after --from " + from.get());
    }
    double rate =
        flags
            .one("--max-mb-per-sec")
            .map(
                v -> {
                  try {
                    double d = Double.parseDouble(v);
                    if (d > 0 && Double.isFinite(d)) {
                      return d;
                    }
                  } catch (NumberFormatException e) {
                    // reported below
                  }
                  throw new UsageException(
                      "--max-mb-per-sec '" + v + "' is not a positive number (e.g. 20 or 0.5)");
                })
            .orElse(0.0);
    return Optional.of(
        new RestoreOptions(
            bucket,
            topic,
            flags.one("--key-prefix").orElse("condense"),
            flags.one("--list-prefix"),
            Set.copyOf(partitions),
            fromOffset,
            toOffset,
            from,
            to,
            bootstrap,
            targetTopic,
            Map.copyOf(producer),
            flags.has("--msk-iam"),
            flags.has("--rekey"),
            flags.has("--include-errors"),
            dryRun,
            flags.has("--verify") || flags.has("--verify-only"),
            flags.has("--verify-only"),
            flags.has("--restart"),
            rate,
            flags.one("--checkpoint-topic").orElse(targetTopic + ".restore-checkpoint"),
            flags.one("--transactional-id").orElse("kafka-s3-archiver-restore." + targetTopic),
            flags
                .one("--transaction-records")
                .map(v -> (int) CommandLine.number("--transaction-records", v, 1, 1_000_000))
                .orElse(5_000),
            flags.one("--region"),
            flags
                .one("--endpoint-url")
                .or(() -> Optional.ofNullable(env.apply("AWS_ENDPOINT_URL_S3"))),
            flags.has("--path-style"),
            flags
                    .one("--progress-seconds")
                    .map(v -> CommandLine.number("--progress-seconds", v, 1, 3600))
                    .orElse(5L)
                * 1000));
  }

  /** Where the data objects are listed. */
  public String dataPrefix() {
    return listPrefix.orElse(keyPrefix + "/" + topic + "/");
  }

  public String errorPrefix() {
    return keyPrefix + "/_errors/" + topic + "/";
  }

  /**
   * Whether a record lies in the requested range (partitions, offsets, create time, combined with
   * AND). Values-only rows carry no partition, offset or time, so no filter applies to them.
   */
  Predicate<ArchivedRecord> inRange() {
    return r -> {
      if (r.partition() == ArchivedRecord.NO_PARTITION) {
        return true;
      }
      if (!partitions.isEmpty() && !partitions.contains(r.partition())) {
        return false;
      }
      if (r.offset() < fromOffset || r.offset() > toOffset) {
        return false;
      }
      if (from.isPresent() && r.timestamp() < from.get().toEpochMilli()) {
        return false;
      }
      return to.isEmpty() || r.timestamp() < to.get().toEpochMilli();
    };
  }

  /** Whether any range flag narrows the restore. */
  boolean hasRange() {
    return !partitions.isEmpty()
        || from.isPresent()
        || to.isPresent()
        || fromOffset > 0
        || toOffset < Long.MAX_VALUE;
  }

  /** The range flags as given, for messages ("the whole archive" when none is). */
  String rangeText() {
    List<String> parts = new ArrayList<>();
    if (!partitions.isEmpty()) {
      parts.add(
          "--partitions "
              + String.join(",", new TreeSet<>(partitions).stream().map(String::valueOf).toList()));
    }
    if (fromOffset > 0) {
      parts.add("--from-offset " + fromOffset);
    }
    if (toOffset < Long.MAX_VALUE) {
      parts.add("--to-offset " + toOffset);
    }
    from.ifPresent(f -> parts.add("--from " + f));
    to.ifPresent(t -> parts.add("--to " + t));
    return parts.isEmpty() ? "the whole archive" : String.join(" ", parts);
  }

  private static Instant instant(String flag, String v) {
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      throw new UsageException(
          flag + " '" + v + "' is not an ISO-8601 instant such as 2026-03-01T00:00:00Z");
    }
  }
}
