package io.kafkas3archiver.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server (S3Proxy) on 127.0.0.1 with SigV4 authentication, so wrong keys get a
 * real 403. In memory by default; on disk when given a folder (the local run keeps its data).
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String ACCESS_KEY = "AKIDLOCALTEST0000001";
  public static final String SECRET_KEY = "local-secret-key-for-tests-only";
  public static final String REGION = "us-east-1";

  private final S3Proxy proxy;
  private final Map<String, LongAdder> calls;
  private final boolean tls;

  private S3ProxyServer(S3Proxy proxy, Map<String, LongAdder> calls, boolean tls) {
    this.proxy = proxy;
    this.calls = calls;
    this.tls = tls;
  }

  public static S3ProxyServer inMemory() {
    return start(null, 0, false);
  }

  /**
   * In memory, also serving https on 127.0.0.1 with the key in {@code keyStore} (PKCS12), for
   * benchmarks that must send what Lambda sends: over https the SDK does not sign the body (no
   * SHA-256 of it) and TLS encrypts it, as on AWS. {@link #secureEndpoint()} is its address.
   */
  public static S3ProxyServer inMemoryWithTls(Path keyStore, String password) {
    return start(null, 0, false, keyStore, password);
  }

  /**
   * In memory, counting the store calls behind each S3 request ({@link #storeCalls()}), for
   * benchmarks. The wrapper hides the store's type, and S3Proxy then answered the file formats'
   * PUTs with 501 NotImplemented (ParquetHivePartitionIT): use it only where checked, with
   * Iceberg's S3FileIO (IcebergBench).
   */
  public static S3ProxyServer inMemoryCounting() {
    return start(null, 0, true);
  }

  public static S3ProxyServer onDisk(Path folder) {
    return start(folder, 0, false);
  }

  /** Starts on a fixed port, e.g. to restart a stopped server where clients expect it. */
  public static S3ProxyServer inMemoryOnPort(int port) {
    return start(null, port, false);
  }

  /** Starts on disk on a fixed port: a server stopped and started again keeps its objects. */
  public static S3ProxyServer onDiskOnPort(Path folder, int port) {
    return start(folder, port, false);
  }

  private static S3ProxyServer start(Path folder, int port, boolean counting) {
    return start(folder, port, counting, null, null);
  }

  private static S3ProxyServer start(
      Path folder, int port, boolean counting, Path keyStore, String password) {
    Properties props = new Properties();
    String provider = "transient-nio2";
    if (folder != null) {
      folder.toFile().mkdirs();
      props.setProperty("jclouds.filesystem.basedir", folder.toAbsolutePath().toString());
      provider = "filesystem-nio2";
    }
    BlobStore backing = BlobStores.create(provider, props);
    Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    // Counts what S3Proxy asks of its store (one call per S3 request, roughly): benchmarks read it.
    BlobStore store =
        !counting
            ? backing
            : (BlobStore)
                Proxy.newProxyInstance(
                    BlobStore.class.getClassLoader(),
                    new Class<?>[] {BlobStore.class},
                    (self, method, args) -> {
                      calls.computeIfAbsent(method.getName(), k -> new LongAdder()).increment();
                      try {
                        return method.invoke(backing, args);
                      } catch (InvocationTargetException e) {
                        throw e.getCause();
                      }
                    });
    S3Proxy.Builder builder =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY);
    if (keyStore != null) {
      builder
          .secureEndpoint(URI.create("https://127.0.0.1:0"))
          .keyStore(keyStore.toAbsolutePath().toString(), password);
    }
    S3Proxy proxy = builder.build();
    try {
      proxy.start();
      long until = System.currentTimeMillis() + 30_000;
      while (!"STARTED".equals(proxy.getState())) {
        if (System.currentTimeMillis() > until) {
          throw new IllegalStateException("S3Proxy did not start within 30 s");
        }
        Thread.sleep(5);
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not start S3Proxy", e);
    }
    return new S3ProxyServer(proxy, calls, keyStore != null);
  }

  /** Store calls by method ({@code putBlob}, {@code getBlob}, {@code blobMetadata}, ...) so far. */
  public Map<String, Long> storeCalls() {
    Map<String, Long> out = new TreeMap<>();
    calls.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  public int port() {
    return proxy.getPort();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port());
  }

  /** The https address of a server started {@link #inMemoryWithTls}. */
  public URI secureEndpoint() {
    if (!tls) {
      throw new IllegalStateException("this S3Proxy serves http only: start it inMemoryWithTls");
    }
    return URI.create("https://127.0.0.1:" + proxy.getSecurePort());
  }

  public void createBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }

  /** A client with the right keys, for setting up and reading back. */
  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("could not stop S3Proxy", e);
    }
  }
}
