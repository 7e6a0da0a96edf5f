package io.kafkas3archiver.local;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.esm.EsmEventWriter.Flavour;
import io.kafkas3archiver.esm.EventSourceEmulator;
import io.kafkas3archiver.esm.EventSourceEmulator.Invocation;
import io.kafkas3archiver.esm.EventSourceEmulator.Outcome;
import io.kafkas3archiver.esm.EventSourceEmulator.Settings;
import io.kafkas3archiver.esm.EventSourceEmulator.StartingPosition;
import io.kafkas3archiver.esm.SampleVehicleEvents;
import io.kafkas3archiver.esm.SampleVehicleEvents.Produced;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.ObjectBodies;
import io.kafkas3archiver.testing.RecordingStore;
import io.kafkas3archiver.testing.S3ProxyServer;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The local run's Kafka mode: the real handler fed by the event-source emulator from a real Kafka
 * cluster. {@code --kafka} starts an in-process broker on 127.0.0.1, produces sample vehicle events
 * and archives them; {@code --bootstrap-servers host:port --topic t} attaches to the user's cluster
 * instead and archives until the topic has been idle for {@code --idle-seconds}. S3 is as in {@link
 * LocalRun}: an embedded S3Proxy with data in {@code .local-s3/}, or {@code AWS_ENDPOINT_URL_S3}
 * with the usual AWS credentials.
 *
 * <p>Public for the iceberg artifact's local run, which archives into a table instead of objects
 * through a {@link Target} of its own.
 */
public final class KafkaLocalRun {
  private static final String USAGE =
      """
      usage: LocalRun --kafka [--records N] [--partitions N] [options]
             LocalRun --bootstrap-servers host:port --topic TOPIC [--idle-seconds N]
                      [--consumer-property key=value ...] [options]
      options: --topic T (vehicle-telemetry), --group-id G (kafka-s3-archiver-local),
               --batch-size N (100), --batching-window-ms N (500),
               --starting-position TRIM_HORIZON|LATEST (TRIM_HORIZON), --max-seconds N (300)""";

  private KafkaLocalRun() {}

  /** What the emulator's batches are archived into, and how the run shows the result. */
  public interface Target {
    /** The function instance the emulator invokes; {@code env} is the run's environment. */
    ArchiverHandler handler(
        ArchiverConfig config, AwsCredentialsProvider credentials, Map<String, String> env);

    /** Prints what the run wrote, after every record was committed. */
    void report(ArchiverConfig config, AwsCredentialsProvider credentials);
  }

  public static boolean wants(String[] args) {
    return List.of(args).contains("--kafka") || List.of(args).contains("--bootstrap-servers");
  }

  static void main(String[] args) throws Exception {
    run(args, System.getenv(), Path.of(".local-s3"));
  }

  /** Runs with this environment; an embedded S3 server keeps its data in {@code localS3Folder}. */
  static void run(String[] args, Map<String, String> environment, Path localS3Folder)
      throws Exception {
    run(args, environment, localS3Folder, new ObjectTarget());
  }

