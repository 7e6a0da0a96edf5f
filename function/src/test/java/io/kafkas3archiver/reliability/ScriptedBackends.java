package io.kafkas3archiver.reliability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * One HTTP server on 127.0.0.1 that answers as S3 (path style), a Confluent registry ({@code GET
 * /schemas/ids/…}) and Glue ({@code POST /glue}, {@code X-Amz-Target: AWSGlue.…}) would, each with
 * whatever the test scripts: the worst answers a backend can give, such as an S3 error whose
 * message quotes the key it refused, or a registry body full of canaries. It records the keys S3
 * was asked for.
 */
final class ScriptedBackends implements AutoCloseable {
  /** One answer: status, headers and body. */
  record Answer(int status, Map<String, String> headers, String body) {
    static Answer of(int status, String body) {
      return new Answer(status, Map.of(), body);
    }

    /** An S3 error document whose message and resource quote the key, as some servers do. */
    static Answer s3Error(int status, String code, String key, Map<String, String> headers) {
      String body =
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
              + code
              + "</Code><Message>refused "
              + key
              + " ("
              + SdkHttpUtils.urlEncodeIgnoreSlashes(key)
              + ")</Message><Key>"
              + key
              + "</Key><Resource>/"
              + key
              + "</Resource><RequestId>R1</RequestId></Error>";
      return new Answer(status, headers, body);
    }
  }

  /** What to answer, given the method and the request's decoded path (for S3: bucket/key). */
  interface Script {
    Answer answer(String method, String path);
  }

  private final HttpServer server;
  private volatile Script s3 = (method, path) -> Answer.of(200, "");
  private volatile Script confluent = (method, path) -> Answer.of(404, "");
  private volatile Script glue = (method, path) -> Answer.of(400, "");

  ScriptedBackends() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::answer);
    server.start();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  void s3(Script script) {
    this.s3 = script;
  }

  void confluent(Script script) {
    this.confluent = script;
  }

  void glue(Script script) {
    this.glue = script;
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      String method = exchange.getRequestMethod();
      String rawPath = exchange.getRequestURI().getRawPath();
      String path = URLDecoder.decode(rawPath.replace("+", "%2B"), StandardCharsets.UTF_8);
      Answer a;
      if (path.startsWith("/schemas/ids/")) {
        a = confluent.answer(method, path);
      } else if (path.startsWith("/glue")) {
        a = glue.answer(method, path);
      } else {
        a = s3.answer(method, path.substring(1));
      }
      byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
      a.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
      boolean empty = method.equals("HEAD") || body.length == 0;
      exchange.sendResponseHeaders(a.status(), empty ? -1 : body.length);
      if (!empty) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
