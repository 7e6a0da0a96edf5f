package io.kafkas3archiver.config;

import java.util.Locale;

/** {@code LOG_LEVEL}: the least severe log line written. */
public enum LogLevel {
  DEBUG,
  INFO,
  WARN,
  ERROR;

  /** The name in configuration. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean allows(LogLevel line) {
    return line.ordinal() >= ordinal();
  }
}
