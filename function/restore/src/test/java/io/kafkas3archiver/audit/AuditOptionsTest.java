package io.kafkas3archiver.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.cli.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The audit's range flags: record times (--from/--to) beside offsets, and their refusals. */
class AuditOptionsTest {
  private static final String[] BASE = {"--bucket", "b", "--topic", "t"};

  private static AuditOptions parse(String... more) {
    String[] all = new String[BASE.length + more.length];
    System.arraycopy(BASE, 0, all, 0, BASE.length);
    System.arraycopy(more, 0, all, BASE.length, more.length);
    return AuditOptions.parse(name -> null, all).orElseThrow();
  }

  @Test
  void shouldTakeATimeRangeWithACluster() {
    AuditOptions o =
        parse(
            "--bootstrap-servers",
            "k:9092",
            "--from",
            "2026-03-01T00:00:00Z",
            "--to",
            "2026-06-30T23:59:59.999Z");
    assertThat(o.fromTime()).contains(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(o.toTime()).contains(Instant.parse("2026-06-30T23:59:59.999Z"));
    assertThat(o.timeRange()).isTrue();
    // Offsets and times may each bound one end.
    AuditOptions mixed =
        parse(
            "--bootstrap-servers", "k:9092", "--from", "2026-03-01T00:00:00Z", "--to-offset", "9");
    assertThat(mixed.toOffset()).isEqualTo(9);
    assertThat(parse().timeRange()).isFalse();
  }

  @Test
  void shouldRefuseATimeRangeWithoutACluster() {
    assertThatThrownBy(() -> parse("--from", "2026-03-01T00:00:00Z"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--from/--to need --bootstrap-servers")
        .hasMessageContaining("--from-offset/--to-offset");
    assertThatThrownBy(() -> parse("--to", "2026-03-01T00:00:00Z"))
        .hasMessageContaining("need --bootstrap-servers");
  }

  @Test
  void shouldRefuseBadOrConflictingTimes() {
    String[] cluster = {"--bootstrap-servers", "k:9092"};
    assertThatThrownBy(() -> parse(cluster[0], cluster[1], "--from", "2026-03-01"))
        .hasMessageContaining("--from 2026-03-01 is not an ISO-8601 instant")
        .hasMessageContaining("2026-03-01T00:00:00Z");
    assertThatThrownBy(
            () ->
                parse(
                    cluster[0],
                    cluster[1],
                    "--from",
                    "2026-03-02T00:00:00Z",
                    "--to",
                    "2026-03-01T00:00:00Z"))
        .hasMessageContaining(
            "--to 2026-03-01T00:00:00Z must be after --from 2026-03-02T00:00:00Z");
    assertThatThrownBy(
            () ->
                parse(
                    cluster[0],
                    cluster[1],
                    "--from",
                    "2026-03-01T00:00:00Z",
                    "--to",
                    "2026-03-01T00:00:00Z"))
        .hasMessageContaining("must be after --from");
    assertThatThrownBy(
            () ->
                parse(
                    cluster[0], cluster[1], "--from", "2026-03-01T00:00:00Z", "--from-offset", "5"))
        .hasMessageContaining("--from and --from-offset");
    assertThatThrownBy(
            () -> parse(cluster[0], cluster[1], "--to", "2026-03-01T00:00:00Z", "--to-offset", "5"))
        .hasMessageContaining("--to and --to-offset");
  }

  @Test
  void shouldExitTwoOnTheCommandLineWithoutACluster() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        AuditCommand.run(
            new String[] {"--bucket", "b", "--topic", "t", "--from", "2026-03-01T00:00:00Z"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("need --bootstrap-servers");
  }

  @Test
  void shouldTakeTheTimeRangeOnTheLambdaAction() throws Exception {
    AuditOptions o =
        AuditAction.options(
            new ObjectMapper()
                .readTree(
                    "{\"bucket\":\"b\",\"topic\":\"t\",\"bootstrapServers\":\"k:9092\","
                        + "\"from\":\"2026-03-01T00:00:00Z\",\"to\":\"2026-04-01T00:00:00Z\"}"),
            Map.<String, String>of()::get);
    assertThat(o.fromTime()).contains(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(o.toTime()).contains(Instant.parse("2026-04-01T00:00:00Z"));
  }
}
