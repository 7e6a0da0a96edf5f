package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** `sam validate --lint` on template.yaml, offline and without credentials. */
class SamValidateIT {

  @Test
  void shouldPassSamValidateWithLint() throws Exception {
    Path sam = Tools.require(".venv/bin/sam");
    Tools.Result r =
        Tools.run(
            List.of(sam.toString(), "validate", "--lint", "-t", "template.yaml"),
            Tools.ROOT,
            Map.of("AWS_DEFAULT_REGION", "us-east-1"),
            300);
    assertThat(r.exitCode()).as(r.output()).isZero();
  }
}
