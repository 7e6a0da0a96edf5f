package io.kafkas3archiver.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.config.ConfigException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A local run with a bad setting must stop with the configuration error, not hang: S3Proxy's
 * threads are not daemons, so any that outlive the error keep exec:java waiting forever.
 */
class LocalS3Test {
  @TempDir Path data;

  @ParameterizedTest
  @ValueSource(strings = {"My_Bucket", " "})
  void shouldFailWithTheConfigErrorAndLeaveNoServerThreadRunning(String bucket) throws Exception {
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", bucket);
    env.put("AWS_REGION", "us-east-1");

    assertThatThrownBy(() -> LocalS3.open(env, data))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("BUCKET_NAME");
    assertThat(newLiveNonDaemonThreads(before)).isEmpty();
  }

  /**
   * Threads that stop a JVM from exiting, started since {@code before}; given time to wind down.
   */
  private static List<String> newLiveNonDaemonThreads(Set<Thread> before)
      throws InterruptedException {
    List<String> left = List.of();
    for (int attempt = 0; attempt < 50; attempt++) {
      left =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> !before.contains(t) && t.isAlive() && !t.isDaemon())
              .map(Thread::getName)
              .toList();
      if (left.isEmpty()) {
        break;
      }
      Thread.sleep(100);
    }
    return left;
  }
}
