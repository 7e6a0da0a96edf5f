package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.local.KafkaLocalRun;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * The local run with {@code OUTPUT_FORMAT=iceberg} (docs/iceberg.md, "Run it locally"): the real
 * handler from this artifact, the in-process REST catalog and an in-memory S3Proxy, fed either an
 * event file or, with {@code --kafka} / {@code --bootstrap-servers}, a real Kafka topic through the
 * event-source emulator ({@link KafkaLocalRun}). With {@code --serve} the S3 server and the catalog
 * stay up on fixed 127.0.0.1 ports until Ctrl-C, and the run prints PyIceberg and DuckDB snippets
 * that read the table.
 *
 * <p>Both servers live in memory and start empty: each {@code --kafka} run starts a fresh broker
 * whose offsets begin at 0, which a kept table would skip as already committed.
 */
public final class IcebergLocalRun {
  static final int S3_PORT = 9000;
  static final int CATALOG_PORT = 8181;
  static final String BUCKET = "local-archive";

  private static final String USAGE =
      """
      usage: IcebergLocalRun [--serve] [--s3-port N (9000)] [--catalog-port N (8181)] [event.json]
             IcebergLocalRun [--serve] [...] --kafka | --bootstrap-servers ... (LocalRun's options)
      --serve keeps the embedded S3 server and the REST catalog up until Ctrl-C; without it they
      listen on free ports and stop at the end of the run.""";

  private IcebergLocalRun() {}

  public static void main(String[] args) throws Exception {
    Served served = run(args, System.getenv());
    if (!served.serving()) {
      served.close();
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(served::close));
    System.out.println("serving until Ctrl-C ...");
    new CountDownLatch(1).await();
  }

  /** The servers a run leaves up; the caller closes them. */
  record Served(S3ProxyServer s3, RestCatalogServer catalog, boolean serving, List<String> snippets)
      implements AutoCloseable {
    @Override
    public void close() {
      try {
        catalog.close();
      } catch (Exception e) {
        System.err.println("stopping the catalog: " + e);
      }
      s3.close();
    }
  }

  /**
   * Runs the handler into a fresh table and prints what it holds. With {@code --serve} also prints
   * the reader snippets ({@link Served#snippets()}); the servers are still up on return.
   */
  static Served run(String[] args, Map<String, String> environment) throws Exception {
    boolean serve = false;
    Integer s3Port = null;
    Integer catalogPort = null;
    List<String> passed = new ArrayList<>();
    try {
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--serve" -> serve = true;
          case "--s3-port" -> s3Port = Integer.parseInt(args[++i]);
          case "--catalog-port" -> catalogPort = Integer.parseInt(args[++i]);
          default -> passed.add(args[i]);
        }
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("bad option: " + e.getMessage() + "\n" + USAGE, e);
    }
    Map<String, String> env = new HashMap<>(environment);
    env.putIfAbsent("BUCKET_NAME", BUCKET);
    env.putIfAbsent("AWS_REGION", S3ProxyServer.REGION);
    env.putIfAbsent("TITLE", "local-run");
    env.putIfAbsent("ICEBERG_DATABASE", IcebergHarness.DATABASE);
    env.put("OUTPUT_FORMAT", "iceberg");
    // A bad setting fails before S3Proxy's non-daemon threads exist (they would keep exec:java up).
    ArchiverConfig.fromEnv(env);

