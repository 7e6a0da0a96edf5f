package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs in a fresh JVM on the shaded iceberg jar alone (IcebergJarIT): builds the handler the way
 * the Lambda runtime does and archives one event, printing how long the init and the first batch
 * took. It may use only classes the jar ships.
 */
public final class JarSmoke {
  private JarSmoke() {}

  public static void main(String[] args) throws Exception {
    long jvmStart = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
    long t0 = System.currentTimeMillis();
    Map<String, String> env = new HashMap<>();
    for (String pair : args[0].split(",")) {
      int eq = pair.indexOf('=');
      env.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    ArchiverHandler handler = new ArchiverHandler(ArchiverConfig.fromEnv(env), env::get);
    long t1 = System.currentTimeMillis();
    byte[] event = Files.readAllBytes(Path.of(args[1]));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    handler.handleRequest(new ByteArrayInputStream(event), out, null);
    long t2 = System.currentTimeMillis();
    System.err.println(
        "JarSmoke: jvm-to-main "
            + (t0 - jvmStart)
            + " ms, init "
            + (t1 - t0)
            + " ms, first batch "
            + (t2 - t1)
            + " ms, response "
            + out.toString(StandardCharsets.UTF_8));
  }
}
