package io.kafkas3archiver.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Runs the preflight through the shaded jar that ships, loaded alone (no test classpath), against
 * S3Proxy: proves the jar holds everything the SDK needs at run time (it once lacked slf4j-api, and
 * every SDK client failed to build), and that the handler's preflight branch works there.
 */
class ShadedJarPreflightIT {

  @Test
  void shouldPassPreflightFromTheShadedJarAlone() throws Exception {
    Path jar = Path.of("target", "kafka-s3-archiver.jar");
    assertThat(jar).as("run after 'package'").exists();
    try (S3ProxyServer s3 = S3ProxyServer.inMemory();
        URLClassLoader loader =
            new URLClassLoader(
                new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      s3.createBucket("shaded");
      Map<String, String> env = new HashMap<>();
      env.put("BUCKET_NAME", "shaded");
      env.put("AWS_REGION", S3ProxyServer.REGION);
      env.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
      env.put("S3_FORCE_PATH_STYLE", "true");
      env.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);

      Class<?> configType = loader.loadClass("io.kafkas3archiver.config.ArchiverConfig");
      Object config = configType.getMethod("fromEnv", Map.class).invoke(null, env);
      Class<?> handlerType = loader.loadClass("io.kafkas3archiver.ArchiverHandler");
      Function<String, String> seam = env::get;
      Object handler =
          handlerType.getConstructor(configType, Function.class).newInstance(config, seam);
      Class<?> contextType = loader.loadClass("com.amazonaws.services.lambda.runtime.Context");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      handlerType
          .getMethod("handleRequest", InputStream.class, OutputStream.class, contextType)
          .invoke(
              handler, new ByteArrayInputStream(Files.readAllBytes(preflightEvent())), out, null);

      var report = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
      assertThat(report.path("ok").asBoolean()).as(report.toString()).isTrue();
      // credentials, bucket, region, objectLock, probeWrite, conditionalWrite (If-None-Match),
      // probeDelete
      assertThat(report.path("steps")).hasSize(7);
    }
  }

  /** events/preflight.json, the sample README points to. */
  private static Path preflightEvent() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("events/preflight.json");
      if (Files.exists(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("events/preflight.json not found");
  }
}
