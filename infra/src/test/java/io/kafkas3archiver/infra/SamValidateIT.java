package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `sam validate --lint` on template.yaml, offline and without credentials. Its cfn-lint run may
 * report only the findings {@link CfnLintIT#EXPLAINED} lists, each with the Rule that makes it
 * safe; anything else fails.
 */
class SamValidateIT {
  private static final Pattern FINDING =
      Pattern.compile("\\[([EW]\\d{4}): [^\\]]*\\].*? matched (\\d+)");

  @Test
  void shouldPassSamValidateWithLintWithOnlyExplainedFindings() throws Exception {
    Path sam = Tools.require(".venv/bin/sam");
    Tools.Result r =
        Tools.run(
            List.of(sam.toString(), "validate", "--lint", "-t", "template.yaml"),
            Tools.ROOT,
            Map.of("AWS_DEFAULT_REGION", "us-east-1"),
            300);
    if (r.exitCode() == 0) {
      return;
    }
    List<String> lines = Files.readAllLines(Tools.ROOT.resolve("template.yaml"));
    List<String> unexplained = new ArrayList<>();
    Matcher m = FINDING.matcher(r.output());
    int found = 0;
    while (m.find()) {
      found++;
      int at = Integer.parseInt(m.group(2)) - 1;
      while (at > 0 && !lines.get(at).matches("  [A-Za-z0-9]+:")) {
        at--;
      }
      String key = m.group(1) + " " + lines.get(at).trim().replace(":", "");
      if (!CfnLintIT.EXPLAINED.containsKey(key)) {
        unexplained.add(key + " (line " + m.group(2) + ")");
      }
    }
    assertThat(found).as(r.output()).isPositive();
    assertThat(unexplained).as(r.output()).isEmpty();
  }
}
