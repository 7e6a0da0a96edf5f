package io.kafkas3archiver.upload;

import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.config.HttpUrl;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * Builds the Secrets Manager and STS clients the credential sources need, with the same single HTTP
 * client as S3 (url-connection). Endpoints follow the SDK's own variables, read through the
 * environment seam so tests and emulator users configure them the same way: {@code
 * AWS_ENDPOINT_URL_SECRETS_MANAGER}, {@code AWS_ENDPOINT_URL_STS}, then {@code AWS_ENDPOINT_URL}.
 */
public final class ServiceClients {
  /** Bounded, so a slow credentials call cannot eat the whole invocation. */
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

  private final Function<String, String> env;

  /** Reads the endpoint variables now, so a malformed URL fails the cold start, naming it. */
  public ServiceClients(Function<String, String> env) {
    this.env = env;
    for (String variable :
        new String[] {
          "AWS_ENDPOINT_URL_SECRETS_MANAGER",
          "AWS_ENDPOINT_URL_STS",
          "AWS_ENDPOINT_URL_GLUE",
          "AWS_ENDPOINT_URL"
        }) {
      value(variable).ifPresent(v -> parse(variable, v));
    }
  }

  /** The region the function runs in ({@code AWS_REGION}), else the given fallback. */
  public String functionRegion(String fallback) {
    return value("AWS_REGION").or(() -> value("AWS_DEFAULT_REGION")).orElse(fallback);
  }

  public SecretsManagerClient secretsManager(String region, AwsCredentialsProvider credentials) {
    var b =
        SecretsManagerClient.builder()
            .region(Region.of(region))
            .credentialsProvider(credentials)
            .httpClient(http())
            .overrideConfiguration(overrides());
    endpoint("AWS_ENDPOINT_URL_SECRETS_MANAGER").ifPresent(b::endpointOverride);
    return b.build();
  }

  public StsClient sts(String region, AwsCredentialsProvider credentials) {
    var b =
        StsClient.builder()
            .region(Region.of(region))
            .credentialsProvider(credentials)
            .httpClient(http())
            .overrideConfiguration(overrides());
    endpoint("AWS_ENDPOINT_URL_STS").ifPresent(b::endpointOverride);
    return b.build();
  }

  /** Glue's endpoint: {@code AWS_ENDPOINT_URL_GLUE}, {@code AWS_ENDPOINT_URL}, else AWS's. */
  public URI glueEndpoint(String region) {
    return endpoint("AWS_ENDPOINT_URL_GLUE")
        .orElse(URI.create("https://glue." + region + ".amazonaws.com"));
  }

  /** Where a service's calls go, for error messages (never with user-info). */
  public String endpointName(String variable, String service, String region) {
    return endpoint(variable)
        .map(HttpUrl::redacted)
        .orElse("https://" + service + "." + region + ".amazonaws.com");
  }

  private Optional<URI> endpoint(String variable) {
    return value(variable)
        .map(v -> parse(variable, v))
        .or(() -> value("AWS_ENDPOINT_URL").map(v -> parse("AWS_ENDPOINT_URL", v)));
  }

  private static URI parse(String variable, String raw) {
    try {
      URI uri = URI.create(raw);
      if (uri.getHost() != null
          && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        return uri;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw new ConfigException(
        variable
            + "='"
            + HttpUrl.redacted(raw)
            + "' is not valid; legal values: an http:// or https:// URL such as"
            + " http://127.0.0.1:5000");
  }

  private Optional<String> value(String name) {
    String v = env.apply(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }

  private static SdkHttpClient http() {
    return UrlConnectionHttpClient.builder()
        .connectionTimeout(Duration.ofSeconds(3))
        .socketTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static ClientOverrideConfiguration overrides() {
    // The SDK's standard retry policy (3 attempts, backoff) suits these small calls; the total
    // is capped so the S3 retry loop keeps its share of the deadline.
    return ClientOverrideConfiguration.builder().apiCallTimeout(CALL_TIMEOUT).build();
  }
}
