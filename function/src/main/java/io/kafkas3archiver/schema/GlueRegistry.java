package io.kafkas3archiver.schema;

import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.AccessDeniedException;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.GetSchemaVersionResponse;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * An AWS Glue Schema Registry: {@code GetSchemaVersion} by schema version id, which is the {@code
 * schemaId} the mapping sends for Glue. The client is built on first use, so a function whose
 * batches carry no schema metadata never pays for it.
 */
public final class GlueRegistry implements SchemaRegistry {
  private final String registryArn;
  private final Supplier<GlueClient> clients;
  private GlueClient client;

  public GlueRegistry(String registryArn, Supplier<GlueClient> clients) {
    this.registryArn = registryArn;
    this.clients = clients;
  }

  @Override
  public String describe() {
    return "the Glue schema registry " + registryArn;
  }

  private synchronized GlueClient client() {
    if (client == null) {
      client = clients.get();
    }
    return client;
  }

  @Override
  public Definition fetch(String schemaId) {
    GetSchemaVersionResponse r;
    try {
      r = client().getSchemaVersion(b -> b.schemaVersionId(schemaId));
    } catch (EntityNotFoundException e) {
      throw SchemaRegistries.notFound(this, schemaId);
    } catch (AccessDeniedException e) {
      throw new SchemaRegistryException(
          describe()
              + " refused GetSchemaVersion for "
              + schemaId
              + " ("
              + e.awsErrorDetails().errorCode()
              + "); grant the function's execution role glue:GetSchemaVersion and"
              + " glue:GetRegistry on the registry and its schemas",
          false,
          e);
    } catch (GlueException e) {
      if (e.statusCode() >= 500 || e.statusCode() == 429 || e.isThrottlingException()) {
        throw SchemaRegistries.unreachable(this, schemaId, e.getMessage(), e);
      }
      throw new SchemaRegistryException(
          describe() + " refused GetSchemaVersion for " + schemaId + ": " + e.getMessage(),
          false,
          e);
    } catch (SdkClientException e) {
      throw SchemaRegistries.unreachable(this, schemaId, e.getMessage(), e);
    }
    return new Definition(r.dataFormatAsString(), r.schemaDefinition());
  }
}
