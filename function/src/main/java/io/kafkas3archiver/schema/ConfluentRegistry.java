package io.kafkas3archiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;

/**
 * A Confluent-compatible registry, read with {@code GET /schemas/ids/{id}} over the JDK's HTTP
 * client (no client library). A response without {@code schemaType} is Avro, Confluent's default.
 */
public final class ConfluentRegistry implements SchemaRegistry {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final URI base;
  private final Optional<String> authorization;
  private final HttpClient http;

  /** {@code basicAuth} is {@code user:password}, or empty for an open registry. */
  public ConfluentRegistry(URI base, Optional<String> basicAuth) {
    String b = base.toString();
    this.base = URI.create(b.endsWith("/") ? b : b + "/");
    this.authorization =
        basicAuth.map(
            up ->
                "Basic " + Base64.getEncoder().encodeToString(up.getBytes(StandardCharsets.UTF_8)));
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  }

  @Override
  public String describe() {
    return "the Confluent schema registry at " + base;
  }

  @Override
  public Definition fetch(String schemaId) {
    URI uri = base.resolve("schemas/ids/" + URLEncoder.encode(schemaId, StandardCharsets.UTF_8));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
    authorization.ifPresent(a -> request.header("Authorization", a));
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
              + e.getMessage()
              + "); is SCHEMA_REGISTRY_URI the registry's base URL?",
          false,
          e);
    }
  }
}
