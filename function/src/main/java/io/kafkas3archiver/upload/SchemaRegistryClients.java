package io.kafkas3archiver.upload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.schema.ConfluentRegistry;
import io.kafkas3archiver.schema.GlueRegistry;
import io.kafkas3archiver.schema.SchemaCatalog;
import java.io.IOException;
import java.net.URI;
import java.util.Optional;
import java.util.function.Function;

/**
 * Builds the {@link SchemaCatalog} that {@code SCHEMA_REGISTRY_URI} names, with the execution
 * role's credentials (the role the mapping's own registry calls use too). A Confluent secret is
 * read at init, so a wrong ARN fails the cold start with its name, not a batch.
 */
public final class SchemaRegistryClients {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SchemaRegistryClients() {}

  public static SchemaCatalog catalog(ArchiverConfig config, Function<String, String> env) {
    if (config.schemaRegistryUri().isEmpty()) {
      return SchemaCatalog.none();
    }
    String uri = config.schemaRegistryUri().get();
    ServiceClients clients = new ServiceClients(env);
    var role = CredentialsSource.ExecutionRole.of(env).provider();
    if (uri.startsWith("arn:")) {
      // arn:aws:glue:REGION:ACCOUNT:registry/NAME
      String region = uri.split(":")[3];
      return SchemaCatalog.over(new GlueRegistry(uri, clients.glueEndpoint(region), region, role));
    }
    Optional<String> basicAuth =
        config
            .schemaRegistrySecretArn()
            .map(
                arn -> {
                  String region =
                      arn.split(":").length > 3
                          ? arn.split(":")[3]
                          : clients.functionRegion(config.bucketRegion());
                  try (var sm = clients.secretsManager(region, role)) {
                    return userPassword(
                        arn, sm.getSecretValue(r -> r.secretId(arn)).secretString());
                  } catch (RuntimeException e) {
                    if (e instanceof ConfigException c) {
                      throw c;
                    }
                    throw new ConfigException(
                        "SCHEMA_REGISTRY_SECRET_ARN="
                            + arn
                            + " could not be read ("
                            + e.getClass().getSimpleName()
                            + "); grant the execution role secretsmanager:GetSecretValue on it");
                  }
                });
    return SchemaCatalog.over(new ConfluentRegistry(URI.create(uri), basicAuth));
  }

  private static String userPassword(String arn, String secret) {
    try {
      JsonNode node = MAPPER.readTree(secret == null ? "" : secret);
      if (node != null && node.path("username").isTextual() && node.path("password").isTextual()) {
        return node.get("username").asText() + ":" + node.get("password").asText();
      }
    } catch (IOException e) {
      // reported below, without the secret's text
    }
    throw new ConfigException(
        "SCHEMA_REGISTRY_SECRET_ARN="
            + arn
            + " does not hold {\"username\": \"...\", \"password\": \"...\"}, the shape of the"
            + " mapping's BASIC_AUTH secret");
  }
}
