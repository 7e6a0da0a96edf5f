package io.kafkas3archiver.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Confluent-compatible registry of our own, in process on 127.0.0.1: {@code GET
 * /schemas/ids/{id}} answers {@code {"schema": "...", "schemaType": "..."}} as Confluent's does (no
 * {@code schemaType} for Avro), 404 for an unknown id, 401 without the expected basic auth. Chosen
 * over a real Confluent registry, which needs Kafka and a JVM service of its own, because the
 * function uses that one endpoint only; it also counts the calls, so caching is observable.
 */
final class ConfluentRegistryStub implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final Map<String, Map<String, String>> schemas = new ConcurrentHashMap<>();
  final AtomicInteger requests = new AtomicInteger();
  private volatile String expectedAuthorization;

  ConfluentRegistryStub() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/schemas/ids/",
        exchange -> {
          requests.incrementAndGet();
          String id = exchange.getRequestURI().getPath().substring("/schemas/ids/".length());
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          int status;
          byte[] body;
          if (expectedAuthorization != null && !expectedAuthorization.equals(auth)) {
            status = 401;
            body = "{\"error_code\":401,\"message\":\"Unauthorized\"}".getBytes();
          } else if (!schemas.containsKey(id)) {
            status = 404;
            body = "{\"error_code\":40403,\"message\":\"Schema not found\"}".getBytes();
          } else {
            status = 200;
            body = JSON.writeValueAsBytes(schemas.get(id));
          }
          exchange
              .getResponseHeaders()
              .add("Content-Type", "application/vnd.schemaregistry.v1+json");
          exchange.sendResponseHeaders(status, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  void avro(String id, String schema) {
    schemas.put(id, Map.of("schema", schema));
  }

  void protobuf(String id, String schema) {
    schemas.put(id, Map.of("schema", schema, "schemaType", "PROTOBUF"));
  }

  void requireBasicAuth(String user, String password) {
    expectedAuthorization =
        "Basic "
            + java.util.Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
