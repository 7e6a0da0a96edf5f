package io.kafkas3archiver.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.esm.SampleVehicleEvents;
import io.kafkas3archiver.testing.StdoutCapture;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local run's Kafka modes, as README shows them, with S3 data in a temporary folder. */
class KafkaLocalRunIT {
  private static final Map<String, String> ENV = Map.of("TITLE", "local-run");

  @TempDir Path s3data;

  @Test
  void shouldStartABrokerProduceSampleEventsAndArchiveThemAll() throws Exception {
    List<String> lines;
    try (StdoutCapture out = new StdoutCapture()) {
      KafkaLocalRun.run(new String[] {"--kafka", "--records", "120"}, ENV, s3data);
      lines = out.lines();
    }

    assertThat(lines)
        .anyMatch(l -> l.startsWith("embedded Kafka broker (KRaft, in-process) at 127.0.0.1:"));
    assertThat(lines).anyMatch(l -> l.startsWith("produced 120 vehicle events"));
    assertThat(lines)
        .anyMatch(l -> l.matches("batch 1 attempt 1: 100 records, .* -> ok, committed"));
    assertThat(lines)
        .anyMatch(l -> l.matches("batch 2 attempt 1: 20 records, .* -> ok, committed"));
    // One object per topic-partition of each batch (the exactly-once design).
    assertThat(lines)
        .contains("wrote " + partitionsOfBatches(lines) + " object(s) to s3://local-archive/:");
    assertThat(lines)
        .anyMatch(l -> l.startsWith("  {\"topic\":\"vehicle-telemetry\",\"partition\":"));
  }

  @Test
  void shouldAttachToGivenBootstrapServersAndStopWhenTheTopicIsIdle() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopic("user-topic", 2);
      SampleVehicleEvents.produce(kafka.bootstrapServers(), "user-topic", 0, 30);
      List<String> lines;
      try (StdoutCapture out = new StdoutCapture()) {
        KafkaLocalRun.run(
            new String[] {
              "--bootstrap-servers", kafka.bootstrapServers(),
              "--topic", "user-topic",
              "--group-id", "attach-it",
              "--idle-seconds", "10"
            },
            ENV,
            s3data);
        lines = out.lines();
      }

      assertThat(lines).noneMatch(l -> l.startsWith("embedded Kafka broker"));
      assertThat(lines)
          .anyMatch(l -> l.matches("batch 1 attempt 1: 30 records, .* -> ok, committed"));
      assertThat(lines)
          .anyMatch(l -> l.startsWith("committed offsets of group attach-it: user-topic-0="));
      assertThat(lines).contains("wrote 2 object(s) to s3://local-archive/:");
    }
  }

  @Test
  void shouldRefuseAttachingWithoutATopic() {
    assertThatThrownBy(
            () ->
                KafkaLocalRun.run(new String[] {"--bootstrap-servers", "127.0.0.1:1"}, ENV, s3data))
        .hasMessageContaining("--bootstrap-servers needs --topic")
        .hasMessageContaining("usage: LocalRun --kafka");
  }

  /** The topic-partitions of each committed batch, summed: "t-0[0..9] t-1[0..19]" counts 2. */
  private static long partitionsOfBatches(List<String> lines) {
    return lines.stream()
        .filter(l -> l.startsWith("batch ") && l.endsWith("-> ok, committed"))
        .mapToLong(l -> java.util.regex.Pattern.compile("-\\d+\\[").matcher(l).results().count())
        .sum();
  }
}
