package io.kafkas3archiver.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The configuration is declared once, in {@link Setting}; docs and reads must agree with it. */
class ConfigurationDocsTest {
  private static final Path MAIN_SOURCES = Path.of("src/main/java");

  /** Upper-case string literals in the sources that are not environment variables. */
  private static final Set<String> NOT_VARIABLES =
      // Kafka's timestamp type name.
      Set.of("CREATE_TIME");

  private static final Pattern UPPER_SNAKE_LITERAL =
      Pattern.compile("\"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\"");

  @Test
  void shouldFindDocsConfigurationMdGeneratedFromTheCurrentDeclarations() throws IOException {
    String current = Files.readString(ConfigurationDocs.FILE, StandardCharsets.UTF_8);

    assertThat(current)
        .as(
            "docs/configuration.md is stale: run ./mvnw -q -pl function test-compile"
                + " exec:java@config-docs and commit the file")
        .isEqualTo(ConfigurationDocs.regenerate(current));
  }

  @Test
  void shouldReadNoVariableInFunctionSourcesThatIsNotDeclared() throws IOException {
    Set<String> declared =
        Stream.of(Setting.values()).map(Setting::name).collect(Collectors.toSet());
    List<String> undeclared = new ArrayList<>();
    for (Path file : javaFiles()) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = UPPER_SNAKE_LITERAL.matcher(lines.get(i));
        while (m.find()) {
          String name = m.group(1);
          if (!declared.contains(name) && !NOT_VARIABLES.contains(name)) {
            undeclared.add(MAIN_SOURCES.relativize(file) + ":" + (i + 1) + " reads " + name);
          }
        }
      }
    }

    assertThat(undeclared)
        .as(
            "environment variables read in function/src/main but not declared: add each as one"
                + " constant to config/Setting.java (name, type, default, legal values, doc), then"
                + " run ./mvnw -q -pl function test-compile exec:java@config-docs")
        .isEmpty();
  }

  @Test
  void shouldReadTheEnvironmentOnlyThroughTheSeam() throws IOException {
    Set<String> direct = new TreeSet<>();
    for (Path file : javaFiles()) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      if (text.contains("System.getenv(\"") || text.contains("System.getenv().")) {
        direct.add(MAIN_SOURCES.relativize(file).toString());
      }
    }

    assertThat(direct)
        .as("read variables through Setting and the Function<String,String> seam, not getenv")
        .isEmpty();
  }

  private static List<Path> javaFiles() throws IOException {
    try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }
}
