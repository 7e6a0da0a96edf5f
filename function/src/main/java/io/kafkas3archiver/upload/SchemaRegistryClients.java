package io.kafkas3archiver.upload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.schema.ConfluentRegistry;
import io.kafkas3archiver.schema.GlueRegistry;
import io.kafkas3archiver.schema.SchemaCatalog;
import io.kafkas3archiver.schema.SchemaRegistryException;
import java.io.IOException;
import java.net.URI;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Builds the {@link SchemaCatalog} that {@code SCHEMA_REGISTRY_URI} names, with the execution
 * role's credentials (the role the mapping's own registry calls use too). Nothing is fetched here:
 * the catalog is built at init, before the SnapStart snapshot, so a Confluent secret is read on the
 * registry's first call (after the restore) and a wrong ARN fails that batch, naming the ARN and
 * the fix (DESIGN §6).
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
    Optional<ConfluentRegistry.Credentials> basicAuth =
        config
            .schemaRegistrySecretArn()
            .map(
                arn -> {
                  String region =
                      CredentialsSource.arnRegion(arn)
                          .orElse(clients.functionRegion(config.bucketRegion()));
                  return () -> {
                    try (var sm = clients.secretsManager(region, role)) {
                      return userPassword(
                          arn, sm.getSecretValue(r -> r.secretId(arn)).secretString());
                    } catch (SdkException e) {
                      throw unreadable(arn, e);
                    }
                  };
                });
    return SchemaCatalog.over(
        ConfluentRegistry.withCredentialsOnFirstUse(URI.create(uri), basicAuth));
  }

  private static SchemaRegistryException unreadable(String arn, SdkException e) {
    String code =
        e instanceof AwsServiceException s && s.awsErrorDetails() != null
            ? s.awsErrorDetails().errorCode() + " " + s.statusCode()
            : e.getClass().getSimpleName();
    boolean denied = e instanceof AwsServiceException s && s.statusCode() / 100 == 4;
    return new SchemaRegistryException(
        "SCHEMA_REGISTRY_SECRET_ARN="
            + arn
            + " could not be read ("
            + code
            + "); "
            + (denied
                ? "grant the execution role secretsmanager:GetSecretValue on it (and kms:Decrypt on"
                    + " its key when that is a customer managed key), and check the ARN"
                : "check that the function can reach Secrets Manager (a VPC needs an interface"
                    + " endpoint or a NAT gateway)")
            + "; the batch fails and the event source mapping retries it",
        !denied,
        null);
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
    throw new SchemaRegistryException(
        "SCHEMA_REGISTRY_SECRET_ARN="
            + arn
            + " does not hold {\"username\": \"...\", \"password\": \"...\"}, the shape of the"
            + " mapping's BASIC_AUTH secret; the batch fails and the event source mapping retries"
            + " it",
        false,
        null);
  }
}
