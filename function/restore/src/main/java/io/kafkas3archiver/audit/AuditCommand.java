package io.kafkas3archiver.audit;

import io.kafkas3archiver.cli.UsageException;
import java.io.PrintStream;
import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * {@code java -jar kafka-s3-archiver-restore.jar audit --help}. Exit code 0 clean, 1 on an
 * unexplained gap, a duplicate or a broken claim, 2 on a bad command line, 3 when it cannot run.
 */
public final class AuditCommand {
  private AuditCommand() {}

  public static void main(String[] args) {
    int rc = run(args, System.out, System.err);
    System.out.flush();
    System.exit(rc);
  }

  public static int run(String[] args, PrintStream out, PrintStream err) {
    Optional<AuditOptions> parsed;
    try {
      parsed = AuditOptions.parse(args);
    } catch (UsageException e) {
      err.println("audit: " + e.getMessage());
      return 2;
    }
    if (parsed.isEmpty()) {
      out.print(AuditOptions.USAGE);
      return 0;
    }
    AuditOptions options = parsed.get();
    try (S3Client s3 = s3(options)) {
      AuditReport report = new Auditor(options, s3).run();
      if (options.json()) {
        out.println(report.toJson().toPrettyString());
      } else {
        report.printTable(out);
      }
      return report.exitCode();
    } catch (RuntimeException e) {
      err.println("audit failed: " + e.getMessage());
      return 3;
    }
  }

  static S3Client s3(AuditOptions options) {
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
    return builder.build();
  }
}
