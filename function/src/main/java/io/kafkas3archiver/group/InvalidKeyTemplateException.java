package io.kafkas3archiver.group;

/**
 * A {@code KEY_TEMPLATE}, {@code TIME_FIELD} or {@code TIME_FORMAT} that cannot be used: how keys
 * are laid out. The message names the variable, the value and what is legal. Configuration turns it
 * into its own error, so this package does not depend on config.
 */
public final class InvalidKeyTemplateException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  InvalidKeyTemplateException(String message) {
    super(message);
  }
}
