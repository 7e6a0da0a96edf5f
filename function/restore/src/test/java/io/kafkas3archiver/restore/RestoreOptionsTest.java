package io.kafkas3archiver.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RestoreOptionsTest {

  @Test
  void shouldPrintHelpAndExitZero() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc =
        RestoreCommand.run(
            new String[] {"--help"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err);
    assertThat(rc).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "--include-errors",
            "--rekey",
            "--dry-run",
            "--verify",
            "--max-mb-per-sec",
            "--msk-iam");
  }

  @Test
  void shouldNameTheFlagTheValueAndWhatIsLegal() {
    assertThatThrownBy(
            () ->
                RestoreOptions.parse(
                    "--bucket", "b", "--topic", "t", "--dry-run", "--from", "yesterday"))
        .hasMessage("--from 'yesterday' is not an ISO-8601 instant such as 2026-03-01T00:00:00Z");
    assertThatThrownBy(() -> RestoreOptions.parse("--bucket", "b", "--topic", "t"))
        .hasMessageContaining("--bootstrap-servers is required");
    assertThatThrownBy(
            () ->
                RestoreOptions.parse(
                    "--bucket", "b", "--topic", "t", "--dry-run", "--max-mb-per-sec", "-1"))
        .hasMessageContaining("--max-mb-per-sec '-1' is not a positive number");
    assertThatThrownBy(
            () ->
                RestoreOptions.parse(
                    "--bucket", "b", "--topic", "t", "--dry-run", "--partitions", "0,x"))
        .hasMessageContaining("--partitions 'x' is not a whole number");
    assertThatThrownBy(
            () -> RestoreOptions.parse("--bucket", "b", "--topic", "t", "--dry-run", "--bogus"))
        .hasMessageContaining("unknown argument '--bogus'");
  }

  @Test
  void shouldNotEchoASecretFromAMalformedProducerProperty() {
    assertThatThrownBy(
            () ->
                RestoreOptions.parse(
                    "--bucket",
                    "b",
                    "--topic",
                    "t",
                    "--dry-run",
                    "--producer-property",
                    "sasl.jaas.config"))
        .hasMessageContaining("is not key=value");
    // A property given as key=value is passed on, never printed by the parser.
    var options =
        RestoreOptions.parse(
                "--bucket",
                "b",
                "--topic",
                "t",
                "--bootstrap-servers",
                "k:9092",
                "--producer-property",
                "sasl.jaas.config=secret-here",
                "--msk-iam")
            .orElseThrow();
    var props = TargetCluster.clientProperties(options);
    assertThat(props)
        .containsEntry("sasl.mechanism", "AWS_MSK_IAM")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", "secret-here");
    assertThat(options.targetTopic()).isEqualTo("t");
    assertThat(options.checkpointTopic()).isEqualTo("t.restore-checkpoint");
  }

  @Test
  void shouldLoadTheMskIamCallbackHandlerFromTheRestoreClasspath() throws Exception {
    assertThat(Class.forName("software.amazon.msk.auth.iam.IAMClientCallbackHandler")).isNotNull();
    assertThat(Class.forName("software.amazon.msk.auth.iam.IAMLoginModule")).isNotNull();
  }
}
