package io.kafkas3archiver.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.upload.CredentialsSource;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the CDK app and template.yaml set for S3 Tables (ICEBERG_CATALOG=rest, the table bucket ARN
 * as warehouse, ICEBERG_SIGNING_NAME=s3tables) makes the function's REST catalog SigV4-sign every
 * call for service s3tables in BUCKET_REGION. A small HTTP server on 127.0.0.1 stands in for
 * s3tables.&lt;region&gt;.amazonaws.com/iceberg and records each request's Authorization header; it
 * answers the config call and a table lookup (404) the way the Iceberg REST spec says.
 */
class S3TablesSigningIT {
  static final String WAREHOUSE = "arn:aws:s3tables:eu-central-1:111122223333:bucket/archive";
  static final String ACCESS_KEY = "s3tables-signing-test-key";

  record Request(String method, String path, String query, String authorization) {}

  private HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void answer(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    requests.add(
        new Request(
            exchange.getRequestMethod(),
            path,
            exchange.getRequestURI().getRawQuery(),
            exchange.getRequestHeaders().getFirst("Authorization")));
    int status;
    String body;
    if (path.endsWith("/v1/config")) {
      status = 200;
      body = "{\"defaults\":{},\"overrides\":{}}";
    } else {
      status = 404;
      body =
          "{\"error\":{\"message\":\"Table does not exist: kafka.orders\","
              + "\"type\":\"NoSuchTableException\",\"code\":404}}";
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private Map<String, String> env(String... extra) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", "archive-errors");
    env.put("AWS_REGION", "eu-central-1");
    env.put("AWS_ACCESS_KEY_ID", ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", "s3tables-signing-test-secret");
    env.put("OUTPUT_FORMAT", "iceberg");
    env.put("ICEBERG_CATALOG", "rest");
    env.put("ICEBERG_REST_URI", "http://127.0.0.1:" + server.getAddress().getPort() + "/");
    env.put("ICEBERG_WAREHOUSE", WAREHOUSE);
    env.put("ICEBERG_DATABASE", "kafka");
    for (int i = 0; i < extra.length; i += 2) {
      env.put(extra[i], extra[i + 1]);
    }
    return env;
  }

  private Catalog open(Map<String, String> env) {
    ArchiverConfig config = ArchiverConfig.fromEnv(env);
    return IcebergCatalogs.open(
        IcebergSettings.fromEnv(config, env::get),
        config,
        CredentialsSource.from(config, env::get),
        env::get);
  }

  @Test
  void shouldSignEveryCatalogCallForS3TablesInTheBucketRegion() throws Exception {
    Catalog catalog = open(env("ICEBERG_SIGNING_NAME", "s3tables"));
    assertThatThrownBy(() -> catalog.loadTable(TableIdentifier.of("kafka", "orders")))
        .isInstanceOf(NoSuchTableException.class);
    ((AutoCloseable) catalog).close();

    assertThat(requests)
        .as("the config call and the table lookup")
        .extracting(Request::path)
        .contains("/v1/config", "/v1/namespaces/kafka/tables/orders");
    assertThat(requests.getFirst().query()).contains("warehouse=arn%3Aaws%3As3tables%3A");
    for (Request r : requests) {
      assertThat(r.authorization())
          .as(r.method() + " " + r.path())
          .startsWith("AWS4-HMAC-SHA256 Credential=" + ACCESS_KEY + "/")
          .matches(
              "AWS4-HMAC-SHA256 Credential="
                  + ACCESS_KEY
                  + "/\\d{8}/eu-central-1/s3tables/"
                  + "aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}");
    }
  }

  @Test
  void shouldSendNoSignatureWithoutASigningName() throws Exception {
    Catalog catalog = open(env());
    assertThatThrownBy(() -> catalog.loadTable(TableIdentifier.of("kafka", "orders")))
        .isInstanceOf(NoSuchTableException.class);
    ((AutoCloseable) catalog).close();

    assertThat(requests).isNotEmpty().allSatisfy(r -> assertThat(r.authorization()).isNull());
  }
}
