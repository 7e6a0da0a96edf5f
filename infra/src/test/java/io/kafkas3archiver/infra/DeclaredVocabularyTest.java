package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * infra checks {@code parquetSchema} at synth with its own copy of the function's type parser
 * (infra must not depend on the function's classes, as {@link ArchiverMetricsTest} says): this
 * reads the function's {@code DeclaredTypes.java} and fails when the two accept different type
 * names or list a different vocabulary, so a synth check cannot drift from the cold-start one.
 */
class DeclaredVocabularyTest {
  static final Path FUNCTION =
      Path.of("..", "function/src/main/java/io/kafkas3archiver/schema/DeclaredTypes.java");
  static final Path INFRA = Path.of("src/main/java/io/kafkas3archiver/infra/DeclaredSchema.java");

  /** The string labels of the switch cases: {@code case "a", "b" ->}. */
  private static final Pattern CASE = Pattern.compile("case ((?:\"[a-z0-9]*\"(?:, )?)+) ->");

  private static Set<String> typeNames(Path source) throws Exception {
    Set<String> names = new TreeSet<>();
    Matcher m = CASE.matcher(Files.readString(source));
    while (m.find()) {
      Matcher label = Pattern.compile("\"([a-z0-9]*)\"").matcher(m.group(1));
      while (label.find()) {
        names.add(label.group(1));
      }
    }
    return names;
  }

  private static String legal(Path source) throws Exception {
    Matcher m =
        Pattern.compile("LEGAL =\\s*((?:\"[^\"]*\"\\s*\\+?\\s*)+);")
            .matcher(Files.readString(source));
    assertThat(m.find()).as("a LEGAL constant in %s", source).isTrue();
    return m.group(1).replaceAll("\"\\s*\\+\\s*\"", "").replace("\"", "");
  }

  @Test
  void shouldAcceptTheSameTypeNamesAsTheFunction() throws Exception {
    assertThat(typeNames(INFRA))
        .contains("bigint", "decimal", "struct", "array", "map")
        .isEqualTo(typeNames(FUNCTION));
  }

  @Test
  void shouldListTheSameVocabularyAsTheFunction() throws Exception {
    assertThat(legal(INFRA)).contains("decimal(p,s)").isEqualTo(legal(FUNCTION));
  }
}
