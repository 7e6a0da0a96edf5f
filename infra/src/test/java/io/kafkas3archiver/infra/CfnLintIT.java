package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;

/** AWS's cfn-lint (PyPI) over template.yaml and over the CDK app's synthesized templates. */
class CfnLintIT {

  /**
   * The only findings template.yaml may have, each with its reason. cfn-lint resolves these
   * optional parameters to their empty defaults and reports the uses; each use sits behind the
   * condition that needs the value, and a Rule refuses an empty value under that condition before
   * anything is created. cfn-lint attributes these findings to the parameter, where no
   * resource-level directive reaches, so they are allowed here by rule and parameter, not for the
   * whole file.
   */
  static final Map<String, String> EXPLAINED =
      Map.of(
          "W1030 ClusterArn", "Rule MskNeedsClusterArn",
          "W1030 SaslScramSecretArn",
              "Rules MskScramNeedsSecretAndCustomerManagedKey, SelfManagedSaslNeedsSecret",
          "W1030 ClientCertificateSecretArn", "Rule MtlsNeedsClientCertificate",
          "W1030 OnFailureBucketArn", "Rule S3OnFailureNeedsBucket",
          "W1030 SchemaRegistrySecretArn", "Rule SchemaRegistryAuthNeedsSecret",
          "W1033 BootstrapServers", "Rule SelfManagedNeedsBrokers",
          "W1030 RestoreClusterArn", "Rule RestoreMskIamNeedsCluster",
          "W1033 RestoreSubnetIds", "Rule RestoreNeedsTargetAndNetwork",
          "W1033 RestoreSecurityGroupIds", "Rule RestoreNeedsTargetAndNetwork");

  @Test
  void shouldPassCfnLintOnTemplateYamlWithOnlyExplainedFindings() throws Exception {
    Path cfnLint = Tools.require(".venv/bin/cfn-lint");
    Tools.Result r =
        Tools.run(
            List.of(cfnLint.toString(), "--format", "json", "--", "template.yaml"),
            Tools.ROOT,
            Map.of(),
            300);
    List<String> unexplained = new ArrayList<>();
    List<String> lines = Files.readAllLines(Tools.ROOT.resolve("template.yaml"));
    for (Object f : new ObjectMapper().readValue(r.output(), List.class)) {
      Map<String, Object> finding = Templates.cast(f);
      String rule = String.valueOf(Templates.cast(finding.get("Rule")).get("Id"));
      int line =
          ((Number)
                  Templates.cast(Templates.cast(finding.get("Location")).get("Start"))
                      .get("LineNumber"))
              .intValue();
      // The finding points at the parameter's Default line; its name is the key above it.
      int at = line - 1;
      while (at > 0 && !lines.get(at).matches("  [A-Za-z0-9]+:")) {
        at--;
      }
      String parameter = lines.get(at).trim().replace(":", "");
      if (!EXPLAINED.containsKey(rule + " " + parameter)) {
        unexplained.add(rule + " at line " + line + ": " + finding.get("Message"));
      }
    }
    assertThat(unexplained).as(r.output()).isEmpty();
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
