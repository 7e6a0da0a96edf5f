package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.testing.EventBuilder;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

/** S3Proxy + the REST catalog, and handlers configured for OUTPUT_FORMAT=iceberg against them. */
final class IcebergHarness implements AutoCloseable {
  static final String BUCKET = "archive";
  static final String DATABASE = "kafka";

  final S3ProxyServer s3;
  final RestCatalogServer rest;
  private final RESTCatalog reader;

  IcebergHarness() throws Exception {
    this(S3ProxyServer.inMemory());
  }

  /** Over this S3Proxy, e.g. one that counts requests (IcebergBench). */
  IcebergHarness(S3ProxyServer s3) throws Exception {
    this.s3 = s3;
    s3.createBucket(BUCKET);
    s3.createBucket(RestCatalogServer.WAREHOUSE_BUCKET);
    rest = RestCatalogServer.start(s3);
    reader = new RESTCatalog();
    Map<String, String> props = new HashMap<>(RestCatalogServer.s3Properties(s3));
    props.put("uri", rest.uri().toString());
    reader.initialize("reader", props);
  }

  Map<String, String> env(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", BUCKET);
    env.put("AWS_REGION", S3ProxyServer.REGION);
    env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    env.put("S3_FORCE_PATH_STYLE", "true");
    env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
    env.put("OUTPUT_FORMAT", "iceberg");
    env.put("ICEBERG_CATALOG", "rest");
    env.put("ICEBERG_REST_URI", rest.uri().toString());
    env.put("ICEBERG_DATABASE", DATABASE);
    env.put("TITLE", "iceberg-it");
    env.putAll(extra);
    return env;
  }

  /**
   * A function instance. The handler's log and EMF stream is fixed when it is built, so each
   * instance prints into its own buffer, and concurrent instances never mix their lines.
   */
  Function function(Map<String, String> extra) {
    Map<String, String> env = env(extra);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    synchronized (IcebergHarness.class) {
      PrintStream old = System.out;
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      try {
        return new Function(new ArchiverHandler(ArchiverConfig.fromEnv(env), env::get), printed);
      } finally {
        System.setOut(old);
      }
    }
  }

  static final class Function {
    final ArchiverHandler handler;
    private final ByteArrayOutputStream printed;

    Function(ArchiverHandler handler, ByteArrayOutputStream printed) {
      this.handler = handler;
      this.printed = printed;
    }

    /** Runs one invocation; returns its response and the lines it printed (log line, EMF). */
    synchronized Invocation invoke(EventBuilder event) {
      return invoke(event.stream());
    }

    /** {@code {"action":"maintain"}}, as the infrastructure's schedule sends it. */
    Invocation maintain() {
      return invoke(
          new ByteArrayInputStream("{\"action\":\"maintain\"}".getBytes(StandardCharsets.UTF_8)));
    }

    synchronized Invocation invoke(InputStream event) {
      printed.reset();
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      try {
        handler.handleRequest(event, response, new LocalContext(120_000));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new Invocation(
          printed.toString(StandardCharsets.UTF_8), response.toString(StandardCharsets.UTF_8));
    }
  }

  record Invocation(String printed, String response) {
    List<String> lines() {
      return List.of(printed.split("\n"));
    }
  }

  Table table(String name) {
    return reader.loadTable(TableIdentifier.of(Namespace.of(DATABASE), name));
  }

  List<Record> rows(String name) {
    Table t = table(name);
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> it = IcebergGenerics.read(t).build()) {
      it.forEach(r -> out.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    reader.close();
    rest.close();
    s3.close();
  }
}
