package io.kafkas3archiver.redrive;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.sun.net.httpserver.HttpServer;
import io.kafkas3archiver.testing.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one Lambda API call the redrive makes, {@code POST /2015-03-31/functions/{name}/invocations}
 * (RequestResponse), on 127.0.0.1, answered by a real handler in this JVM: its output is the
 * response body; a thrown error becomes {@code X-Amz-Function-Error: Unhandled} with the runtime's
 * {@code {"errorMessage","errorType"}} body. No Lambda emulator runs functions without Docker here,
 * so this stands in for the service; the handler behind it is the archiver's own.
 */
final class LambdaInvokeStub implements AutoCloseable {
  private final HttpServer server;
  private final AtomicInteger invocations = new AtomicInteger();

  LambdaInvokeStub(String functionName, RequestStreamHandler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/2015-03-31/functions/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          byte[] event = exchange.getRequestBody().readAllBytes();
          byte[] body;
          if (!path.equals("/2015-03-31/functions/" + functionName + "/invocations")) {
            body =
                ("{\"Type\":\"User\",\"message\":\"Function not found: " + path + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("X-Amzn-ErrorType", "ResourceNotFoundException");
            exchange.sendResponseHeaders(404, body.length);
          } else {
            invocations.incrementAndGet();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
              handler.handleRequest(
                  new ByteArrayInputStream(event), out, new LocalContext(900_000));
              body = out.toByteArray();
            } catch (IOException | RuntimeException e) {
              body =
                  ("{\"errorMessage\":\""
                          + String.valueOf(e.getMessage()).replace("\"", "'")
                          + "\",\"errorType\":\""
                          + e.getClass().getSimpleName()
                          + "\"}")
                      .getBytes(StandardCharsets.UTF_8);
              exchange.getResponseHeaders().add("X-Amz-Function-Error", "Unhandled");
            }
            exchange.getResponseHeaders().add("X-Amz-Executed-Version", "1");
            exchange.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
          }
          if (body.length > 0) {
            try (OutputStream os = exchange.getResponseBody()) {
              os.write(body);
            }
          }
          exchange.close();
        });
    server.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  int invocations() {
    return invocations.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
