package io.kafkas3archiver.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.cli.UsageException;
import io.kafkas3archiver.report.EmfMetrics;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code {"action":"audit","audit":{...}}} on the restore function (which reaches the cluster): the
 * audit command's flags in camel case, with defaults from the deployment ({@code AUDIT_BUCKET},
 * {@code AUDIT_TOPIC}, {@code AUDIT_KEY_PREFIX}, {@code AUDIT_BOOTSTRAP_SERVERS}, {@code
 * AUDIT_GROUP}, {@code AUDIT_KAFKA_AUTH}, {@code TITLE}). Answers the JSON report and logs one EMF
 * line with {@code ArchiveGapOffsets}, {@code ArchiveDuplicateOffsets} and {@code
 * ArchiveLagOffsets}, which the stacks' alarms watch. An audit that finds problems still answers
 * (the alarm reports them); one that cannot run fails the invocation.
 */
public final class AuditAction {
  private static final ObjectMapper JSON = new ObjectMapper();

  static final Set<String> KEYS =
      Set.of(
          "bucket",
          "topic",
          "keyPrefix",
          "listPrefix",
          "partitions",
          "fromOffset",
          "toOffset",
          "from",
          "to",
          "bootstrapServers",
          "group",
          "partitionCount",
          "full",
          "noState",
          "verifyChecksums",
          "mskIam",
          "region",
          "endpointUrl",
          "pathStyle");

  private AuditAction() {}

  public static JsonNode handle(ObjectNode request, Function<String, String> env, PrintStream log) {
    request
        .fieldNames()
        .forEachRemaining(
            n -> {
              if (!n.equals("action") && !n.equals("audit")) {
                throw new IllegalArgumentException(
                    "field '" + n + "' is not known here; legal: action, audit");
              }
            });
    JsonNode audit = request.path("audit");
    if (!audit.isMissingNode() && !audit.isObject()) {
      throw new IllegalArgumentException("\"audit\" must be an object, e.g. {\"topic\":\"t\"}");
    }
    AuditOptions options = options(audit.isObject() ? audit : JSON.createObjectNode(), env);
    try (S3Client s3 = AuditCommand.s3(options)) {
      AuditReport report = new Auditor(options, s3).run();
      log.println(emf(report, env.apply("TITLE"), System.currentTimeMillis()));
      return report.toJson();
    }
  }

  static AuditOptions options(JsonNode audit, Function<String, String> env) {
    List<String> args = new ArrayList<>();
    defaults(audit, env, args);
    audit
        .fields()
        .forEachRemaining(
            f -> {
              String name = f.getKey();
              JsonNode v = f.getValue();
              if (!KEYS.contains(name)) {
                throw new IllegalArgumentException(
                    "audit." + name + " is not an audit setting; legal: " + new TreeSet<>(KEYS));
              }
              String flag = "--" + name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
              if (v.isBoolean()) {
                if (v.booleanValue()) {
                  args.add(flag);
                }
              } else if (name.equals("partitions") && v.isArray()) {
                List<String> ps = new ArrayList<>();
                v.forEach(x -> ps.add(x.asText()));
                args.add(flag);
                args.add(String.join(",", ps));
              } else if (v.isValueNode() && !v.isNull()) {
                args.add(flag);
                args.add(v.asText());
              } else {
                throw new IllegalArgumentException(
                    "audit." + name + " must be a string, number or boolean, not " + v);
              }
            });
    try {
      return AuditOptions.parse(env, args.toArray(String[]::new))
          .orElseThrow(() -> new IllegalArgumentException("--help is not a request"));
    } catch (UsageException e) {
      throw new IllegalArgumentException("audit settings: " + e.getMessage());
    }
  }

  /** The deployment's settings, for what the request does not say. */
  private static void defaults(JsonNode audit, Function<String, String> env, List<String> args) {
    Map<String, String> fromEnv =
        Map.of(
            "bucket", "AUDIT_BUCKET",
            "topic", "AUDIT_TOPIC",
            "keyPrefix", "AUDIT_KEY_PREFIX",
            "bootstrapServers", "AUDIT_BOOTSTRAP_SERVERS",
            "group", "AUDIT_GROUP");
    new TreeSet<>(fromEnv.keySet())
        .forEach(
            name -> {
              String value = env.apply(fromEnv.get(name));
              if (!audit.has(name) && value != null && !value.isBlank()) {
                args.add("--" + name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT));
                args.add(value);
              }
            });
    switch (String.valueOf(env.apply("AUDIT_KAFKA_AUTH"))) {
      case "msk-iam" -> {
        if (!audit.has("mskIam")) {
          args.add("--msk-iam");
        }
      }
      case "tls" -> args.addAll(List.of("--consumer-property", "security.protocol=SSL"));
      default -> {
        // plaintext
      }
    }
  }

  /** One EMF line: the three audit figures, dimensions [Title, Topic] and [Topic]. */
  static String emf(AuditReport report, String title, long nowMillis) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode aws = root.putObject("_aws");
    aws.put("Timestamp", nowMillis);
    ObjectNode directive = aws.putArray("CloudWatchMetrics").addObject();
    directive.put("Namespace", EmfMetrics.NAMESPACE);
    ArrayNode dims = directive.putArray("Dimensions");
    dims.addArray().add("Title").add("Topic");
    dims.addArray().add("Topic");
    ArrayNode metrics = directive.putArray("Metrics");
    for (String m : List.of("ArchiveGapOffsets", "ArchiveDuplicateOffsets", "ArchiveLagOffsets")) {
      metrics.addObject().put("Name", m).put("Unit", "Count");
    }
    root.put("Title", title == null || title.isBlank() ? report.topic : title);
    root.put("Topic", report.topic);
    root.put("ArchiveGapOffsets", report.gapOffsets());
    root.put("ArchiveDuplicateOffsets", report.duplicateOffsets());
    root.put("ArchiveLagOffsets", report.lagOffsets());
    return root.toString();
  }
}
