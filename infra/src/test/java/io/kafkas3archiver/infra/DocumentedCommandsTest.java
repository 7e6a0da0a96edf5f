package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.infra.DocumentedCommands.Command;
import io.kafkas3archiver.infra.DocumentedCommands.Tool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * Every deploy command the docs show ({@link DocumentedCommands}, read from README.md and
 * docs/*.md) deploys: a {@code cdk} command synthesizes with no unsuppressed cdk-nag finding
 * (CfnLintIT cfn-lints the same templates), and a {@code sam} command's parameters pass
 * template.yaml's Rules and parameter constraints (SamRulesTest's evaluator).
 */
class DocumentedCommandsTest {

  static Stream<Arguments> cdk() {
    return commands(Tool.CDK);
  }

  static Stream<Arguments> sam() {
    return commands(Tool.SAM);
  }

  private static Stream<Arguments> commands(Tool tool) {
    try {
      return DocumentedCommands.all().stream()
          .filter(c -> c.tool() == tool)
          .map(c -> Arguments.of(c.where(), c));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The reader finds the commands the docs are known to hold (so a parser bug cannot hide all). */
  @Test
  void shouldFindTheCommandsOfReadmeAndDocs() throws Exception {
    List<Command> all = DocumentedCommands.all();
    all.forEach(c -> System.out.println(c.where() + " " + c.tool() + " " + c.settings()));
    assertThat(all).extracting(Command::where).anyMatch(w -> w.startsWith("README.md:"));
    assertThat(all).filteredOn(c -> c.tool() == Tool.CDK).hasSizeGreaterThanOrEqualTo(4);
    assertThat(all).filteredOn(c -> c.tool() == Tool.SAM).hasSizeGreaterThanOrEqualTo(4);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cdk")
  void shouldSynthesizeEveryDocumentedCdkCommandWithNoUnsuppressedFinding(String where, Command c) {
    ArchiverStack stack = Fixtures.stack(new LinkedHashMap<>(c.settings()));
    Template.fromStack(stack);
    Annotations.fromStack(stack).hasNoError("*", Match.stringLikeRegexp("AwsSolutions-.*"));
    Annotations.fromStack(stack).hasNoWarning("*", Match.stringLikeRegexp("AwsSolutions-.*"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sam")
  void shouldPassTemplateYamlsRulesForEveryDocumentedSamCommand(String where, Command c)
      throws Exception {
    SamTemplate sam = new SamTemplate(InfraMatrix.TEMPLATE, c.settings());
    assertThat(sam.refusals()).as(c.text()).isEmpty();
    assertThat(sam.resources()).containsKey("KafkaMapping");
  }
}
