package io.kafkas3archiver.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The flags of one of the tool's commands ({@code restore}, {@code redrive}): {@code --flag value},
 * {@code --flag=value} and switches, each checked against the command's own list. Every error names
 * the flag and what is legal.
 */
public final class CommandLine {
  private final Map<String, List<String>> flags;

  private CommandLine(Map<String, List<String>> flags) {
    this.flags = flags;
  }

  /** Parses {@code args} against the command's {@code switches} and {@code valued} flags. */
  public static CommandLine parse(String[] args, Set<String> switches, Set<String> valued) {
    Map<String, List<String>> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String value = null;
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0 && valued.contains(a.substring(0, eq))) {
        value = a.substring(eq + 1);
        a = a.substring(0, eq);
      }
      if (switches.contains(a)) {
        flags.put(a, List.of());
      } else if (valued.contains(a)) {
        if (value == null) {
          if (i + 1 >= args.length) {
            throw new UsageException(a + " needs a value");
          }
          value = args[++i];
        }
        flags.computeIfAbsent(a, k -> new ArrayList<>()).add(value);
      } else {
        throw new UsageException(
            "unknown argument '" + a + "'; run with --help for the list of flags");
      }
    }
    return new CommandLine(flags);
  }

  public boolean has(String name) {
    return flags.containsKey(name);
  }

  /** Every value of a repeatable flag, in order. */
  public List<String> all(String name) {
    return flags.getOrDefault(name, List.of());
  }

  /** The value of a flag given at most once. */
  public Optional<String> one(String name) {
    List<String> values = flags.get(name);
    if (values == null || values.isEmpty()) {
      return Optional.empty();
    }
    if (values.size() > 1) {
      throw new UsageException(name + " is given " + values.size() + " times; give it once");
    }
    if (values.get(0).isBlank()) {
      throw new UsageException(name + " is empty");
    }
    return Optional.of(values.get(0));
  }

  public String required(String name) {
    return one(name).orElseThrow(() -> new UsageException(name + " is required"));
  }

  /** A whole number in {@code min..max}. */
  public static long number(String flag, String v, long min, long max) {
    try {
      long n = Long.parseLong(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(flag + " '" + v + "' is not a whole number in " + min + ".." + max);
  }

  /**
   * Kafka client settings: the properties files of {@code fileFlag}, then every {@code key=value}
   * of {@code propertyFlag} (which win). Values never appear in messages.
   */
  public Map<String, String> clientProperties(String fileFlag, String propertyFlag) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (String file : all(fileFlag)) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(Path.of(file))) {
        p.load(r);
      } catch (IOException e) {
        throw new UsageException(fileFlag + " " + file + " could not be read: " + e.getMessage());
      }
      p.forEach((k, v) -> properties.put(k.toString(), v.toString()));
    }
    for (String kv : all(propertyFlag)) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new UsageException(
            propertyFlag + " '" + kv.replaceAll("=.*", "=…") + "' is not key=value");
      }
      properties.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return properties;
  }

  /** The settings {@code --msk-iam} adds to every Kafka client: SASL_SSL with AWS_MSK_IAM. */
  public static Map<String, Object> mskIam() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("security.protocol", "SASL_SSL");
    p.put("sasl.mechanism", "AWS_MSK_IAM");
    p.put("sasl.jaas.config", "software.amazon.msk.auth.iam.IAMLoginModule required;");
    p.put(
        "sasl.client.callback.handler.class",
        "software.amazon.msk.auth.iam.IAMClientCallbackHandler");
    return p;
  }
}
