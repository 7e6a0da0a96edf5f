package io.kafkas3archiver.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads settings through one seam over the environment, so tests pass a map instead of patching the
 * JVM. Blank values count as unset. Every error names the variable, the value and what is legal.
 */
record Env(Function<String, String> source) {

  Optional<String> optional(String name) {
    String value = source.apply(name);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(value.trim());
  }

  String required(String name, String hint) {
    return optional(name)
        .orElseThrow(() -> new ConfigException(name + " is required but not set: " + hint));
  }

  String orDefault(String name, String fallback) {
    return optional(name).orElse(fallback);
  }

  boolean bool(String name, boolean fallback) {
    return optional(name)
        .map(
            v ->
                switch (v.toLowerCase(Locale.ROOT)) {
                  case "true", "1", "yes" -> true;
                  case "false", "0", "no" -> false;
                  default -> throw invalid(name, v, "true, false");
                })
        .orElse(fallback);
  }

  int integer(String name, int fallback, int min, int max) {
    Optional<String> raw = optional(name);
    if (raw.isEmpty()) {
      return fallback;
    }
    try {
      int v = Integer.parseInt(raw.get());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw invalid(name, raw.get(), "an integer from " + min + " to " + max);
  }

  /** Parses an enum whose constants carry a lower-case configuration name. */
  <E extends Enum<E> & ConfigChoice> E choice(String name, Class<E> type, E fallback) {
    Optional<String> raw = optional(name);
    if (raw.isEmpty()) {
      return fallback;
    }
    String wanted = raw.get().toLowerCase(Locale.ROOT);
    for (E constant : type.getEnumConstants()) {
      if (constant.configName().equals(wanted)) {
        return constant;
      }
    }
    throw invalid(name, raw.get(), legalValues(type));
  }

  static <E extends Enum<E> & ConfigChoice> String legalValues(Class<E> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(ConfigChoice::configName)
        .collect(Collectors.joining(", "));
  }

  static ConfigException invalid(String name, String value, String legal) {
    return new ConfigException(name + "='" + value + "' is not valid; legal values: " + legal);
  }
}
