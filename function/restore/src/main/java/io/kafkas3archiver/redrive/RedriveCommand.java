package io.kafkas3archiver.redrive;

import io.kafkas3archiver.Pipeline;
import io.kafkas3archiver.cli.UsageException;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.upload.CredentialsSource;
import io.kafkas3archiver.upload.S3ObjectStore;
import io.kafkas3archiver.upload.SchemaRegistryClients;
import java.io.PrintStream;
import java.net.URI;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code java -jar kafka-s3-archiver-restore.jar redrive --help}: archives the batches the event
 * source mapping skipped, from its on-failure records. Exit code 0 when every record was redriven,
 * 1 when one failed or named offsets Kafka no longer holds, 2 on a bad command line.
 */
public final class RedriveCommand {
  private RedriveCommand() {}

  public static void main(String[] args) {
    int rc = run(args, System.out, System.err, System::getenv);
    System.out.flush();
    System.exit(rc);
  }

  /** Runs the command with {@code env} as the environment; returns the exit code. */
  public static int run(
      String[] args, PrintStream out, PrintStream err, Function<String, String> env) {
    Optional<RedriveOptions> parsed;
    try {
      parsed = RedriveOptions.parse(env, args);
    } catch (UsageException e) {
      err.println("redrive: " + e.getMessage());
      return 2;
    }
    if (parsed.isEmpty()) {
      out.print(RedriveOptions.USAGE);
      return 0;
    }
    RedriveOptions options = parsed.get();
    try {
      Function<String, String> archiverEnv = options.archiverEnvironment(env);
      Redriver.Report report = redrive(options, env, archiverEnv, out);
      return report.ok() ? 0 : 1;
    } catch (UsageException e) {
      err.println("redrive: " + e.getMessage());
      return 2;
    } catch (RedriveException | ConfigException e) {
      err.println("redrive failed: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Builds the source, the archiver entry and the redriver from {@code options}, and runs it.
   * {@code env} supplies AWS endpoints for the queue, bucket and Lambda clients; {@code
   * archiverEnv} the archiver's own settings.
   */
  public static Redriver.Report redrive(
      RedriveOptions options,
      Function<String, String> env,
      Function<String, String> archiverEnv,
      PrintStream out) {
    ArchiverEntry archiver;
    Optional<String> topic;
    if (options.archiverFunction().isPresent()) {
      archiver = new ArchiverEntry.Function(lambda(options, env), options.archiverFunction().get());
      topic = Optional.ofNullable(archiverEnv.apply("INPUT_TOPIC")).filter(t -> !t.isBlank());
    } else {
      ArchiverConfig config = ArchiverConfig.fromEnv(archiverEnv);
      refuseWhatCannotBeRedriven(config);
      archiver =
          new ArchiverEntry.InProcess(
              new Pipeline(
                  config,
                  S3ObjectStore.create(config, CredentialsSource.from(config, archiverEnv)),
                  Clock.systemUTC(),
                  SchemaRegistryClients.catalog(config, archiverEnv)),
              options.timeout(),
              Clock.systemUTC(),
              "the archiver (s3://" + config.bucketName() + "/" + config.keyPrefix() + "/)");
      topic = config.inputTopic();
    }
    FailureSource source = source(options, env);
    return new Redriver(
            archiver, topic, options::kafkaClients, options.timeout(), options.dryRun(), out)
        .run(source, options.maxRecords());
  }

  /**
   * What the in-process archiver cannot take: an Iceberg table skips offsets at or below its last
   * commit, so redriven (older) offsets would be dropped as already committed.
   */
  private static void refuseWhatCannotBeRedriven(ArchiverConfig config) {
    if (config.format().isTable()) {
      throw new RedriveException(
          "OUTPUT_FORMAT="
              + config.format().extension()
              + " is not supported: a table skips offsets at or below its last committed one, so"
              + " the skipped (older) offsets would be dropped, not archived");
    }
  }

  /**
   * Where the queue, bucket and Lambda clients go: the flags, else the SDK's own variables read
   * through {@code env} ({@code AWS_REGION}, {@code AWS_ENDPOINT_URL_SQS}, {@code _S3}, {@code
   * _LAMBDA}), so the restore Lambda's environment and the tests' seam both apply.
   */
  static FailureSource source(RedriveOptions options, Function<String, String> env) {
    return switch (options.source()) {
      case RedriveOptions.Source.Sqs q ->
          new FailureSource.SqsQueue(
              client(SqsClient.builder(), options, env, "AWS_ENDPOINT_URL_SQS").build(),
              q.queueUrl(),
              Math.toIntExact(Math.max(60, options.timeout().toSeconds() * 5)),
              options.keepMessages());
      case RedriveOptions.Source.S3 s ->
          new FailureSource.S3Records(
              client(S3Client.builder(), options, env, "AWS_ENDPOINT_URL_S3")
                  .forcePathStyle(
                      options.pathStyle() || "true".equals(env.apply("S3_FORCE_PATH_STYLE")))
                  .serviceConfiguration(
                      S3Configuration.builder().chunkedEncodingEnabled(false).build())
                  .build(),
              s.bucket(),
              s.prefix());
      case RedriveOptions.Source.Files f -> new FailureSource.RecordFiles(f.files());
    };
  }

  private static LambdaClient lambda(RedriveOptions options, Function<String, String> env) {
    // A batch of up to 6 MB through one synchronous invocation of up to 15 minutes.
    // --endpoint-url is the queue's or bucket's: the Lambda API has only its SDK variable.
    return client(LambdaClient.builder(), options.withoutEndpoint(), env, "AWS_ENDPOINT_URL_LAMBDA")
        .overrideConfiguration(
            c ->
                c.apiCallTimeout(java.time.Duration.ofMinutes(15))
                    .apiCallAttemptTimeout(java.time.Duration.ofMinutes(15)))
        .build();
  }

  private static <B extends AwsSyncClientBuilder<B, ?> & AwsClientBuilder<B, ?>> B client(
      B builder, RedriveOptions options, Function<String, String> env, String endpointVariable) {
    builder.httpClient(UrlConnectionHttpClient.builder().build());
    options
        .region()
        .or(() -> Optional.ofNullable(env.apply("AWS_REGION")))
        .ifPresent(r -> builder.region(Region.of(r)));
    options
        .endpointUrl()
        .or(() -> Optional.ofNullable(env.apply(endpointVariable)))
        .filter(e -> !e.isBlank())
        .ifPresent(e -> builder.endpointOverride(URI.create(e)));
    return builder;
  }
}
