package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.testing.S3ProxyServer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;

/**
 * A real Iceberg REST catalog on 127.0.0.1: Iceberg's own RESTCatalogAdapter and servlet (from
 * iceberg-core's tests jar) over a JdbcCatalog on in-memory SQLite, with metadata and data on
 * S3Proxy. It answers commits with 409 on a stale base, as a production catalog does.
 */
final class RestCatalogServer implements AutoCloseable {
  static final String WAREHOUSE_BUCKET = "warehouse";

  private final Server server;
  private final JdbcCatalog backend;
  private final LongAdder requests;
  private final Map<String, LongAdder> byMethod;

  private RestCatalogServer(
      Server server, JdbcCatalog backend, LongAdder requests, Map<String, LongAdder> byMethod) {
    this.server = server;
    this.backend = backend;
    this.requests = requests;
    this.byMethod = byMethod;
  }

  static RestCatalogServer start(S3ProxyServer s3) throws Exception {
    return start(s3, 0);
  }

  /** On this 127.0.0.1 port (0: any free one); the local run's --serve uses a fixed one. */
  static RestCatalogServer start(S3ProxyServer s3, int port) throws Exception {
    Map<String, String> props = new HashMap<>(s3Properties(s3));
    props.put(
        CatalogProperties.URI,
        "jdbc:sqlite:file:cat"
            + UUID.randomUUID().toString().replace("-", "")
            + "?mode=memory&cache=shared");
    props.put("jdbc.schema-version", "V1");
    props.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + WAREHOUSE_BUCKET + "/tables");
    JdbcCatalog backend = new JdbcCatalog();
    backend.initialize("backend", props);

    Server server = new Server(new InetSocketAddress("127.0.0.1", port));
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    LongAdder requests = new LongAdder();
    Map<String, LongAdder> byMethod = new ConcurrentHashMap<>();
    context.addFilter(
        new FilterHolder(
            (Filter)
                (request, response, chain) -> {
                  requests.increment();
                  byMethod
                      .computeIfAbsent(
                          ((HttpServletRequest) request).getMethod(), m -> new LongAdder())
                      .increment();
                  chain.doFilter(request, response);
                }),
        "/*",
        EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(
        new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
    server.setHandler(context);
    server.start();
    return new RestCatalogServer(server, backend, requests, byMethod);
  }

  /** HTTP requests the catalog has answered so far (benchmarks read it). */
  long requests() {
    return requests.sum();
  }

  /** Requests so far per HTTP method (GET loads, POST commits and creates): priced differently. */
  Map<String, Long> requestsByMethod() {
    Map<String, Long> out = new TreeMap<>();
    byMethod.forEach((method, n) -> out.put(method, n.sum()));
    return out;
  }

  /** S3FileIO on S3Proxy (NOTES.md): endpoint, path style, the proxy's keys, a region. */
  static Map<String, String> s3Properties(S3ProxyServer s3) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("http-client.type", "urlconnection");
    props.put("s3.endpoint", s3.endpoint().toString());
    props.put("s3.path-style-access", "true");
    props.put("s3.access-key-id", S3ProxyServer.ACCESS_KEY);
    props.put("s3.secret-access-key", S3ProxyServer.SECRET_KEY);
    props.put("s3.chunked-encoding-enabled", "false");
    props.put("client.region", S3ProxyServer.REGION);
    return props;
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getURI().getPort() + "/");
  }

  JdbcCatalog backend() {
    return backend;
  }

  @Override
  public void close() throws Exception {
    server.stop();
    backend.close();
  }
}
