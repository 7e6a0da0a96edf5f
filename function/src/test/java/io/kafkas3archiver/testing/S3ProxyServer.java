package io.kafkas3archiver.testing;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
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

  private S3ProxyServer(S3Proxy proxy) {
    this.proxy = proxy;
  }

  public static S3ProxyServer inMemory() {
    return start(null, 0);
  }

  public static S3ProxyServer onDisk(Path folder) {
    return start(folder, 0);
  }

  /** Starts on a fixed port, e.g. to restart a stopped server where clients expect it. */
  public static S3ProxyServer inMemoryOnPort(int port) {
    return start(null, port);
  }

  /** Starts on disk on a fixed port: a server stopped and started again keeps its objects. */
  public static S3ProxyServer onDiskOnPort(Path folder, int port) {
    return start(folder, port);
  }

  private static S3ProxyServer start(Path folder, int port) {
    Properties props = new Properties();
    String provider = "transient-nio2";
    if (folder != null) {
      folder.toFile().mkdirs();
      props.setProperty("jclouds.filesystem.basedir", folder.toAbsolutePath().toString());
      provider = "filesystem-nio2";
    }
    BlobStore store = BlobStores.create(provider, props);
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
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
    return new S3ProxyServer(proxy);
  }

  public int port() {
    return proxy.getPort();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port());
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
