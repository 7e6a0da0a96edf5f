package io.kafkas3archiver.schema;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.decode.ParseProblem;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A Confluent-compatible registry, read with {@code GET /schemas/ids/{id}} over the JDK's HTTP
 * client (no client library). A response without {@code schemaType} is Avro, Confluent's default.
 *
 * <p>Basic-auth credentials are asked for on the first call, never when the registry is built: the
 * function is built before the SnapStart snapshot, and a password fetched then would live on in
 * every restored copy (DESIGN §6). They go over https only (or to a loopback address, which never
 * leaves the execution environment), and a refusal (401/403) drops them, so the next call reads
 * them again (a rotated secret).
 */
public final class ConfluentRegistry implements SchemaRegistry {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final Pattern LOOPBACK_IPV4 = Pattern.compile("127(\\.[0-9]{1,3}){3}");

  /** Where the basic-auth credentials come from, asked on first use. */
  @FunctionalInterface
  public interface Credentials {
    /**
     * {@code user:password}; throws {@link SchemaRegistryException} (naming the source, never the
     * secret) when they cannot be had.
     */
    String userPassword();
  }

  private final URI base;
  private final Optional<Credentials> credentials;
  private final HttpClient http;
  private volatile String authorization;

  /** {@code basicAuth} is {@code user:password}, or empty for an open registry. */
  public ConfluentRegistry(URI base, Optional<String> basicAuth) {
    this(base, basicAuth.<Credentials>map(up -> () -> up).orElse(null));
  }

  /**
   * A registry whose {@code credentials} are asked for on the first fetch. Throws {@link
   * IllegalArgumentException} for a URI with user-info, or with credentials over plain http to a
   * host that is not loopback.
   */
  public static ConfluentRegistry withCredentialsOnFirstUse(
      URI base, Optional<Credentials> credentials) {
    return new ConfluentRegistry(base, credentials.orElse(null));
  }

  /** {@code credentials} null: an open registry. */
  private ConfluentRegistry(URI base, Credentials credentials) {
    if (base.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "a registry URI must not carry user-info (user:password@); give the credentials"
              + " separately");
    }
    if (credentials != null && !sendsCredentialsSafely(base)) {
      throw new IllegalArgumentException(
          "basic-auth credentials go over https only (or to a loopback address), not to "
              + base.getScheme()
              + "://"
              + base.getHost());
    }
    String b = base.toString();
    this.base = URI.create(b.endsWith("/") ? b : b + "/");
    this.credentials = Optional.ofNullable(credentials);
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  }

  /**
   * Whether basic-auth credentials may go to this registry URL: over {@code https://}, or over
   * plain http to a loopback address ({@code localhost}, 127.0.0.0/8, {@code ::1}: a sidecar or a
   * Lambda extension in the same execution environment), where nothing crosses a network.
   */
  public static boolean sendsCredentialsSafely(URI uri) {
    if ("https".equalsIgnoreCase(uri.getScheme())) {
      return true;
    }
    String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
    return host.equals("localhost")
        || host.equals("[::1]")
        || host.equals("::1")
        || LOOPBACK_IPV4.matcher(host).matches();
  }

  @Override
  public String describe() {
    return "the Confluent schema registry at " + base;
  }

  /** The Authorization header, with the credentials asked for on first use and then kept. */
  private Optional<String> authorization() {
    if (credentials.isEmpty()) {
      return Optional.empty();
    }
    String a = authorization;
    if (a == null) {
      String up = credentials.get().userPassword();
      a = "Basic " + Base64.getEncoder().encodeToString(up.getBytes(StandardCharsets.UTF_8));
      authorization = a;
    }
    return Optional.of(a);
  }

  @Override
  public Definition fetch(String schemaId) {
    URI uri = base.resolve("schemas/ids/" + URLEncoder.encode(schemaId, StandardCharsets.UTF_8));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
    authorization().ifPresent(a -> request.header("Authorization", a));
    HttpResponse<String> response;
    try {
      response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw SchemaRegistries.unreachable(this, schemaId, e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw SchemaRegistries.unreachable(this, schemaId, "interrupted", e);
    }
    int status = response.statusCode();
    if (status == 401 || status == 403) {
      // Read the credentials again on the next call: the secret may have been rotated.
      authorization = null;
      throw new SchemaRegistryException(
          describe()
              + " refused GET /schemas/ids/"
              + schemaId
              + " (HTTP "
              + status
              + "); set SCHEMA_REGISTRY_SECRET_ARN to a secret of {\"username\",\"password\"} that"
              + " the registry accepts, the same one the event source mapping's BASIC_AUTH uses",
          false,
          null);
    }
    if (status == 404) {
      throw SchemaRegistries.notFound(this, schemaId);
    }
    if (status != 200) {
      throw SchemaRegistries.unreachable(this, schemaId, "HTTP " + status, null);
    }
    try {
      JsonNode body = MAPPER.readTree(response.body());
      if (!body.path("schema").isTextual()) {
        throw new IOException("no \"schema\" string in the answer");
      }
      return new Definition(body.path("schemaType").asText("AVRO"), body.get("schema").asText());
    } catch (IOException e) {
      throw new SchemaRegistryException(
          describe()
              + " answered GET /schemas/ids/"
              + schemaId
              + " with something that is not a schema ("
              + (e instanceof JacksonException j ? ParseProblem.describe(j) : e.getMessage())
              + "); is SCHEMA_REGISTRY_URI the registry's base URL?",
          false,
          // Not chained: the parser's message quotes the answer, and the runtime prints causes.
          null);
    }
  }
}
