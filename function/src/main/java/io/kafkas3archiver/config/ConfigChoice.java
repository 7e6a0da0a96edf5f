package io.kafkas3archiver.config;

/** An enum constant as it is written in configuration ({@code OUTPUT_FORMAT=ndjson}). */
public interface ConfigChoice {
  String configName();
}