  /**
   * Runs into {@code target}. With {@code AWS_ENDPOINT_URL_S3} in {@code environment} no embedded
   * S3 server is started, so a caller can bring its own.
   */
  public static void run(
      String[] args, Map<String, String> environment, Path localS3Folder, Target target)
      throws Exception {
    Options o = Options.parse(args);
    Map<String, String> env = new HashMap<>(environment);
    env.putIfAbsent("BUCKET_NAME", "local-archive");
    env.putIfAbsent("AWS_REGION", S3ProxyServer.REGION);
    env.putIfAbsent("TITLE", "local-run");
    env.putIfAbsent("INCLUDE_KAFKA_METADATA", "true");

    EmbeddedKafka kafka = null;
    LocalS3 localS3 = null;
    try {
      localS3 = LocalS3.open(env, localS3Folder);
      ArchiverConfig config = ArchiverConfig.fromEnv(env);
      AwsCredentialsProvider credentials = localS3.credentials(config);

      String bootstrap = o.bootstrapServers;
      Map<TopicPartition, Long> expected = null;
      if (o.embedded) {
        long started = System.nanoTime();
        kafka = EmbeddedKafka.start();
        bootstrap = kafka.bootstrapServers();
        kafka.createTopic(o.topic, o.partitions);
        System.out.printf(
            Locale.ROOT,
            "embedded Kafka broker (KRaft, in-process) at %s, ready in %.1f s%n",
            bootstrap,
            (System.nanoTime() - started) / 1e9);
        List<Produced> produced = SampleVehicleEvents.produce(bootstrap, o.topic, 0, o.records);
        expected = new LinkedHashMap<>();
        for (Produced p : produced) {
          expected.merge(new TopicPartition(p.topic(), p.partition()), p.offset() + 1, Math::max);
        }
        System.out.println(
            "produced "
                + produced.size()
                + " vehicle events (JSON, keyed by vehicle id, headers trace-id and source) to "
                + o.topic
                + ": "
                + describe(expected));
      }

      ArchiverHandler handler = target.handler(config, credentials, env);
      Settings settings =
          Settings.of(bootstrap, o.topic, o.groupId)
              .withBatchSize(o.batchSize)
              .withBatchingWindow(Duration.ofMillis(o.windowMillis))
              .withStartingPosition(o.startingPosition)
              .withFlavour(Flavour.selfManaged())
              .withReportBatchItemFailures(config.reportBatchItemFailures());
      System.out.printf(
          Locale.ROOT,
          "event source emulator: group %s, %s, BatchSize %d, window %d ms, 6 MB cap%s%n",
          o.groupId,
          o.startingPosition,
          o.batchSize,
          o.windowMillis,
          settings.reportBatchItemFailures() ? ", ReportBatchItemFailures" : "");
      try (var emulator =
          new EventSourceEmulator(
                  settings, handler, () -> new LocalContext(60_000), o.consumerProperties)
              .onInvocation(KafkaLocalRun::print)) {
        Duration max = Duration.ofSeconds(o.maxSeconds);
        if (expected != null) {
          if (!emulator.runUntilCommitted(expected, max)) {
            throw new IllegalStateException(
                "not every record was archived within "
                    + max
                    + "; committed "
                    + emulator.committed());
          }
        } else {
          System.out.println(
              "polling "
                  + o.topic
                  + " at "
                  + bootstrap
                  + " until it has been idle for "
                  + o.idleSeconds
                  + " s (at most "
                  + o.maxSeconds
                  + " s) ...");
          emulator.runUntilIdle(Duration.ofSeconds(o.idleSeconds), max);
        }
        System.out.println(
            "committed offsets of group " + o.groupId + ": " + describe(emulator.committed()));
      }
      target.report(config, credentials);
    } finally {
      if (kafka != null) {
        kafka.close();
      }
      if (localS3 != null) {
        localS3.close();
      }
    }
  }

  private static void print(Invocation i) {
    String ranges =
        i.ranges().entrySet().stream()
            .map(e -> e.getKey() + "[" + e.getValue().first() + ".." + e.getValue().last() + "]")
            .collect(Collectors.joining(" "));
    String outcome =
        switch (i.outcome()) {
          case Outcome.Succeeded s -> "ok, committed";
          case Outcome.PartiallyFailed p ->
              "batchItemFailures " + p.failedFrom() + ", redelivering";
          case Outcome.Failed f -> "FAILED (" + f.error() + "), will retry";
        };
    System.out.printf(
        Locale.ROOT,
        "batch %d attempt %d: %d records, %s, %.1f KB -> %s%n",
        i.batch(),
        i.attempt(),
        i.records(),
        ranges,
        i.eventBytes() / 1024.0,
        outcome);
  }

