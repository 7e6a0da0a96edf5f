package io.kafkas3archiver.restore;

import io.kafkas3archiver.cli.UsageException;
import java.io.PrintStream;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * {@code java -jar kafka-s3-archiver-restore.jar --help} (the restore jar's Main-Class): restores
 * an archived range into Kafka. Exit code 0 on success, 1 on a failed restore or verify, 2 on a bad
 * command line.
 */
public final class RestoreCommand {
  private RestoreCommand() {}

  public static void main(String[] args) {
    int rc = run(args, System.out, System.err);
    System.out.flush();
    System.exit(rc);
  }

  /** Runs the command; returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Optional<RestoreOptions> parsed;
    try {
      parsed = RestoreOptions.parse(args);
    } catch (UsageException e) {
      err.println("restore: " + e.getMessage());
      return 2;
    }
    if (parsed.isEmpty()) {
      out.print(RestoreOptions.USAGE);
      return 0;
    }
    RestoreOptions options = parsed.get();
    try (S3Client s3 = s3(options)) {
      Restorer.Result result =
          new Restorer(options, new ArchiveReader(s3, options.bucket(), options.topic()), out)
              .run();
      return options.verify() && !result.verified() ? 1 : 0;
    } catch (RestoreException e) {
      err.println("restore failed: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("restore interrupted; rerun the same command to resume from the checkpoint");
      return 1;
    } catch (Exception e) {
      err.println("restore failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      return 1;
    }
  }

  /**
   * The S3 client for the archive. Without {@code --region} the SDK's region chain decides ({@code
   * AWS_REGION}, the profile, the instance); when it finds none, the message says which flag to
   * pass rather than the SDK's list of providers.
   */
  static S3Client s3(RestoreOptions options) {
    var builder =
        S3Client.builder()
            .httpClient(UrlConnectionHttpClient.builder().build())
            .forcePathStyle(options.pathStyle());
    options.region().ifPresent(r -> builder.region(Region.of(r)));
    options
        .endpointUrl()
        .ifPresent(
            e -> {
              builder.endpointOverride(URI.create(e));
              builder.serviceConfiguration(
                  S3Configuration.builder().chunkedEncodingEnabled(false).build());
            });
    try {
      return builder.build();
    } catch (SdkClientException e) {
      if (options.region().isEmpty()
          && String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("region")) {
        throw new RestoreException(
            "no AWS region for the bucket "
                + options.bucket()
                + ": pass --region <the bucket's region> (or set AWS_REGION); with --endpoint-url"
                + " (MinIO, S3Proxy) any region name the server accepts works, e.g. --region"
                + " us-east-1",
            e);
      }
      throw e;
    }
  }
}
