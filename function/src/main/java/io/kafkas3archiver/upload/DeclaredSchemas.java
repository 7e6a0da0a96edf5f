package io.kafkas3archiver.upload;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.schema.DeclaredSchema;
import io.kafkas3archiver.schema.DeclaredSchemaException;
import io.kafkas3archiver.schema.DeclaredSchemaRef;
import io.kafkas3archiver.schema.GlueTableSchema;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Builds the loader of the declared schema that {@code PARQUET_SCHEMA} names, with the execution
 * role's credentials. Nothing is read here: this runs at init, before the SnapStart snapshot; a
 * Glue table or S3 document is read by the loader, on the first batch (after the restore), and kept
 * ({@link io.kafkas3archiver.schema.SchemaSource#declaring}).
 */
public final class DeclaredSchemas {
  private DeclaredSchemas() {}

  /** The loader; null when no schema is declared. */
  public static Supplier<DeclaredSchema> loader(
      ArchiverConfig config, Function<String, String> env) {
    if (config.parquetSchema().isEmpty()) {
      return null;
    }
    return switch (config.parquetSchema().get()) {
      case DeclaredSchemaRef.Inline inline -> inline::schema;
      case DeclaredSchemaRef.GlueTable table -> {
        ServiceClients clients = new ServiceClients(env);
        String region = clients.functionRegion(config.bucketRegion());
        yield new GlueTableSchema(
            table,
            clients.glueEndpoint(region),
            region,
            CredentialsSource.ExecutionRole.of(env).provider());
      }
      case DeclaredSchemaRef.S3Document doc ->
          () -> read(config, doc, CredentialsSource.ExecutionRole.of(env));
    };
  }

  /** Only an inline schema: for priming, which must not call Glue or S3 (null otherwise). */
  public static Supplier<DeclaredSchema> inlineOnly(ArchiverConfig config) {
    return config.parquetSchema().orElse(null) instanceof DeclaredSchemaRef.Inline inline
        ? inline::schema
        : null;
  }

  private static DeclaredSchema read(
      ArchiverConfig config, DeclaredSchemaRef.S3Document doc, CredentialsSource role) {
    String text;
    try (var s3 = S3Clients.build(config, role.provider())) {
      text =
          s3.getObjectAsBytes(r -> r.bucket(doc.bucket()).key(doc.key()))
              .asString(StandardCharsets.UTF_8);
    } catch (AwsServiceException e) {
      int status = e.statusCode();
      String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
      boolean retryable = status >= 500 || status == 429;
      throw new DeclaredSchemaException(
          "could not read "
              + doc.describe()
              + " ("
              + code
              + " "
              + status
              + "); "
              + (status == 404
                  ? "upload the schema document there, or fix PARQUET_SCHEMA"
                  : status == 403
                      ? "grant the execution role s3:GetObject on arn:aws:s3:::"
                          + doc.bucket()
                          + "/"
                          + doc.key()
                      : "the batch is retried")
              + "; the batch fails and the event source mapping retries it",
          retryable,
          e);
    } catch (SdkException e) {
      throw new DeclaredSchemaException(
          "could not read "
              + doc.describe()
              + " ("
              + e.getClass().getSimpleName()
              + "); check that the function can reach S3; the batch fails and the event source"
              + " mapping retries it",
          true,
          e);
    }
    try {
      return DeclaredSchema.parse(text, doc.describe());
    } catch (IllegalArgumentException e) {
      throw new DeclaredSchemaException(
          doc.describe()
              + " is not a valid schema ("
              + e.getMessage()
              + "); legal: "
              + DeclaredSchemaRef.LEGAL,
          false,
          e);
    }
  }
}