  private static String describe(Map<TopicPartition, Long> offsets) {
    return offsets.entrySet().stream()
        .sorted(Map.Entry.comparingByKey((a, b) -> Integer.compare(a.partition(), b.partition())))
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(", "));
  }

  /** The plain run: objects through a recording store, listed and previewed at the end. */
  private static final class ObjectTarget implements Target {
    private RecordingStore store;

    @Override
    public ArchiverHandler handler(
        ArchiverConfig config, AwsCredentialsProvider credentials, Map<String, String> env) {
      store = new RecordingStore(S3ObjectStore.create(config, credentials));
      return new ArchiverHandler(config, store, Clock.systemUTC());
    }

    @Override
    public void report(ArchiverConfig config, AwsCredentialsProvider credentials) {
      KafkaLocalRun.report(config, credentials, store);
    }
  }

  private static void report(
      ArchiverConfig config, AwsCredentialsProvider credentials, RecordingStore store) {
    List<String> keys = store.keys().stream().distinct().toList();
    System.out.println("wrote " + keys.size() + " object(s) to s3://" + config.bucketName() + "/:");
    keys.forEach(k -> System.out.println("  " + k));
    if (keys.isEmpty()) {
      return;
    }
    var b =
        S3Client.builder()
            .region(Region.of(config.bucketRegion()))
            .credentialsProvider(credentials)
            .forcePathStyle(config.forcePathStyle());
    config.endpoint().ifPresent(b::endpointOverride);
    try (S3Client s3 = b.build()) {
      String first = keys.get(0);
      String body =
          new String(
              ObjectBodies.decompressed(s3, config.bucketName(), first), StandardCharsets.UTF_8);
      System.out.println("preview of " + first + ":");
      body.lines()
          .limit(3)
          .forEach(
              l ->
                  System.out.println("  " + (l.length() <= 200 ? l : l.substring(0, 197) + "...")));
    }
  }

  /** The command line, checked once; a mistake prints the usage. */
  private static final class Options {
    boolean embedded;
    String bootstrapServers;
    String topic = "vehicle-telemetry";
    String groupId = "kafka-s3-archiver-local";
    int records = 200;
    int partitions = 3;
    int batchSize = 100;
    long windowMillis = 500;
    StartingPosition startingPosition = StartingPosition.TRIM_HORIZON;
    long idleSeconds = 10;
    long maxSeconds = 300;
    final Map<String, String> consumerProperties = new LinkedHashMap<>();

    static Options parse(String[] args) {
      Options o = new Options();
      boolean topicGiven = false;
      try {
        for (int i = 0; i < args.length; i++) {
          String a = args[i];
          switch (a) {
            case "--kafka" -> o.embedded = true;
            case "--bootstrap-servers" -> o.bootstrapServers = args[++i];
            case "--topic" -> {
              o.topic = args[++i];
              topicGiven = true;
            }
            case "--group-id" -> o.groupId = args[++i];
            case "--records" -> o.records = Integer.parseInt(args[++i]);
            case "--partitions" -> o.partitions = Integer.parseInt(args[++i]);
            case "--batch-size" -> o.batchSize = Integer.parseInt(args[++i]);
            case "--batching-window-ms" -> o.windowMillis = Long.parseLong(args[++i]);
            case "--starting-position" ->
                o.startingPosition = StartingPosition.valueOf(args[++i].toUpperCase(Locale.ROOT));
            case "--idle-seconds" -> o.idleSeconds = Long.parseLong(args[++i]);
            case "--max-seconds" -> o.maxSeconds = Long.parseLong(args[++i]);
            case "--consumer-property" -> {
              String kv = args[++i];
              int eq = kv.indexOf('=');
              if (eq <= 0) {
                throw new IllegalArgumentException("--consumer-property needs key=value: " + kv);
              }
              o.consumerProperties.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            default -> throw new IllegalArgumentException("unknown argument " + a);
          }
        }
      } catch (ArrayIndexOutOfBoundsException e) {
        throw new IllegalArgumentException("an option lacks its value\n" + USAGE, e);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage() + "\n" + USAGE, e);
      }
      if (o.embedded == (o.bootstrapServers != null)) {
        throw new IllegalArgumentException(
            "give either --kafka or --bootstrap-servers, not both\n" + USAGE);
      }
      if (!o.embedded && !topicGiven) {
        throw new IllegalArgumentException("--bootstrap-servers needs --topic\n" + USAGE);
      }
      if (o.records < 1 || o.partitions < 1 || o.maxSeconds < 1 || o.idleSeconds < 1) {
        throw new IllegalArgumentException(
            "--records, --partitions, --idle-seconds and --max-seconds must be positive\n" + USAGE);
      }
      return o;
    }
  }
}
