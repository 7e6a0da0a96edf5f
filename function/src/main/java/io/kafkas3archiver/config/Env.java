package io.kafkas3archiver.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads settings through one seam over the environment, so tests pass a map instead of patching the
 * JVM. Only declared {@link Setting}s can be read. Blank values count as unset, and an unset one
 * takes its declared default. Every error names the variable, the value and what is legal.
 */
record Env(Function<String, String> source) {

  /** The value as set, without the declared default. */
  Optional<String> optional(Setting setting) {
    String value = source.apply(setting.name());
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(value.trim());
  }

  /** The value as set, else the declared default (which may be absent too). */
  Optional<String> value(Setting setting) {
    return optional(setting).or(() -> Optional.ofNullable(setting.defaultValue()));
  }

  String required(Setting setting) {
    return optional(setting)
        .orElseThrow(
            () ->
                new ConfigException(
                    setting.name()
                        + " is required but not set: "
                        + setting.doc()
                        + " Legal values: "
                        + setting.legalValues()));
  }

  boolean bool(Setting setting) {
    return value(setting)
        .map(
            v ->
                switch (v.toLowerCase(Locale.ROOT)) {
                  case "true", "1", "yes" -> true;
                  case "false", "0", "no" -> false;
                  default -> throw invalid(setting, v);
                })
        .orElse(false);
  }

  /** An integer from {@code min} to {@code max}; the declared default when unset. */
  int integer(Setting setting, int min, int max) {
    String raw = value(setting).orElseThrow();
    try {
      int v = Integer.parseInt(raw);
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw invalid(setting, raw);
  }

  /** Parses an enum by its constants' configuration names; empty when unset with no default. */
  <E extends Enum<E>> Optional<E> choice(
      Setting setting, E[] constants, Function<E, String> configName) {
    return value(setting)
        .map(
            raw ->
                Arrays.stream(constants)
                    .filter(c -> configName.apply(c).equals(raw.toLowerCase(Locale.ROOT)))
                    .findFirst()
                    .orElseThrow(() -> invalid(setting, raw)));
  }

  static ConfigException invalid(Setting setting, String value) {
    return invalid(setting, value, setting.legalValues());
  }

  static ConfigException invalid(Setting setting, String value, String legal) {
    return new ConfigException(
        setting.name() + "='" + value + "' is not valid; legal values: " + legal);
  }
}
