package io.kafkas3archiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * One call of Glue's JSON protocol ({@code X-Amz-Target: AWSGlue.<Operation>}), signed with the
 * SDK's SigV4 signer that the S3 client already ships, for the JDK's HTTP client: the SDK's {@code
 * glue} module would add 9.2 MB (5,795 classes) to the plain jar for two calls.
 */
final class GlueCalls {
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** Headers the JDK's client sets itself and refuses from the caller. */
  private static final List<String> RESTRICTED = List.of("host", "content-length", "connection");

  private GlueCalls() {}

  static HttpRequest signed(
      URI endpoint,
      String region,
      AwsCredentialsProvider credentials,
      String operation,
      String body) {
    SdkHttpRequest request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(endpoint)
            .putHeader("Content-Type", "application/x-amz-json-1.1")
            .putHeader("X-Amz-Target", "AWSGlue." + operation)
            .build();
    SignedRequest signed =
        AwsV4HttpSigner.create()
            .sign(
                r ->
                    r.identity(credentials.resolveCredentials())
                        .request(request)
                        .payload(ContentStreamProvider.fromUtf8String(body))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "glue")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, region));
    HttpRequest.Builder b =
        HttpRequest.newBuilder(endpoint)
            .timeout(TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    signed
        .request()
        .forEachHeader(
            (name, values) -> {
              if (!RESTRICTED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(v -> b.header(name, v));
              }
            });
    return b.build();
  }

  /** The error type of a JSON-protocol answer ({@code "__type": "...#EntityNotFoundException"}). */
  /** A Glue answer's JSON body; an empty object when it is not JSON (a proxy's page, nothing). */
  static JsonNode answer(HttpResponse<String> response) {
    try {
      return ANSWERS.readTree(response.body());
    } catch (IOException e) {
      return ANSWERS.createObjectNode();
    }
  }

  private static final ObjectMapper ANSWERS = new ObjectMapper();

  static String errorType(JsonNode answer) {
    String type = answer.path("__type").asText("");
    return type.substring(type.indexOf('#') + 1);
  }
}
