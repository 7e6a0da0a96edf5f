package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code restore=true} option (docs/restore.md, "Step Functions"): a restore Lambda and a Step
 * Functions Distributed Map that replay this stack's archive into a Kafka topic, one partition per
 * child workflow. Read from the same context or file as {@link ArchiverSettings}, under keys of its
 * own, so the archiver's settings stay as they are.
 *
 * @param bootstrapServers the target cluster's bootstrap servers
 * @param targetTopic the topic restores write to; fixed at deploy time so the MSK IAM grants name
 *     it
 * @param auth how the restore Lambda authenticates: {@code msk-iam}, {@code tls} or {@code
 *     plaintext}
 * @param clusterArn the target MSK cluster (msk-iam), for grants scoped to its topics
 * @param subnetIds the subnets the restore Lambda runs in (where it reaches the brokers)
 * @param securityGroupIds the restore Lambda's security groups
 * @param maxConcurrency how many partitions restore at once (the Map's MaxConcurrency)
 * @param memorySize the restore Lambda's memory in MB
 * @param auditScheduleMinutes how often EventBridge runs {@code {"action":"audit"}} on the restore
 *     Lambda (docs/audit.md, "Scheduled audit and alarms"); 0, the default, schedules nothing
 * @param auditLagThreshold the audit's lag alarm: ArchiveLagOffsets above this many offsets
 */
public record RestoreSettings(
    String bootstrapServers,
    String targetTopic,
    String auth,
    Optional<String> clusterArn,
    List<String> subnetIds,
    List<String> securityGroupIds,
    int maxConcurrency,
    int memorySize,
    int auditScheduleMinutes,
    int auditLagThreshold) {

  /**
   * The audit's schedules in minutes; 0 is none. A list, as template.yaml's AllowedValues and its
   * AuditPeriodSeconds mapping (CloudFormation has no arithmetic): at least 5 (the alarms' period),
   * at most 720, so the heartbeat's two runs (2 x the rate) stay within CloudWatch's one-day
   * evaluation range.
   */
  static final List<Integer> AUDIT_MINUTES = List.of(0, 5, 10, 15, 30, 60, 120, 180, 360, 720);

  /** Every key of the option; {@code restore} turns it on. */
  static final Set<String> KEYS =
      Set.of(
          "restore",
          "restoreBootstrapServers",
          "restoreTargetTopic",
          "restoreAuth",
          "restoreClusterArn",
          "restoreSubnetIds",
          "restoreSecurityGroupIds",
          "restoreMaxConcurrency",
          "restoreMemorySize",
          "auditScheduleMinutes",
          "auditLagThreshold");

  /** The app's context key for the restore jar (tests pass any small file). */
  static final String JAR_PATH_KEY = "restoreJarPath";

  static final String DEFAULT_JAR = "../function/restore/target/kafka-s3-archiver-restore.jar";

  private static final Pattern TOPIC = ArchiverSettings.TOPIC;

  /**
   * The option from {@code values} (context and file merged), or empty when {@code restore} is not
   * true. A restore key without {@code restore=true} is an error, as a typo would otherwise be.
   */
  static Optional<RestoreSettings> from(Map<String, Object> values, ArchiverSettings archiver) {
    boolean on =
        switch (text(values, "restore").orElse("false").toLowerCase(Locale.ROOT)) {
          case "true" -> true;
          case "false" -> false;
          default ->
              throw new IllegalArgumentException(
                  "restore='"
                      + values.get("restore")
                      + "' is not valid; legal values: true, false");
        };
    if (!on) {
      KEYS.stream()
          .filter(k -> !k.equals("restore") && values.containsKey(k))
          .findFirst()
          .ifPresent(
              k -> {
                throw new IllegalArgumentException(
                    k + " is set but restore is not true: set restore=true to deploy the restore");
              });
      return Optional.empty();
    }
    if (!archiver.includeKafkaMetadata()) {
      // Without the metadata the archive holds values only: no key, headers, partition or offset
      // to restore, and the redrive could not tell which offsets it stored.
      throw new IllegalArgumentException(
          "restore=true needs includeKafkaMetadata=true: a values-only archive has no keys,"
              + " headers, partitions or offsets to restore (docs/restore.md); set"
              + " includeKafkaMetadata=true");
    }
    String bootstrap =
        text(values, "restoreBootstrapServers")
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "restoreBootstrapServers is required with restore=true: the target"
                            + " cluster's bootstrap servers (host:port,...)"));
    String topic = text(values, "restoreTargetTopic").orElse(archiver.inputTopic());
    if (!TOPIC.matcher(topic).matches()) {
      throw new IllegalArgumentException(
          "restoreTargetTopic='"
              + topic
              + "' is not a topic name the mapping accepts (2-249 of [A-Za-z0-9._-])");
    }
    String auth = text(values, "restoreAuth").orElse("msk-iam").toLowerCase(Locale.ROOT);
    if (!List.of("msk-iam", "tls", "plaintext").contains(auth)) {
      throw new IllegalArgumentException(
          "restoreAuth='" + auth + "' is not valid; legal values: msk-iam, tls, plaintext");
    }
    Optional<String> cluster =
        text(values, "restoreClusterArn")
            .or(() -> auth.equals("msk-iam") ? archiver.clusterArn() : Optional.empty());
    if (auth.equals("msk-iam") && cluster.isEmpty()) {
      throw new IllegalArgumentException(
          "restoreAuth=msk-iam needs restoreClusterArn (the target MSK cluster's ARN), so the"
              + " kafka-cluster grants name that cluster and topic only");
    }
    cluster.ifPresent(c -> KafkaSource.mskChildArn(c, "topic", topic));
    List<String> subnets = ids(values, "restoreSubnetIds");
    List<String> groups = ids(values, "restoreSecurityGroupIds");
    if (subnets.isEmpty() || groups.isEmpty()) {
      throw new IllegalArgumentException(
          "restoreSubnetIds and restoreSecurityGroupIds are required with restore=true: the"
              + " restore Lambda runs where it reaches the brokers (and S3, through a gateway"
              + " endpoint or NAT)");
    }
    return Optional.of(
        new RestoreSettings(
            bootstrap,
            topic,
            auth,
            cluster,
            subnets,
            groups,
            integer(values, "restoreMaxConcurrency", 10, 1, 10_000),
            integer(values, "restoreMemorySize", 1024, 512, 10_240),
            auditMinutes(values),
            integer(values, "auditLagThreshold", 100_000, 1, 2_000_000_000)));
  }

  /** One of AUDIT_MINUTES. */
  private static int auditMinutes(Map<String, Object> values) {
    int minutes = integer(values, "auditScheduleMinutes", 0, 0, 720);
    if (!AUDIT_MINUTES.contains(minutes)) {
      throw new IllegalArgumentException(
          "auditScheduleMinutes="
              + minutes
              + " is not valid; legal values: "
              + AUDIT_MINUTES
              + " (0: no schedule; each run lists the whole archive, docs/audit.md)");
    }
    return minutes;
  }

  boolean auditScheduled() {
    return auditScheduleMinutes > 0;
  }

  /** The checkpoint topic the restore writes beside the target. */
  String checkpointTopic() {
    return targetTopic + ".restore-checkpoint";
  }

  /** The per-partition transactional ids' common prefix (RestoreLambda adds .p&lt;n&gt;). */
  String transactionalIdPrefix() {
    return "kafka-s3-archiver-restore." + targetTopic + ".p";
  }

  private static Optional<String> text(Map<String, Object> values, String key) {
    Object v = values.get(key);
    if (v == null) {
      return Optional.empty();
    }
    String s =
        v instanceof List<?> l
            ? String.join(",", l.stream().map(String::valueOf).toList())
            : v.toString();
    return Optional.of(s.trim()).filter(x -> !x.isEmpty());
  }

  /** The same rule as the mapping's subnetIds and securityGroupIds (ArchiverSettings). */
  private static List<String> ids(Map<String, Object> values, String key) {
    List<String> out = new ArrayList<>();
    for (String id : text(values, key).orElse("").split(",")) {
      if (!id.isBlank()) {
        out.add(id.trim());
      }
    }
    return ArchiverSettings.vpcIds(key, out, key.endsWith("SubnetIds") ? "subnet" : "sg");
  }

  private static int integer(
      Map<String, Object> values, String key, int fallback, int min, int max) {
    Optional<String> v = text(values, key);
    if (v.isEmpty()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.get());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        key + "='" + v.get() + "' is not an integer in " + min + ".." + max);
  }
}
