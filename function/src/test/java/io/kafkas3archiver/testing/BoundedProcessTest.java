package io.kafkas3archiver.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BoundedProcessTest {
  @Test
  void shouldKillAProcessPastItsBoundEvenWhenItKeepsItsOutputOpen() throws Exception {
    long started = System.nanoTime();
    BoundedProcess.Result run =
        BoundedProcess.run(
            new ProcessBuilder("sh", "-c", "echo started; sleep 30"), "", Duration.ofMillis(300));
    assertThat(run.finished()).isFalse();
    assertThat(run.output()).isEqualTo("started\n");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void shouldGiveTheExitCodeAndOutputOfAProcessThatReadsItsStandardInput() throws Exception {
    BoundedProcess.Result run =
        BoundedProcess.run(
            new ProcessBuilder("sh", "-c", "cat; echo oops >&2; exit 3"),
            "hello\n",
            Duration.ofSeconds(30));
    assertThat(run.finished()).isTrue();
    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.output()).isEqualTo("hello\noops\n");
  }
}
