package io.kafkas3archiver.config;

/**
 * A configuration error found at cold start. Its message names the variable, the bad value and the
 * legal values, so the fix is obvious from the log line alone.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
