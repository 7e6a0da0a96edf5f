package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;

/** AWS's cfn-lint (PyPI) over template.yaml and over the CDK app's synthesized templates. */
class CfnLintIT {

  @Test
  void shouldPassCfnLintOnTemplateYaml() throws Exception {
    Path cfnLint = Tools.require(".venv/bin/cfn-lint");
    Tools.Result r =
        Tools.run(List.of(cfnLint.toString(), "--", "template.yaml"), Tools.ROOT, Map.of(), 300);
    assertThat(r.exitCode()).as(r.output()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.NagTest#deployments")
  void shouldPassCfnLintOnTheSynthesizedTemplate(String name, Map<String, Object> context)
      throws Exception {
    Path cfnLint = Tools.require(".venv/bin/cfn-lint");
    Path outdir = Path.of("target", "it-synth", name).toAbsolutePath();
    Map<String, Object> c = new LinkedHashMap<>(context);
    c.put("jarPath", Fixtures.jar());
    App app = App.Builder.create().outdir(outdir.toString()).context(c).build();
    ArchiverStack stack = ArchiverApp.createStack(app);
    app.synth();
    Path template = outdir.resolve(stack.getArtifactId() + ".template.json");
    assertThat(template).exists();
    Tools.Result r =
        Tools.run(
            List.of(
                cfnLint.toString(),
                // W3005: aws-cdk-lib's Function always adds DependsOn its role, which its
                // GetAtt already implies; the redundancy is CDK's, harmless, and not ours to fix.
                "--ignore-checks",
                "W3005",
                "--",
                template.toString()),
            Tools.ROOT,
            Map.of(),
            300);
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(Files.size(template)).isPositive();
  }
}
