package io.kafkas3archiver.restore;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kafkas3archiver.cli.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The restore Lambda behind the Step Functions Distributed Map (docs/restore.md, "Step Functions"):
 * {@code io.kafkas3archiver.restore.RestoreLambda::handleRequest} in the restore jar.
 *
 * <ul>
 *   <li>{@code {"action":"plan","restore":{...},"manifestPrefix":"..."}} reads the archive once,
 *       writes each partition's ordered object list and a manifest (one item per source partition)
 *       to S3, and returns where the manifest is.
 *   <li>{@code {"action":"partition", ...one manifest item...}} restores that partition after its
 *       checkpoint until the archive ends or the invocation's time nearly runs out, commits, and
 *       returns the item with {@code "done"}; the state machine invokes it again until done.
 *   <li>{@code {"action":"redrive"}} archives the batches the archiver's event source mapping
 *       skipped (docs/restore.md#redrive): it reads the on-failure records ({@code REDRIVE_SOURCE},
 *       the deployment's queue or bucket), consumes the skipped offsets from Kafka, which this
 *       function reaches, and invokes the archiver function ({@code REDRIVE_ARCHIVER_FUNCTION})
 *       with them, so they are archived with its own configuration and grants, each offset once.
 *   <li>{@code {"action":"audit","audit":{...}}} proves the archive complete against the cluster
 *       (docs/audit.md) and publishes the gap, duplicate and lag figures as EMF metrics.
 * </ul>
 *
 * <p>The work unit is one partition because order within a partition is the only order Kafka has:
 * one writer per partition, in offset order, and partitions in parallel. The {@code restore} object
 * holds the restore command's flags in camel case (docs/restore.md), checked by the same parser. It
 * comes with each request, not from the environment, because every execution restores its own
 * range; the deployment fixes the bucket and the target cluster in the state machine's definition.
 */
public final class RestoreLambda implements RequestStreamHandler {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The restore flags a request may set; the rest make no sense for a looped, per-partition run.
   */
  static final Set<String> RESTORE_KEYS =
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
          "targetTopic",
          "producerProperties",
          "mskIam",
          "rekey",
          "includeErrors",
          "maxMbPerSec",
          "checkpointTopic",
          "transactionalId",
          "transactionRecords",
          "region",
          "endpointUrl",
          "pathStyle");

  /** Fields the state machine passes back in on the next loop turn; read or ignored. */
  private static final Set<String> STATUS_KEYS =
      Set.of("done", "records", "bytes", "restoredUpTo", "invocations");

  private final Function<String, String> env;
  private final Duration margin;
  private final PrintStream log;

  /** Used by the Lambda runtime. */
  public RestoreLambda() {
    this(System::getenv, Duration.ofSeconds(30), System.out);
  }

  /**
   * {@code margin} is the time left when a partition call stops starting new objects: enough to
   * finish one object (at most one 6 MB batch) and commit.
   */
  public RestoreLambda(Function<String, String> env, Duration margin, PrintStream log) {
    this.env = env;
    this.margin = margin;
    this.log = log;
  }

  /** A request that cannot run: the message names the field and what is legal. */
  public static final class BadRequestException extends IllegalArgumentException {
    public BadRequestException(String message) {
      super(message);
    }
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    JsonNode request = JSON.readTree(input);
    JsonNode answer;
    try {
      answer = handle(request, context.getRemainingTimeInMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted; the next invocation resumes from the checkpoint", e);
    }
    JSON.writeValue(output, answer);
  }

  /** Handles one request with {@code remainingMillis} of the invocation's time left. */
  public JsonNode handle(JsonNode request, long remainingMillis)
      throws IOException, InterruptedException {
    if (request == null || !request.isObject()) {
      throw new BadRequestException("the request must be a JSON object with an \"action\"");
    }
    String action = request.path("action").asText("");
    return switch (action) {
      case "plan" -> plan((ObjectNode) request);
      case "redrive" -> redrive((ObjectNode) request, remainingMillis);
      case "partition" -> partition((ObjectNode) request, remainingMillis);
      case "audit" -> audit((ObjectNode) request);
      default ->
          throw new BadRequestException(
              "action '"
                  + action
                  + "' is not known; legal values: plan, partition, redrive, audit");
    };
  }

  private JsonNode plan(ObjectNode request) throws IOException, InterruptedException {
    allowOnly(request, Set.of("action", "restore", "manifestPrefix"));
    JsonNode restore = restoreObject(request);
    String prefix = request.path("manifestPrefix").asText("");
    if (prefix.isEmpty() || prefix.startsWith("/") || !prefix.endsWith("/")) {
      throw new BadRequestException(
          "manifestPrefix '"
              + prefix
              + "' must be a key prefix ending in '/' (e.g. restore-manifests/<execution>/),"
              + " outside the archive's <keyPrefix>/<topic>/");
    }
    RestoreOptions options = options(restore, List.of());
    if (prefix.startsWith(options.dataPrefix()) || prefix.startsWith(options.errorPrefix())) {
      throw new BadRequestException(
          "manifestPrefix " + prefix + " is inside the archive; a later restore would read it");
    }
    try (S3Client s3 = RestoreCommand.s3(options)) {
      ArchiveReader reader = new ArchiveReader(s3, options.bucket(), options.topic());
      Restorer.Planned planned = new Restorer(options, reader, log).plan();
      Map<Integer, List<ArchivePlan.Entry>> byPartition = new TreeMap<>();
      for (ArchivePlan.Entry e : planned.plan().entries()) {
        for (int p : e.spans().keySet()) {
          byPartition.computeIfAbsent(p, k -> new ArrayList<>()).add(e);
        }
      }
      ArrayNode items = JSON.createArrayNode();
      for (var partition : byPartition.entrySet()) {
        int p = partition.getKey();
        String objectsKey = prefix + "partitions/" + p + ".json";
        put(s3, options.bucket(), objectsKey, objectList(p, partition.getValue()));
        ObjectNode item = items.addObject();
        item.put("action", "partition");
        item.set("restore", restore);
        item.put("partition", p);
        item.put("objectsKey", objectsKey);
      }
      String manifestKey = prefix + "items.json";
      put(s3, options.bucket(), manifestKey, items);
      ObjectNode answer = JSON.createObjectNode();
      answer.put("manifestBucket", options.bucket());
      answer.put("manifestKey", manifestKey);
      answer.put("partitions", byPartition.size());
      answer.put("objects", planned.objects());
      answer.put("records", planned.records());
      answer.put("bytes", planned.bytes());
      answer.put("errorRows", planned.errorRows());
      return answer;
    }
  }

  private JsonNode partition(ObjectNode request, long remainingMillis)
      throws IOException, InterruptedException {
    Set<String> allowed = new java.util.HashSet<>(STATUS_KEYS);
    allowed.addAll(Set.of("action", "restore", "partition", "objectsKey"));
    allowOnly(request, allowed);
    long deadline = System.nanoTime() + (remainingMillis - margin.toMillis()) * 1_000_000;
    JsonNode restore = restoreObject(request);
    if (!request.path("partition").canConvertToInt() || !request.path("objectsKey").isTextual()) {
      throw new BadRequestException(
          "a partition request needs \"partition\" (a number) and \"objectsKey\" (from the plan's"
              + " manifest)");
    }
    int p = request.path("partition").intValue();
    RestoreOptions plain = options(restore, List.of());
    List<String> pin = new ArrayList<>();
    if (p != ArchivedRecord.NO_PARTITION) {
      pin.addAll(List.of("--partitions", Integer.toString(p)));
    }
    // One transactional id per partition: a second writer of the same partition (a retried
    // invocation whose first attempt still runs) fences the first, and partitions never fence
    // each other.
    pin.addAll(List.of("--transactional-id", plain.transactionalId() + ".p" + p));
    RestoreOptions options = options(restore, pin);
    try (S3Client s3 = RestoreCommand.s3(options)) {
      ArchivePlan plan =
          readObjectList(
              s3.getObjectAsBytes(
                      b -> b.bucket(options.bucket()).key(request.get("objectsKey").asText()))
                  .asByteArrayUnsafe(),
              p);
      ArchiveReader reader = new ArchiveReader(s3, options.bucket(), options.topic());
      Restorer.Slice slice =
          new Restorer(options, reader, log).restoreSlice(plan, () -> System.nanoTime() > deadline);
      ObjectNode answer = request.deepCopy();
      answer.put("done", slice.complete());
      answer.put("records", slice.records());
      answer.put("bytes", slice.bytes());
      answer.put("invocations", request.path("invocations").asLong(0) + 1);
      Long upTo = slice.restoredUpTo().get(p);
      if (upTo != null) {
        answer.put("restoredUpTo", upTo);
      }
      log.printf(
          Locale.ROOT,
          "partition %d: %,d records this call, %s%n",
          p,
          slice.records(),
          slice.complete() ? "done" : "more to do (the state machine calls again)");
      return answer;
    }
  }

  /** docs/audit.md: the audit, its JSON report as the answer and its figures as EMF metrics. */
  private JsonNode audit(ObjectNode request) {
    try {
      return io.kafkas3archiver.audit.AuditAction.handle(request, env, log);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage());
    }
  }

  /** The redrive request's own keys; the rest comes from the deployment's environment. */
  static final Set<String> REDRIVE_KEYS =
      Set.of(
          "source", "bootstrapServers", "dryRun", "keepMessages", "maxRecords", "timeoutSeconds");

  private JsonNode redrive(ObjectNode request, long remainingMillis) {
    allowOnly(request, Set.of("action", "redrive"));
    JsonNode redrive = request.path("redrive");
    if (!redrive.isMissingNode() && !redrive.isObject()) {
      throw new BadRequestException("\"redrive\" must be an object, e.g. {\"dryRun\":true}");
    }
    allowOnly(redrive.isObject() ? redrive : JSON.createObjectNode(), REDRIVE_KEYS);
    String function = env.apply("REDRIVE_ARCHIVER_FUNCTION");
    if (function == null || function.isBlank()) {
      throw new BadRequestException(
          "REDRIVE_ARCHIVER_FUNCTION is not set: the redrive action hands batches to the archiver"
              + " function; deploy with restore=true, which sets it");
    }
    String source = redrive.path("source").asText(env.apply("REDRIVE_SOURCE"));
    if (source == null || source.isBlank()) {
      throw new BadRequestException(
          "no on-failure destination: set redrive.source (an SQS queue URL or s3://bucket/prefix),"
              + " or deploy with an on-failure destination (onFailure=sqs or s3), which sets"
              + " REDRIVE_SOURCE");
    }
    List<String> args = new ArrayList<>();
    args.addAll(List.of(source.startsWith("s3://") ? "--s3" : "--sqs-queue-url", source));
    args.addAll(List.of("--archiver-function", function));
    switch (String.valueOf(env.apply("REDRIVE_KAFKA_AUTH"))) {
      case "msk-iam" -> args.add("--msk-iam");
      case "tls" -> args.addAll(List.of("--consumer-property", "security.protocol=SSL"));
      default -> {
        // plaintext
      }
    }
    if (redrive.hasNonNull("bootstrapServers")) {
      args.addAll(List.of("--bootstrap-servers", redrive.get("bootstrapServers").asText()));
    }
    if (redrive.path("dryRun").asBoolean(false)) {
      args.add("--dry-run");
    }
    if (redrive.path("keepMessages").asBoolean(false)) {
      args.add("--keep-messages");
    }
    int maxRecords = redrive.path("maxRecords").asInt(100);
    args.addAll(List.of("--max-records", Integer.toString(maxRecords)));
    // Each record's Kafka reads and invocations must end before this invocation does.
    long timeout =
        Math.max(1, Math.min(redrive.path("timeoutSeconds").asLong(120), remainingMillis / 4000));
    args.addAll(List.of("--timeout-seconds", Long.toString(timeout)));
    io.kafkas3archiver.redrive.RedriveOptions options;
    try {
      options =
          io.kafkas3archiver.redrive.RedriveOptions.parse(env, args.toArray(String[]::new))
              .orElseThrow();
    } catch (UsageException e) {
      throw new BadRequestException("redrive settings: " + e.getMessage());
    }
    io.kafkas3archiver.redrive.Redriver.Report report =
        io.kafkas3archiver.redrive.RedriveCommand.redrive(options, env, env, log);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("records", report.records());
    answer.put("redriven", report.redriven());
    answer.put("failed", report.failed());
    answer.put("recordsArchived", report.recordsArchived());
    answer.put("offsetsMissing", report.offsetsMissing());
    answer.put("more", report.records() >= maxRecords);
    if (!report.ok()) {
      throw new io.kafkas3archiver.redrive.RedriveException(
          "redrive incomplete: " + answer + " (the log names each record and why)");
    }
    return answer;
  }

  // ---- the per-partition object list ----

  private static JsonNode objectList(int partition, List<ArchivePlan.Entry> entries) {
    ObjectNode list = JSON.createObjectNode();
    list.put("partition", partition);
    ArrayNode objects = list.putArray("objects");
    for (ArchivePlan.Entry e : entries) {
      ArchivePlan.Span span = e.spans().get(partition);
      ObjectNode o = objects.addObject();
      o.put("key", e.object().key());
      o.put("size", e.object().size());
      o.put("kind", e.object().kind().name());
      o.put("ordinal", e.ordinal());
      o.put("metadata", e.metadata());
      o.put("minOffset", span.minOffset());
      o.put("maxOffset", span.maxOffset());
      o.put("records", span.records());
      o.put("bytes", span.bytes());
    }
    return list;
  }

  /** The plan of one partition, back from its object list. */
  static ArchivePlan readObjectList(byte[] json, int partition) throws IOException {
    JsonNode list = JSON.readTree(json);
    if (list.path("partition").asInt(Integer.MIN_VALUE) != partition) {
      throw new BadRequestException(
          "the object list holds partition "
              + list.path("partition")
              + ", not "
              + partition
              + "; pass the objectsKey of the same manifest item");
    }
    List<ArchivePlan.Entry> entries = new ArrayList<>();
    for (JsonNode o : list.path("objects")) {
      String key = o.path("key").asText();
      ArchiveObject object =
          ArchiveObject.of(
                  key, o.path("size").asLong(), ArchiveObject.Kind.valueOf(o.path("kind").asText()))
              .orElseThrow(() -> new BadRequestException("not an archive object: " + key));
      entries.add(
          new ArchivePlan.Entry(
              object,
              o.path("ordinal").asInt(),
              Map.of(
                  partition,
                  new ArchivePlan.Span(
                      o.path("minOffset").asLong(),
                      o.path("maxOffset").asLong(),
                      o.path("records").asInt(),
                      o.path("bytes").asLong())),
              o.path("metadata").asBoolean()));
    }
    return new ArchivePlan(entries);
  }

  // ---- the restore object: the command's flags ----

  private static JsonNode restoreObject(ObjectNode request) {
    JsonNode restore = request.get("restore");
    if (restore == null || !restore.isObject()) {
      throw new BadRequestException(
          "\"restore\" must be an object of restore settings, e.g. {\"topic\":\"t\",...}; see"
              + " docs/restore.md");
    }
    return restore;
  }

  private RestoreOptions options(JsonNode restore, List<String> extra) {
    List<String> args = new ArrayList<>();
    restore
        .fields()
        .forEachRemaining(
            f -> {
              String name = f.getKey();
              JsonNode v = f.getValue();
              if (!RESTORE_KEYS.contains(name)) {
                throw new BadRequestException(
                    "restore."
                        + name
                        + " is not a setting of the restore Lambda; legal: "
                        + new java.util.TreeSet<>(RESTORE_KEYS));
              }
              if (name.equals("partitions")
                  && !extra.isEmpty()
                  && extra.get(0).equals("--partitions")) {
                return;
              }
              String flag = "--" + name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
              if (v.isBoolean()) {
                if (v.booleanValue()) {
                  args.add(flag);
                }
              } else if (name.equals("producerProperties") && v.isObject()) {
                v.fields()
                    .forEachRemaining(
                        p -> {
                          String k = p.getKey().toLowerCase(Locale.ROOT);
                          if (k.contains("password") || k.contains("jaas")) {
                            // An execution input is kept in the execution history.
                            throw new BadRequestException(
                                "restore.producerProperties."
                                    + p.getKey()
                                    + " would put a secret into the execution history; use"
                                    + " mskIam, or TLS settings that name files, instead");
                          }
                          args.add(flag.replace("producer-properties", "producer-property"));
                          args.add(p.getKey() + "=" + p.getValue().asText());
                        });
              } else if (name.equals("partitions") && v.isArray()) {
                List<String> ps = new ArrayList<>();
                v.forEach(x -> ps.add(x.asText()));
                args.add(flag);
                args.add(String.join(",", ps));
              } else if (v.isValueNode() && !v.isNull()) {
                args.add(flag);
                args.add(v.asText());
              } else {
                throw new BadRequestException(
                    "restore." + name + " must be a string, number or boolean, not " + v);
              }
            });
    args.addAll(extra);
    try {
      return RestoreOptions.parse(env, args.toArray(String[]::new))
          .orElseThrow(() -> new BadRequestException("--help is not a request"));
    } catch (UsageException e) {
      throw new BadRequestException("restore settings: " + e.getMessage());
    }
  }

  private static void allowOnly(JsonNode request, Set<String> allowed) {
    request
        .fieldNames()
        .forEachRemaining(
            n -> {
              if (!allowed.contains(n)) {
                throw new BadRequestException(
                    "field '"
                        + n
                        + "' is not known here; legal: "
                        + new java.util.TreeSet<>(allowed));
              }
            });
  }

  private static void put(S3Client s3, String bucket, String key, JsonNode body)
      throws IOException {
    s3.putObject(
        b -> b.bucket(bucket).key(key).contentType("application/json"),
        RequestBody.fromBytes(JSON.writeValueAsBytes(body)));
  }
}
