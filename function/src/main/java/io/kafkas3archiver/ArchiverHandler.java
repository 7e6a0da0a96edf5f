package io.kafkas3archiver;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.BadEventException;
import io.kafkas3archiver.decode.EventDecoder;
import io.kafkas3archiver.decode.Invocation;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.preflight.Preflight;
import io.kafkas3archiver.preflight.PreflightReport;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.EmfMetrics;
import io.kafkas3archiver.report.InvocationLog;
import io.kafkas3archiver.table.BatchArchiver;
import io.kafkas3archiver.table.MaintenanceReport;
import io.kafkas3archiver.table.TableWriterProvider;
import io.kafkas3archiver.table.TableWriters;
import io.kafkas3archiver.upload.CredentialsSource;
import io.kafkas3archiver.upload.DeclaredSchemas;
import io.kafkas3archiver.upload.ObjectStore;
import io.kafkas3archiver.upload.S3ObjectStore;
import io.kafkas3archiver.upload.SchemaRegistryClients;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.crac.Core;

/**
 * The Lambda entry point: {@code io.kafkas3archiver.ArchiverHandler::handleRequest}. It builds the
 * pipeline at init (so configuration errors fail the cold start, and SnapStart can snapshot it) and
 * hands each event over. It holds no archiving logic of its own.
 */
public final class ArchiverHandler implements RequestStreamHandler {
  private static final JsonFactory JSON = new JsonFactory();

  private final ArchiverConfig config;
  private final EventDecoder decoder = new EventDecoder();
  private final BatchArchiver pipeline;
  private final Optional<Preflight> preflight;
  private final Optional<CredentialsSource> credentials;
  private final InvocationLog log;
  private final EmfMetrics metrics;
  private final Clock clock;
  private final Priming priming;

  /** Used by the Lambda runtime: configuration and credentials from the environment. */
  public ArchiverHandler() {
    this(ArchiverConfig.fromEnv(System::getenv), System::getenv);
  }

  /**
   * The real wiring. {@code env} supplies the Secrets Manager/STS endpoints and the execution
   * role's keys, as in Lambda.
   */
  public ArchiverHandler(ArchiverConfig config, Function<String, String> env) {
    this(
        config, Wiring.overS3(config, CredentialsSource.from(config, env), Clock.systemUTC(), env));
    // SnapStart runs this before the snapshot; on a JVM without CRaC it is never called. The
    // field keeps it reachable: CRaC holds registered resources weakly.
    Core.getGlobalContext().register(priming);
  }

  /** Real S3 with these credentials: archiving and the preflight check share one client. */
  public ArchiverHandler(ArchiverConfig config, CredentialsSource credentials, Clock clock) {
    this(config, credentials, clock, System::getenv);
  }

  /** {@code env} also carries the table writer's own settings ({@code ICEBERG_*}). */
  public ArchiverHandler(
      ArchiverConfig config,
      CredentialsSource credentials,
      Clock clock,
      Function<String, String> env) {
    this(config, Wiring.overS3(config, credentials, clock, env));
  }

  /** Any store (tests, local runs): no credentials to refresh and no preflight check. */
  public ArchiverHandler(ArchiverConfig config, ObjectStore store, Clock clock) {
    this(config, store, clock, System::getenv);
  }

  /** The same, with {@code env} for the registry's and table writer's endpoints and keys. */
  public ArchiverHandler(
      ArchiverConfig config, ObjectStore store, Clock clock, Function<String, String> env) {
    this(config, new Wiring(store, Optional.empty(), Optional.empty(), clock, env));
  }

  private ArchiverHandler(ArchiverConfig config, Wiring wiring) {
    this.config = config;
    this.clock = wiring.clock();
    // A table format comes from another artifact, found at init; the plain jar fails here with a
    // message naming the artifact to deploy.
    this.pipeline =
        config.format().isTable()
            ? TableWriters.create(
                new TableWriterProvider.Context(
                    config, wiring.env(), wiring.store(), wiring.credentials().orElse(null), clock))
            : new Pipeline(
                config,
                wiring.store(),
                clock,
                SchemaRegistryClients.catalog(config, wiring.env()),
                DeclaredSchemas.loader(config, wiring.env()));
    this.preflight = wiring.preflight();
    this.credentials = wiring.credentials();
    this.log = new InvocationLog(System.out, config.title(), config.logLevel(), config::shownKey);
    boolean timeField = config.timeField().isPresent();
    this.metrics =
        new EmfMetrics(
            System.out,
            config.title(),
            timeField,
            timeField || !config.keyTemplate().recordFields().isEmpty(),
            config.format() == Format.CSV || config.format() == Format.PARQUET);
    this.priming = new Priming(config, decoder, wiring.store(), clock);
  }

