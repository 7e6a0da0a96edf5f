package io.kafkas3archiver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Package dependencies in function/src/main go one way (event → decode → group → encode → upload →
 * report, with config on top). A small check over the sources rather than ArchUnit: the packages
 * are few, every cross-package reference here is an import or a fully qualified name, and it costs
 * no dependency.
 */
class PackageCycleTest {
  private static final Path SOURCES = Path.of("src/main/java/io/kafkas3archiver");
  private static final Pattern REFERENCE =
      Pattern.compile("\\bio\\.kafkas3archiver\\.(?:([a-z][a-z0-9]*)\\.)?[A-Z]");

  @Test
  void shouldHaveNoPackageCycle() throws IOException {
    Map<String, Map<String, String>> edges = dependencies();

    assertThat(edges).as("found no packages under " + SOURCES).hasSizeGreaterThan(5);
    assertThat(cycles(edges))
        .as(
            "package cycles (each edge names one file that makes it); move the shared type to the"
                + " package that is upstream, or invert the dependency")
        .isEmpty();
  }

  /** package -> (package it uses -> a file that uses it). The root package is "(root)". */
  static Map<String, Map<String, String>> dependencies() throws IOException {
    Map<String, Map<String, String>> edges = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Path relative = SOURCES.relativize(file);
        String from = relative.getNameCount() == 1 ? "(root)" : relative.getName(0).toString();
        Map<String, String> out = edges.computeIfAbsent(from, k -> new TreeMap<>());
        Matcher m = REFERENCE.matcher(Files.readString(file, StandardCharsets.UTF_8));
        while (m.find()) {
          String to = m.group(1) == null ? "(root)" : m.group(1);
          if (!to.equals(from)) {
            out.putIfAbsent(to, relative.toString());
          }
        }
      }
    }
    return edges;
  }

  /** Every elementary cycle found by a depth-first walk, as "a -> b (file) -> a (file)". */
  static List<String> cycles(Map<String, Map<String, String>> edges) {
    Set<String> reported = new TreeSet<>();
    List<String> cycles = new ArrayList<>();
    for (String start : edges.keySet()) {
      walk(start, start, new ArrayList<>(List.of(start)), edges, reported, cycles);
    }
    return cycles;
  }

  private static void walk(
      String start,
      String at,
      List<String> path,
      Map<String, Map<String, String>> edges,
      Set<String> reported,
      List<String> cycles) {
    for (Map.Entry<String, String> e : edges.getOrDefault(at, Map.of()).entrySet()) {
      String next = e.getKey();
      if (next.equals(start)) {
        List<String> members = new ArrayList<>(path);
        if (reported.add(String.join(",", new TreeSet<>(members)))) {
          StringBuilder text = new StringBuilder(start);
          for (int i = 0; i < members.size(); i++) {
            String from = members.get(i);
            String to = i + 1 < members.size() ? members.get(i + 1) : start;
            text.append(" -> ").append(to).append(" (").append(edges.get(from).get(to)).append(")");
          }
          cycles.add(text.toString());
        }
      } else if (!path.contains(next) && next.compareTo(start) > 0) {
        path.add(next);
        walk(start, next, path, edges, reported, cycles);
        path.remove(path.size() - 1);
      }
    }
  }
}
