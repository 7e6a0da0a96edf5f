package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.upload.CredentialsSource;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.aws.glue.GlueCatalog;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalog;

/** Opens the configured catalog, with S3FileIO on the archiver's endpoint and credentials. */
final class IcebergCatalogs {
  private IcebergCatalogs() {}

  static Catalog open(
      IcebergSettings settings,
      ArchiverConfig config,
      CredentialsSource credentials,
      Function<String, String> env) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
    // Iceberg's default is the Apache client; the jar ships url-connection only (NOTES.md).
    props.put("http-client.type", "urlconnection");
    props.put("client.region", config.bucketRegion());
    if (credentials != null) {
      ArchiverCredentials.use(credentials.provider());
      props.put("client.credentials-provider", ArchiverCredentials.class.getName());
    }
    config
        .endpoint()
        .ifPresent(
            endpoint -> {
              props.put("s3.endpoint", endpoint.toString());
              if ("http".equals(endpoint.getScheme())) {
                // Over plain http the SDK streams aws-chunked bodies, which S3-compatible servers
                // have answered before reading (NOTES.md); a plain body avoids that.
                props.put("s3.chunked-encoding-enabled", "false");
              }
            });
    if (config.forcePathStyle()) {
      props.put("s3.path-style-access", "true");
    }
    return switch (settings.catalog()) {
      case GLUE -> {
        props.put(
            CatalogProperties.WAREHOUSE_LOCATION,
            settings
                .warehouse()
                .orElse(
                    "s3://"
                        + config.bucketName()
                        + (config.keyPrefix().isEmpty() ? "" : "/" + config.keyPrefix())));
        String glueEndpoint = env.apply("AWS_ENDPOINT_URL_GLUE");
        if (glueEndpoint != null && !glueEndpoint.isBlank()) {
          props.put("glue.endpoint", glueEndpoint.trim());
        }
        GlueCatalog glue = new GlueCatalog();
        glue.initialize("glue", props);
        yield glue;
      }
      case REST -> {
        props.put(CatalogProperties.URI, settings.restUri().orElseThrow().toString());
        settings.warehouse().ifPresent(w -> props.put(CatalogProperties.WAREHOUSE_LOCATION, w));
        // Iceberg's client POSTs a scan/commit metrics report after every commit: one catalog
        // request per batch (billed by S3 Tables) that nothing here reads. The log line and EMF
        // carry the commit's figures instead.
        props.put("rest-metrics-reporting-enabled", "false");
        settings
            .signingName()
            .ifPresent(
                name -> {
                  props.put("rest.sigv4-enabled", "true");
                  props.put("rest.signing-name", name);
                  props.put("rest.signing-region", config.bucketRegion());
                });
        RESTCatalog rest = new RESTCatalog();
        rest.initialize("rest", props);
        yield rest;
      }
    };
  }
}
