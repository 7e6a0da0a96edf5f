package io.kafkas3archiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * An AWS Glue Schema Registry: {@code GetSchemaVersion} by schema version id, which is the {@code
 * schemaId} the mapping sends for Glue. One JSON-protocol call ({@code X-Amz-Target:
 * AWSGlue.GetSchemaVersion}) through {@link GlueCalls}: the plain jar keeps Glue's SDK client for
 * the Iceberg artifact alone.
 */
public final class GlueRegistry implements SchemaRegistry {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final String registryArn;
  private final URI endpoint;
  private final String region;
  private final AwsCredentialsProvider credentials;
  private final HttpClient http;

  /** {@code endpoint} is Glue's, e.g. {@code https://glue.us-east-1.amazonaws.com}. */
  public GlueRegistry(
      String registryArn, URI endpoint, String region, AwsCredentialsProvider credentials) {
    this.registryArn = registryArn;
    this.endpoint = endpoint;
    this.region = region;
    this.credentials = credentials;
    this.http = HttpClient.newBuilder().connectTimeout(GlueCalls.TIMEOUT).build();
  }

  @Override
  public String describe() {
    return "the Glue schema registry " + registryArn;
  }

  @Override
  public Definition fetch(String schemaId) {
    String body;
    try {
      body = MAPPER.writeValueAsString(Map.of("SchemaVersionId", schemaId));
    } catch (IOException e) {
      throw new IllegalStateException("writing a small map cannot fail", e);
    }
    HttpResponse<String> response;
    try {
      response = http.send(signed(body), HttpResponse.BodyHandlers.ofString());
    } catch (IOException | RuntimeException e) {
      // RuntimeException: the credentials could not be resolved, or the request not signed.
      throw SchemaRegistries.unreachable(this, schemaId, e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw SchemaRegistries.unreachable(this, schemaId, "interrupted", e);
    }
    JsonNode answer = GlueCalls.answer(response);
    int status = response.statusCode();
    if (status == 200 && answer.path("SchemaDefinition").isTextual()) {
      return new Definition(
          answer.path("DataFormat").asText("AVRO"), answer.get("SchemaDefinition").asText());
    }
    // JSON protocol errors: {"__type": "...#EntityNotFoundException", "Message": "..."}.
    String type = GlueCalls.errorType(answer);
    if (type.equals("EntityNotFoundException")) {
      throw SchemaRegistries.notFound(this, schemaId);
    }
    if (type.equals("AccessDeniedException") || status == 403) {
      throw new SchemaRegistryException(
          describe()
              + " refused GetSchemaVersion for "
              + schemaId
              + " ("
              + (type.isEmpty() ? "HTTP " + status : type)
              + "); grant the function's execution role glue:GetSchemaVersion and"
              + " glue:GetRegistry on the registry and its schemas",
          false,
          null);
    }
    if (status >= 500 || status == 429 || type.contains("Throttling")) {
      throw SchemaRegistries.unreachable(this, schemaId, "HTTP " + status + " " + type, null);
    }
    // Glue's own message is left out: it may quote what the registry holds.
    throw new SchemaRegistryException(
        describe()
            + " refused GetSchemaVersion for "
            + schemaId
            + " (HTTP "
            + status
            + (type.isEmpty() ? "" : " " + type)
            + "); check SCHEMA_REGISTRY_URI and that the schema version exists in that registry",
        false,
        null);
  }

  private HttpRequest signed(String body) {
    return GlueCalls.signed(endpoint, region, credentials, "GetSchemaVersion", body);
  }
}
