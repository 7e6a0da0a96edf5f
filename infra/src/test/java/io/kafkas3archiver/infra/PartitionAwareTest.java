package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.infra.InfraMatrix.Deployment;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.assertions.Template;

/**
 * Both templates deploy in aws-cn and aws-us-gov too: no ARN they build spells the {@code aws}
 * partition. Every ARN is written with {@code ${AWS::Partition}} ({@code Aws.PARTITION}), the Step
 * Functions integrations included ({@code arn:<partition>:states:::lambda:invoke}, as the Amazon
 * States Language's Task state documents them). What a user passes in (a cluster, a secret, a key)
 * is theirs and is left out; template.yaml's parameter descriptions show example ARNs, the one
 * documented exception.
 */
class PartitionAwareTest {
  private static final String LITERAL = "arn:aws:";

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldBuildNoArnInTheAwsPartitionInTheCdkApp(String name, Deployment d) {
    Deployment china = inChina(d);
    assertThat(
            literalArns(
                Template.fromStack(Fixtures.stack(new LinkedHashMap<>(china.cdk()))).toJSON()))
        .isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.kafkas3archiver.infra.InfraMatrix#arguments")
  void shouldBuildNoArnInTheAwsPartitionInTemplateYaml(String name, Deployment d) throws Exception {
    SamTemplate sam = new SamTemplate(InfraMatrix.TEMPLATE, inChina(d).sam());
    assertThat(literalArns(Map.of("Resources", sam.resources(), "Outputs", sam.outputs())))
        .isEmpty();
  }

  /**
   * The configuration with every ARN it passes in moved to aws-cn: an ARN in the aws partition left
   * in the template was then built by the template itself.
   */
  static Deployment inChina(Deployment d) {
    Map<String, String> c = new LinkedHashMap<>();
    d.cdk().forEach((k, v) -> c.put(k, v.replace(LITERAL, "arn:aws-cn:")));
    return new Deployment(d.name(), c);
  }

  /** Outside Parameters (example ARNs in descriptions) and comments, template.yaml has none. */
  @Test
  void shouldSpellNoAwsPartitionInTemplateYamlOutsideParameterDescriptions() throws Exception {
    List<String> lines = Files.readAllLines(InfraMatrix.TEMPLATE);
    List<String> found = new ArrayList<>();
    boolean inParameters = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.matches("^[A-Za-z]+:.*")) {
        inParameters = line.startsWith("Parameters:");
      }
      String code = line.replaceFirst("^\\s*#.*", "");
      boolean described =
          inParameters && code.matches("\\s*(Description|ConstraintDescription):.*");
      if (code.contains(LITERAL) && !described) {
        found.add((i + 1) + ": " + line.strip());
      }
    }
    assertThat(found).isEmpty();
  }

  /** Every string of the template that names the aws partition, with its path. */
  static List<String> literalArns(Map<String, Object> template) {
    List<String> out = new ArrayList<>();
    collect("", template, out);
    return out;
  }

  private static void collect(String path, Object node, List<String> out) {
    if (node instanceof Map<?, ?> m) {
      m.forEach((k, v) -> collect(path + "/" + k, v, out));
    } else if (node instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        collect(path + "/" + i, l.get(i), out);
      }
    } else if (node instanceof String s && s.contains(LITERAL)) {
      out.add(path + ": " + s);
    }
  }
}
