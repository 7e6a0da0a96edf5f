package io.kafkas3archiver.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;

class PrimingGuardTest {
  private static final ArchiverConfig CONFIG =
      ArchiverConfig.fromEnv(
          Map.of(
              "BUCKET_NAME", "primed-bucket",
              "AWS_REGION", "us-east-1",
              "AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9",
              "S3_FORCE_PATH_STYLE", "true"));

  /** Records every request handed to the HTTP layer, and sends none. */
  private static final class RecordingHttpClient implements SdkHttpClient {
    final AtomicInteger requests = new AtomicInteger();

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      requests.incrementAndGet();
      throw new IllegalStateException("a request reached the HTTP client: " + request);
    }

    @Override
    public void close() {}
  }

  /** Counts credential look-ups: the signer asks for them right before transmission. */
  private static final class CountingCredentials implements AwsCredentialsProvider {
    final AtomicInteger resolved = new AtomicInteger();

    @Override
    public AwsCredentials resolveCredentials() {
      resolved.incrementAndGet();
      return AwsBasicCredentials.create("AKIDPRIMING000000000", "priming-secret");
    }
  }

  private static S3ObjectStore store(SdkHttpClient http, AwsCredentialsProvider credentials) {
    return new S3ObjectStore(
        S3Clients.build(CONFIG, credentials, http),
        CONFIG,
        new ErrorClassifier("primed-bucket", "us-east-1", "http://127.0.0.1:9", "condense"));
  }

  @Test
  void shouldSignThePrimingRequestButNeverHandItToTheHttpClient() {
    // Given a store whose HTTP client records anything it is asked to send
    RecordingHttpClient http = new RecordingHttpClient();
    S3ObjectStore store = store(http, new CountingCredentials());

    // When it is primed
    boolean signed = store.primeSigned();

    // Then the request went as far as signing, and no further
    assertThat(signed).as("the priming request reached the signer").isTrue();
    assertThat(http.requests.get()).isZero();
  }

  @Test
  void shouldNeverAskTheRealCredentialsWhilePriming() {
    // Given a store whose credentials provider counts look-ups (a secret fetch, in production)
    CountingCredentials credentials = new CountingCredentials();
    S3ObjectStore store = store(new RecordingHttpClient(), credentials);

    // When it is primed, as SnapStart's beforeCheckpoint does
    store.prime();

    // Then the real provider was never asked: nothing of it can be in the snapshot
    assertThat(credentials.resolved.get()).isZero();
  }

  @Test
  void shouldResolveTheRealCredentialsOnTheFirstRealPut() {
    // Given a primed store
    CountingCredentials credentials = new CountingCredentials();
    S3ObjectStore store = store(new RecordingHttpClient(), credentials);
    store.prime();

    // When the first real put is signed (the fake client then refuses to send it)
    try {
      store.put("condense/t/x.ndjson", new byte[] {'{', '}'}, "application/x-ndjson", deadline());
    } catch (UploadException | IllegalStateException expected) {
      // the fake client refuses every request
    }

    // Then it was signed with the real credentials
    assertThat(credentials.resolved.get()).isPositive();
  }

  @Test
  void shouldStillSendRealPutsAfterPriming() {
    // Given a primed store
    RecordingHttpClient http = new RecordingHttpClient();
    S3ObjectStore store = store(http, new CountingCredentials());
    store.prime();

    // When a real put follows (it fails here, as the fake client sends nothing)
    try {
      store.put("condense/t/x.ndjson", new byte[] {'{', '}'}, "application/x-ndjson", deadline());
    } catch (UploadException | IllegalStateException expected) {
      // the fake client refuses every request
    }

    // Then the real put did reach the HTTP client: the guard stops priming requests only
    assertThat(http.requests.get()).isPositive();
  }

  private static Deadline deadline() {
    return Deadline.in(5_000, java.time.Clock.systemUTC());
  }
}
