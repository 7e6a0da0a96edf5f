package io.kafkas3archiver.group;

/**
 * A {@code KEY_TEMPLATE} that cannot be used; the message names the variable, the value and what is
 * legal. Configuration turns it into its own error, so this package does not depend on config.
 */
public final class InvalidKeyTemplateException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  InvalidKeyTemplateException(String message) {
    super(message);
  }
}
