package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;

/** AWS's cfn-lint (PyPI) over template.yaml and over the CDK app's synthesized templates. */
class CfnLintIT {
  private static final Map<String, Path> SYNTHESIZED = new LinkedHashMap<>();
  private static final Map<Path, List<String>> FINDINGS = new HashMap<>();
  private static Tools.Result lint;

  /**
   * The only findings template.yaml may have, each with its reason. cfn-lint resolves these
   * optional parameters to their empty defaults and reports the uses; each use sits behind the
   * condition that needs the value, and a Rule refuses an empty value under that condition before
   * anything is created. cfn-lint attributes these findings to the parameter, where no
   * resource-level directive reaches, so they are allowed here by rule and parameter, not for the
   * whole file.
   */
  /** template.yaml's file-wide cfn-lint directive for the two checks EXPLAINED covers. */
  static final String TEMPLATE_IGNORES =
      "  cfn-lint:\n    config:\n      ignore_checks: [W1030, W1033]\n";

  static final Map<String, String> EXPLAINED =
      Map.of(
          "W1030 ClusterArn", "Rule MskNeedsClusterArn",
          "W1030 SaslScramSecretArn",
              "Rules MskScramNeedsSecretAndCustomerManagedKey, SelfManagedSaslNeedsSecret",
          "W1030 ClientCertificateSecretArn", "Rule MtlsNeedsClientCertificate",
          "W1030 OnFailureBucketArn", "Rule S3OnFailureNeedsBucket",
          "W1030 SchemaRegistrySecretArn", "Rule SchemaRegistryAuthNeedsSecret",
          "W1030 IcebergTableBucketArn",
              "Condition CreateTableBucket (the ARN is used only when set), Rule"
                  + " S3TablesNeedsOneTableBucketInTheStacksRegion",
          "W1033 BootstrapServers", "Rule SelfManagedNeedsBrokers",
          "W1030 RestoreClusterArn", "Rule RestoreMskIamNeedsCluster",
          "W1033 RestoreSubnetIds", "Rule RestoreNeedsTargetAndNetwork",
          "W1033 RestoreSecurityGroupIds", "Rule RestoreNeedsTargetAndNetwork");

  @Test
  void shouldPassCfnLintOnTemplateYamlWithOnlyExplainedFindings() throws Exception {
    Path cfnLint = Tools.require(".venv/bin/cfn-lint");
    // template.yaml turns W1030 and W1033 off for the whole file (so `sam validate --lint` has
    // nothing to report); here they run, on a copy without that block, and each finding must be
    // one EXPLAINED lists.
    String text = Files.readString(Tools.ROOT.resolve("template.yaml"));
    assertThat(text).contains(TEMPLATE_IGNORES);
    Path copy = Tools.ROOT.resolve("infra/target/template-lint.yaml");
    Files.createDirectories(copy.getParent());
    Files.writeString(copy, text.replace(TEMPLATE_IGNORES, ""));
    Tools.Result r =
        Tools.run(
            List.of(cfnLint.toString(), "--format", "json", "--", copy.toString()),
            Tools.ROOT,
            Map.of(),
            300);
    List<String> unexplained = new ArrayList<>();
    List<String> lines = Files.readAllLines(copy);
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

  /**
   * Synthesizes every deployment and lints all of them with one cfn-lint process, then each
   * template's findings are checked by its own test below. A cfn-lint process costs about 3 s of
   * CPU before it reads a template (this class: 103 s of CPU with one process per template, 88 s
   * with one for all, 2 cores, 2026-12-01).
   */
  @BeforeAll
  static void synthesizeAndLintEveryDeployment() throws Exception {
    Path cfnLint = Tools.require(".venv/bin/cfn-lint");
    List<String> command =
        new ArrayList<>(
            List.of(
                cfnLint.toString(),
                "--format",
                "json",
                // W3005: aws-cdk-lib's Function always adds DependsOn its role, which its
                // GetAtt already implies; the redundancy is CDK's, harmless, and not ours to fix.
                "--ignore-checks",
                "W3005",
                "--"));
    for (Arguments deployment : deployments().toList()) {
      String name = (String) deployment.get()[0];
      Map<String, Object> c = new LinkedHashMap<>(Templates.cast(deployment.get()[1]));
      c.put("jarPath", Fixtures.jar());
      if ("true".equals(String.valueOf(c.get("restore")))) {
        c.putIfAbsent(RestoreSettings.JAR_PATH_KEY, Fixtures.jar());
      }
      Path outdir = Path.of("target", "it-synth", name).toAbsolutePath();
      App app = App.Builder.create().outdir(outdir.toString()).context(c).build();
      ArchiverStack stack = ArchiverApp.createStack(app);
      app.synth();
      Path template = outdir.resolve(stack.getArtifactId() + ".template.json");
      SYNTHESIZED.put(name, template);
      command.add(template.toString());
    }
    lint = Tools.run(command, Tools.ROOT, Map.of(), 600);
    for (Object f : new ObjectMapper().readValue(lint.output(), List.class)) {
      Map<String, Object> finding = Templates.cast(f);
      FINDINGS
          .computeIfAbsent(
              Path.of(String.valueOf(finding.get("Filename"))).toAbsolutePath().normalize(),
              k -> new ArrayList<>())
          .add(
              Templates.cast(finding.get("Rule")).get("Id")
                  + " "
                  + finding.get("Level")
                  + ": "
                  + finding.get("Message"));
    }
  }

  /**
   * NagTest's shapes, every documented configuration (InfraMatrix: each authentication, registry,
   * on-failure target, Iceberg catalog, the restore, lifecycle tiers), which NagTest also
   * synthesizes with cdk-nag, and every documented cdk command (DocumentedCommandsTest runs cdk-nag
   * on them).
   */
  static java.util.stream.Stream<Arguments> deployments() throws java.io.IOException {
    return java.util.stream.Stream.of(
            NagTest.deployments(),
            InfraMatrix.all().stream()
                .map(d -> Arguments.of("documented-" + d.name(), new LinkedHashMap<>(d.cdk()))),
            // Each `cdk` command README.md and docs/ show, as written there (DocumentedCommands).
            DocumentedCommands.all().stream()
                .filter(c -> c.tool() == DocumentedCommands.Tool.CDK)
                .map(
                    c ->
                        Arguments.of(
                            "command-" + c.where().replaceAll("[^A-Za-z0-9.]+", "-"),
                            new LinkedHashMap<>(c.settings()))))
        .flatMap(s -> s);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldPassCfnLintOnTheSynthesizedTemplate(String name, Map<String, Object> context)
      throws Exception {
    Path template = SYNTHESIZED.get(name);
    assertThat(template).as(name).exists();
    assertThat(Files.size(template)).isPositive();
    // Exit 0, or only the bits of findings (2 error, 4 warning, 8 informational): 1 means
    // cfn-lint itself failed, and then no template was checked.
    assertThat(lint.exitCode() & ~(2 | 4 | 8)).as(lint.output()).isZero();
    assertThat(FINDINGS.getOrDefault(template.normalize(), List.of()))
        .as("cfn-lint findings in %s", template)
        .isEmpty();
  }
}
