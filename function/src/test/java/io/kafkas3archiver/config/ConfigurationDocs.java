package io.kafkas3archiver.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Generates the tables of {@code docs/configuration.md} from {@link Setting}: the text between the
 * two markers is replaced, the prose around it is kept. Run by {@code ./mvnw -q -pl function
 * test-compile exec:java@config-docs}; {@code ConfigurationDocsTest} fails when the file is stale.
 */
public final class ConfigurationDocs {
  static final Path FILE = Path.of("../docs/configuration.md");
  static final String BEGIN =
      "<!-- BEGIN GENERATED from Setting.java by ./mvnw -q -pl function test-compile"
          + " exec:java@config-docs: edit Setting.java, not this table -->";
  static final String END = "<!-- END GENERATED -->";

  private ConfigurationDocs() {}

  public static void main(String[] args) throws IOException {
    Path file = args.length > 0 ? Path.of(args[0]) : FILE;
    String current = Files.readString(file, StandardCharsets.UTF_8);
    String updated = regenerate(current);
    if (!updated.equals(current)) {
      Files.writeString(file, updated, StandardCharsets.UTF_8);
    }
    System.out.println(
        (updated.equals(current) ? "up to date: " : "regenerated: ") + file.normalize());
  }

  /** The file with its generated part replaced by the tables of the current declarations. */
  static String regenerate(String current) {
    int begin = current.indexOf(BEGIN);
    int end = current.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalStateException(
          "docs/configuration.md lacks the markers " + BEGIN + " ... " + END);
    }
    return current.substring(0, begin + BEGIN.length()) + "\n" + tables() + current.substring(end);
  }

  static String tables() {
    StringBuilder out = new StringBuilder();
    out.append("| variable | default | legal values | meaning |\n|---|---|---|---|\n");
    for (Setting s : Setting.values()) {
      if (s.scope() == Setting.Scope.SETTING) {
        out.append(row("`" + s.name() + "`", s.defaultDoc(), s.legalValues(), s.doc()));
      }
    }
    out.append("\nAlso read, as Lambda or the AWS SDK's conventions set them:\n\n");
    out.append("| variable | meaning |\n|---|---|\n");
    for (Setting s : Setting.values()) {
      if (s.scope() == Setting.Scope.RUNTIME) {
        out.append(row("`" + s.name() + "`", s.doc()));
      }
    }
    return out.toString();
  }

  private static String row(String... cells) {
    return Arrays.stream(cells)
            .map(c -> c.replace("|", "\\|"))
            .collect(Collectors.joining(" | ", "| ", " |"))
        + "\n";
  }
}