    int s3Listen = requireFree(s3Port != null ? s3Port : serve ? S3_PORT : 0, "--s3-port");
    int catalogListen =
        requireFree(catalogPort != null ? catalogPort : serve ? CATALOG_PORT : 0, "--catalog-port");
    S3ProxyServer s3 = S3ProxyServer.inMemoryOnPort(s3Listen);
    RestCatalogServer catalog = null;
    try {
      s3.createBucket(env.get("BUCKET_NAME"));
      s3.createBucket(RestCatalogServer.WAREHOUSE_BUCKET);
      catalog = RestCatalogServer.start(s3, catalogListen);
      // The function sees the embedded servers exactly as it would see S3 and a REST catalog in
      // Lambda: through its environment, with the S3 server's keys as its credentials.
      env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
      env.put("S3_FORCE_PATH_STYLE", "true");
      env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
      env.remove("AWS_SESSION_TOKEN");
      env.put("ICEBERG_CATALOG", "rest");
      env.put("ICEBERG_REST_URI", catalog.uri().toString());
      env.remove("ICEBERG_WAREHOUSE");
      env.remove("ICEBERG_SIGNING_NAME");
      System.out.println("embedded S3 server at " + s3.endpoint() + " (in memory)");
      System.out.println(
          "Iceberg REST catalog at "
              + catalog.uri()
              + " (in memory), warehouse s3://"
              + RestCatalogServer.WAREHOUSE_BUCKET
              + "/tables");

      TableTarget target = new TableTarget(catalog, s3, env.get("ICEBERG_DATABASE"), serve);
      String[] rest = passed.toArray(String[]::new);
      if (KafkaLocalRun.wants(rest)) {
        // No folder: AWS_ENDPOINT_URL_S3 is set, so KafkaLocalRun starts no S3 server of its own.
        KafkaLocalRun.run(rest, env, Path.of(".local-s3"), target);
      } else {
        invokeOnce(rest, env, target);
      }
      return new Served(s3, catalog, serve, target.snippets);
    } catch (Exception | Error e) {
      if (catalog != null) {
        catalog.close();
      }
      s3.close();
      throw e;
    }
  }

  /** A fixed port already taken fails here, naming the option that moves it. */
  private static int requireFree(int port, String option) {
    if (port == 0) {
      return 0;
    }
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return port;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "127.0.0.1:"
              + port
              + " is not free ("
              + e.getMessage()
              + "): stop what listens there, or pass "
              + option
              + " N (0 picks a free port)\n"
              + USAGE,
          e);
    }
  }

  private static void invokeOnce(String[] args, Map<String, String> env, TableTarget target)
      throws IOException {
    if (args.length > 1) {
      throw new IllegalArgumentException("one event file at most\n" + USAGE);
    }
    Path event = Path.of(args.length == 1 ? args[0] : "events/msk-event.json");
    ArchiverConfig config = ArchiverConfig.fromEnv(env);
    ArchiverHandler handler = target.handler(config, null, env);
    ByteArrayOutputStream response = new ByteArrayOutputStream();
    System.out.println("invoking the handler with " + event + " ...");
    try (InputStream in = Files.newInputStream(event)) {
      handler.handleRequest(in, response, new LocalContext(60_000));
    }
    System.out.println("response: " + response.toString(StandardCharsets.UTF_8));
    target.report(config, null);
  }

  /** The table side: the handler with Lambda's wiring, and the table read back at the end. */
  private static final class TableTarget implements KafkaLocalRun.Target {
    private final RestCatalogServer catalog;
    private final S3ProxyServer s3;
    private final String database;
    private final boolean serve;
    final List<String> snippets = new ArrayList<>();

    TableTarget(RestCatalogServer catalog, S3ProxyServer s3, String database, boolean serve) {
      this.catalog = catalog;
      this.s3 = s3;
      this.database = database;
      this.serve = serve;
    }

    @Override
    public ArchiverHandler handler(
        ArchiverConfig config, AwsCredentialsProvider credentials, Map<String, String> env) {
      // The constructor Lambda's runtime reaches: credentials and ICEBERG_* from the environment,
      // the table writer found through META-INF/services in this artifact.
      return new ArchiverHandler(config, env::get);
    }

    @Override
    public void report(ArchiverConfig config, AwsCredentialsProvider credentials) {
      Map<String, String> props = new HashMap<>(RestCatalogServer.s3Properties(s3));
      props.put("uri", catalog.uri().toString());
      // Scans report metrics in the background, which would race the reader's close below.
      props.put("rest-metrics-reporting-enabled", "false");
      RESTCatalog reader = new RESTCatalog();
      reader.initialize("local-run-reader", props);
      try (reader) {
        List<TableIdentifier> tables = reader.listTables(Namespace.of(database));
        if (tables.isEmpty()) {
          System.out.println("no table in namespace " + database + ": nothing was committed");
        }
        for (TableIdentifier id : tables) {
          describe(reader.loadTable(id), id);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void describe(Table table, TableIdentifier id) throws IOException {
      int snapshots = 0;
      for (Snapshot ignored : table.snapshots()) {
        snapshots++;
      }
      Snapshot current = table.currentSnapshot();
      Map<Integer, List<Long>> offsets = new TreeMap<>();
      try (CloseableIterable<Record> rows =
          IcebergGenerics.read(table).select("kafka_partition", "kafka_offset").build()) {
        for (Record r : rows) {
          offsets
              .computeIfAbsent((Integer) r.getField("kafka_partition"), p -> new ArrayList<>())
              .add((Long) r.getField("kafka_offset"));
        }
      }
      String metadata = ((HasTableOperations) table).operations().current().metadataFileLocation();
      System.out.printf(
          Locale.ROOT,
          "table %s: %d snapshot(s), %s row(s) in %s data file(s), partitioned by %s%n",
          id,
          snapshots,
          current == null ? "0" : current.summary().get("total-records"),
          current == null ? "0" : current.summary().get("total-data-files"),
          table.spec().fields().stream()
              .map(f -> f.transform() + "(" + table.schema().findColumnName(f.sourceId()) + ")")
              .collect(Collectors.joining(", ")));
      if (current != null) {
        System.out.println(
            "  committed offsets in the newest snapshot's summary: "
                + current.summary().entrySet().stream()
                    .filter(e -> e.getKey().startsWith("kafka-s3-archiver.offset."))
                    .map(
                        e ->
                            e.getKey().substring("kafka-s3-archiver.offset.".length())
                                + "="
                                + e.getValue())
                    .sorted()
                    .collect(Collectors.joining(", ")));
      }
      offsets.forEach(
          (p, os) ->
              System.out.printf(
                  Locale.ROOT,
                  "  partition %d: %d rows, %d distinct offsets, %d..%d (Iceberg's Java reader)%n",
                  p,
                  os.size(),
                  os.stream().distinct().count(),
                  os.stream().mapToLong(Long::longValue).min().orElse(-1),
                  os.stream().mapToLong(Long::longValue).max().orElse(-1)));
      System.out.println("  newest metadata file: " + metadata);
      if (!serve) {
        System.out.println(
            "  (add --serve to keep the S3 server and the catalog up and query it with PyIceberg"
                + " or DuckDB)");
        return;
      }
      String pyiceberg = pyIceberg(id);
      String duckdb = duckDb(metadata);
      snippets.add(pyiceberg);
      snippets.add(duckdb);
      System.out.println();
      System.out.println("Query it from another terminal, with PyIceberg through the catalog:");
      System.out.println();
      System.out.println(pyiceberg);
      System.out.println();
      System.out.println("or with DuckDB's iceberg extension, from the newest metadata file:");
      System.out.println();
      System.out.println(duckdb);
      System.out.println();
    }

    private String pyIceberg(TableIdentifier id) {
      return String.format(
          Locale.ROOT,
          """
          .venv/bin/python - <<'EOF'
          from pyiceberg.catalog import load_catalog
          catalog = load_catalog("local", **{
              "type": "rest", "uri": "%s",
              "s3.endpoint": "%s", "s3.region": "%s", "s3.force-virtual-addressing": "false",
              "s3.access-key-id": "%s", "s3.secret-access-key": "%s"})
          table = catalog.load_table("%s")
          summary = table.current_snapshot().summary
          print({k: v for k, v in summary.additional_properties.items() if k.startswith("kafka-s3-archiver")})
          rows = table.scan(selected_fields=("kafka_partition", "kafka_offset")).to_arrow().to_pylist()
          for p in sorted({r["kafka_partition"] for r in rows}):
              offsets = [r["kafka_offset"] for r in rows if r["kafka_partition"] == p]
              print(f"partition {p}: {len(offsets)} rows, {len(set(offsets))} distinct offsets, {min(offsets)}..{max(offsets)}")
          print(table.scan(limit=1).to_arrow().to_pylist()[0])
          EOF""",
          catalog.uri(),
          s3.endpoint(),
          S3ProxyServer.REGION,
          S3ProxyServer.ACCESS_KEY,
          S3ProxyServer.SECRET_KEY,
          id);
    }

    private String duckDb(String metadata) {
      return String.format(
          Locale.ROOT,
          """
          .venv/bin/python - <<'EOF'
          import duckdb, pathlib
          con = duckdb.connect()
          con.execute("SET autoinstall_known_extensions = false")
          con.execute(f"SET extension_directory = '{pathlib.Path(duckdb.__file__).parent.parent / 'duckdb_ext' / 'extensions'}'")
          con.execute("LOAD httpfs; LOAD avro; LOAD iceberg")
          con.execute(\"""CREATE SECRET local_s3 (TYPE s3, KEY_ID '%s', SECRET '%s',
              REGION '%s', ENDPOINT '%s', URL_STYLE 'path', USE_SSL false)\""")
          con.sql(\"""SELECT kafka_partition, count(*) AS records, count(DISTINCT kafka_offset) AS offsets,
                 min(kafka_offset) AS first, max(kafka_offset) AS last
              FROM iceberg_scan('%s')
              GROUP BY ALL ORDER BY 1\""").show()
          EOF""",
          S3ProxyServer.ACCESS_KEY,
          S3ProxyServer.SECRET_KEY,
          S3ProxyServer.REGION,
          s3.endpoint().getHost() + ":" + s3.endpoint().getPort(),
          metadata);
    }
  }
}
