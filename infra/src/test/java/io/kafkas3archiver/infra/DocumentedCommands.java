package io.kafkas3archiver.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every deploy command README.md and docs/*.md show in a code block, read from the files
 * themselves: {@code cdk deploy}/{@code cdk synth} with their {@code -c key=value} context, and
 * {@code sam deploy}/{@code sam local invoke}/{@code sam sync} with their {@code
 * --parameter-overrides Key=Value}. A new example in the docs is tested without anyone listing it.
 *
 * <p>The docs elide what a reader fills in: a value with {@code ...}, {@code …} or {@code <…>} gets
 * the test fixture for its key, and a lone {@code ...} (the rest as usual) adds the settings every
 * deploy needs (the topic, the cluster, SAM's bucket name). Nothing else is added.
 */
final class DocumentedCommands {
  static final Path ROOT = Path.of("..");

  private DocumentedCommands() {}

  enum Tool {
    CDK,
    SAM
  }

  /** One documented command: where it is, its text, and its settings in the tool's own keys. */
  record Command(String where, String text, Tool tool, Map<String, String> settings) {
    @Override
    public String toString() {
      return where;
    }

    /**
     * The settings in the CDK app's keys (SAM's parameter names with a lower-case first letter).
     */
    Map<String, String> cdk() {
      if (tool == Tool.CDK) {
        return settings;
      }
      Map<String, String> out = new LinkedHashMap<>();
      settings.forEach(
          (k, v) ->
              out.put(
                  k.equals("BucketRegion")
                      ? "region"
                      : k.substring(0, 1).toLowerCase(Locale.ROOT) + k.substring(1),
                  v));
      return out;
    }
  }

  /** The values the docs elide, by the CDK key they belong to. */
  static final Map<String, String> FIXTURES =
      Map.of(
          "clusterArn", Fixtures.CLUSTER_ARN,
          "saslScramSecretArn", Fixtures.SCRAM_SECRET_ARN,
          "inputTopic", "vehicle-telemetry",
          "bucketName", "acme-kafka-archive",
          "restoreBootstrapServers", "b-1.dr.example.com:9098",
          "restoreClusterArn", RestoreStackTest.TARGET_CLUSTER,
          "restoreSubnetIds", "subnet-0123456789abcdef0",
          "restoreSecurityGroupIds", "sg-0123456789abcdef0");

  static List<Command> all() throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    List<Command> out = new ArrayList<>();
    for (Path file : files) {
      out.addAll(commands(ROOT.relativize(file).toString(), Files.readAllLines(file)));
    }
    return out;
  }

  /** The commands of one Markdown file's fenced code blocks. */
  static List<Command> commands(String name, List<String> lines) {
    List<Command> out = new ArrayList<>();
    boolean inBlock = false;
    StringBuilder joined = null;
    int start = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.startsWith("```")) {
        inBlock = !inBlock;
        continue;
      }
      if (!inBlock) {
        continue;
      }
      line = line.replaceFirst("(^|\\s)#.*$", "").strip();
      if (joined == null) {
        joined = new StringBuilder();
        start = i + 1;
      }
      boolean continued = line.endsWith("\\");
      joined.append(continued ? line.substring(0, line.length() - 1) : line).append(' ');
      if (!continued) {
        command(name + ":" + start, joined.toString().strip()).ifPresent(out::add);
        joined = null;
      }
    }
    return out;
  }

  private static java.util.Optional<Command> command(String where, String text) {
    // Environment assignments before the command (ARCHIVER_ARTIFACT=iceberg sam build) are not
    // settings.
    String command = text.replaceFirst("^([A-Z_]+=\\S+\\s+)+", "");
    // An optional part shown in brackets ([-c auditLagThreshold=100000]) is tested too.
    List<String> tokens =
        java.util.Arrays.stream(command.split("\\s+"))
            .map(t -> t.replaceAll("^\\[|]$", ""))
            .toList();
    Map<String, String> settings = new LinkedHashMap<>();
    boolean partial = false;
    Tool tool;
    if (command.matches("cdk (deploy|synth)\\b.*")) {
      tool = Tool.CDK;
      for (int i = 0; i < tokens.size(); i++) {
        if (tokens.get(i).equals("-c") && i + 1 < tokens.size()) {
          put(settings, tokens.get(++i));
        }
        partial |= elided(tokens.get(i));
      }
    } else if (command.matches("sam (deploy|local invoke|sync)\\b.*")
        && tokens.contains("--parameter-overrides")) {
      tool = Tool.SAM;
      for (int i = tokens.indexOf("--parameter-overrides") + 1; i < tokens.size(); i++) {
        if (tokens.get(i).startsWith("--")) {
          break;
        }
        if (tokens.get(i).contains("=")) {
          put(settings, tokens.get(i));
        }
        partial |= elided(tokens.get(i));
      }
    } else {
      return java.util.Optional.empty();
    }
    if (settings.isEmpty()) {
      return java.util.Optional.empty();
    }
    Command c = new Command(where, text, tool, settings);
    Map<String, String> filled = new LinkedHashMap<>();
    settings.forEach((k, v) -> filled.put(k, placeholder(v) ? fixture(c, k) : v));
    if (partial) {
      boolean msk = !"self-managed".equals(c.cdk().get("sourceType"));
      List<String> needed = new ArrayList<>(List.of("inputTopic"));
      if (msk) {
        needed.add("clusterArn");
      }
      if (tool == Tool.SAM) {
        needed.add("bucketName");
      }
      for (String key : needed) {
        String name =
            tool == Tool.SAM
                ? key.substring(0, 1).toUpperCase(Locale.ROOT) + key.substring(1)
                : key;
        filled.putIfAbsent(name, FIXTURES.get(key));
      }
    }
    return java.util.Optional.of(new Command(where, text, tool, filled));
  }

  private static void put(Map<String, String> settings, String token) {
    int eq = token.indexOf('=');
    if (eq > 0) {
      settings.put(token.substring(0, eq), token.substring(eq + 1));
    }
  }

  private static boolean elided(String token) {
    return token.equals("...") || token.equals("…");
  }

  private static boolean placeholder(String value) {
    return value.contains("...") || value.contains("…") || value.contains("<");
  }

  private static String fixture(Command c, String key) {
    String cdkKey =
        c.tool() == Tool.SAM
            ? key.substring(0, 1).toLowerCase(Locale.ROOT) + key.substring(1)
            : key;
    String value = FIXTURES.get(cdkKey);
    if (value == null) {
      throw new IllegalStateException(
          c.where()
              + " elides "
              + key
              + "; add a fixture for it to DocumentedCommands.FIXTURES or write the value out");
    }
    return value;
  }
}