  /** What the handler runs over; the preflight check needs real S3 and its credentials. */
  private record Wiring(
      ObjectStore store,
      Optional<Preflight> preflight,
      Optional<CredentialsSource> credentials,
      Clock clock,
      Function<String, String> env) {
    static Wiring overS3(
        ArchiverConfig config,
        CredentialsSource credentials,
        Clock clock,
        Function<String, String> env) {
      S3ObjectStore store = S3ObjectStore.create(config, credentials);
      return new Wiring(
          store,
          Optional.of(Preflight.over(config, credentials, store, clock)),
          Optional.of(credentials),
          clock,
          env);
    }
  }

  /**
   * What SnapStart's {@code beforeCheckpoint} runs: warms the decoder, every encoder and codec and
   * the S3 client with a synthetic batch, writing nothing. Public for tests and the benchmark.
   */
  public void prime() {
    priming.run();
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    long started = clock.millis();
    String requestId = context == null ? "local" : context.getAwsRequestId();
    Invocation invocation;
    try {
      invocation = decoder.decode(input);
    } catch (BadEventException e) {
      log.rejectedEvent(requestId, "BadEvent", e.getMessage(), e.debugDetail());
      throw e;
    }
    credentials.ifPresent(CredentialsSource::beginInvocation);
    long remaining = context == null ? 900_000 : context.getRemainingTimeInMillis();
    switch (invocation) {
      case Invocation.PreflightRequest p -> {
        Preflight check =
            preflight.orElseThrow(
                () ->
                    new IllegalStateException(
                        "this handler was built over a bare ObjectStore, which has no S3 client to"
                            + " check; build it with ArchiverHandler(config, env) to run the"
                            + " preflight check"));
        // The report is the answer, passed or failed: a failed check is a result, not an error.
        PreflightReport report = check.run(Deadline.in(remaining, clock));
        System.out.println(report.toLogLine(requestId));
        output.write(report.toJson().getBytes(StandardCharsets.UTF_8));
      }
      case Invocation.MaintainRequest m -> {
        MaintenanceReport report = pipeline.maintain(Deadline.in(remaining, clock));
        System.out.println(report.toLogLine(requestId));
        output.write(report.toJson().getBytes(StandardCharsets.UTF_8));
      }
      case Invocation.KafkaBatch batch -> {
        BatchOutcome outcome = pipeline.archive(batch, Deadline.in(remaining, clock));
        long now = clock.millis();
        metrics.publish(outcome, now);
        log.batch(requestId, batch.eventSource(), outcome, now - started, now);
        // A failure batchItemFailures cannot name would otherwise be answered with an empty list,
        // which the mapping takes as success: the records would never be retried.
        if (!outcome.succeeded()
            && (!config.reportBatchItemFailures() || outcome.hasUnnamedFailure())) {
          var first = outcome.failures().get(0).error();
          throw new ArchiveFailedException(
              first.type().label(),
              first.getMessage()
                  + " ["
                  + outcome.recordsFailed()
                  + " of "
                  + outcome.recordsIn()
                  + " records not archived; the batch will be retried]",
              first);
        }
        writeResponse(output, outcome.firstUnwrittenOffsets());
      }
    }
  }

  /** {@code {"batchItemFailures":[{"itemIdentifier":{"topic-partition":"t-0","offset":N}}]}}. */
  private static void writeResponse(OutputStream output, Map<String, Long> failed)
      throws IOException {
    try (JsonGenerator g = JSON.createGenerator(output)) {
      g.writeStartObject();
      g.writeArrayFieldStart("batchItemFailures");
      for (var e : failed.entrySet()) {
        g.writeStartObject();
        g.writeObjectFieldStart("itemIdentifier");
        g.writeStringField("topic-partition", e.getKey());
        g.writeNumberField("offset", e.getValue());
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }
}
