package io.kafkas3archiver.bench;

import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code -Dbench.tls=true}: the forks talk to S3Proxy over https, as a function talks to S3. Over
 * plain http the SDK signs the body (a SHA-256 of every byte, about 80% of the PutObject-only
 * function's CPU under C1 here); over https it does not, and TLS encrypts the body instead. A
 * self-signed key for 127.0.0.1 is made with the JDK's keytool, and the forks trust it through
 * {@code javax.net.ssl.trustStore}; nothing else in them changes.
 */
final class BenchTls {
  private static final String PASSWORD = "bench-only-keystore";

  /** Set by {@link #start}: the forks of this run trust it. */
  private static Path trusted;

  private BenchTls() {}

  static S3ProxyServer start(Path work) throws IOException, InterruptedException {
    Path keyStore = work.resolve("s3proxy-tls.p12");
    Path cert = work.resolve("s3proxy-tls.crt");
    Path trustStore = trustStore(work);
    Files.deleteIfExists(keyStore);
    Files.deleteIfExists(cert);
    Files.deleteIfExists(trustStore);
    keytool(
        "-genkeypair",
        "-alias",
        "s3proxy",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=ip:127.0.0.1",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        keyStore.toString(),
        "-storepass",
        PASSWORD);
    keytool(
        "-exportcert",
        "-alias",
        "s3proxy",
        "-keystore",
        keyStore.toString(),
        "-storepass",
        PASSWORD,
        "-rfc",
        "-file",
        cert.toString());
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        "s3proxy",
        "-file",
        cert.toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        trustStore.toString(),
        "-storepass",
        PASSWORD);
    trusted = trustStore;
    return S3ProxyServer.inMemoryWithTls(keyStore, PASSWORD);
  }

  /** The forks' flags that make them trust the key above, and nothing else. */
  static List<String> trustFlags() {
    if (trusted == null) {
      throw new IllegalStateException("BenchTls.start has not made the key yet");
    }
    return List.of(
        "-Djavax.net.ssl.trustStore=" + trusted,
        "-Djavax.net.ssl.trustStorePassword=" + PASSWORD,
        "-Djavax.net.ssl.trustStoreType=PKCS12");
  }

  private static Path trustStore(Path work) {
    return work.resolve("s3proxy-trust.p12").toAbsolutePath();
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
    }
  }
}
