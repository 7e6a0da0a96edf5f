package io.kafkas3archiver.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.Harness;
import io.kafkas3archiver.testing.ObjectBodies;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The same archive path against LocalStack, where a Docker engine exists. Where none does (as on
 * the CI machine), it is reported as skipped with the reason; {@link ArchiverS3IT} covers the path
 * against S3Proxy either way.
 */
class LocalStackIT {

  @Test
  void shouldArchiveTheSampleEventIntoLocalStack() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      String reason =
          "no Docker engine on this machine: LocalStack cannot run; ArchiverS3IT covers S3 with"
              + " S3Proxy";
      // Surefire's console shows only "Skipped: 1"; say why where the reader looks.
      System.err.println("LocalStackIT SKIPPED: " + reason);
      Assumptions.abort(reason);
    }
    try (LocalStackContainer localstack =
        new LocalStackContainer(DockerImageName.parse("localstack/localstack:4"))
            .withServices(LocalStackContainer.Service.S3)) {
      localstack.start();
      try (S3Client s3 =
          S3Client.builder()
              .endpointOverride(localstack.getEndpoint())
              .region(Region.of(localstack.getRegion()))
              .forcePathStyle(true)
              .credentialsProvider(
                  StaticCredentialsProvider.create(
                      AwsBasicCredentials.create(
                          localstack.getAccessKey(), localstack.getSecretKey())))
              .build()) {
        s3.createBucket(b -> b.bucket("archive-localstack"));
        var run =
            Harness.against(localstack.getEndpoint().toString(), "archive-localstack")
                .with("AWS_REGION", localstack.getRegion())
                .withKeys(localstack.getAccessKey(), localstack.getSecretKey())
                .handler();

        run.invoke(Harness.event("msk-event.json"));

        // One object per topic-partition (issue 12): partitions 0 and 1, 4 values between them.
        assertThat(run.store().keys()).hasSize(2);
        long lines =
            run.store().keys().stream()
                .mapToLong(
                    k -> new String(ObjectBodies.raw(s3, "archive-localstack", k)).lines().count())
                .sum();
        assertThat(lines).isEqualTo(4);
      }
    }
  }
}
