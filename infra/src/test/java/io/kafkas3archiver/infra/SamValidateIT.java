package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * `sam validate --lint` on template.yaml, offline and without credentials: it must pass with no
 * finding at all. (The two checks template.yaml turns off file-wide, W1030 and W1033, still run in
 * {@link CfnLintIT}, where each finding must name the Rule that makes it safe.)
 */
class SamValidateIT {
  @Test
  void shouldPassSamValidateWithLintWithNoFinding() throws Exception {
    Path sam = Tools.require(".venv/bin/sam");
    Tools.Result r =
        Tools.run(
            List.of(sam.toString(), "validate", "--lint", "-t", "template.yaml"),
            Tools.ROOT,
            Map.of("AWS_DEFAULT_REGION", "us-east-1", "SAM_CLI_TELEMETRY", "0"),
            300);
    System.out.println("sam validate --lint: exit " + r.exitCode());
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).as(r.output()).doesNotContainPattern("\\[[EW]\\d{4}");
  }
}
