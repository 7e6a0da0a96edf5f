package io.kafkas3archiver.cli;

/** A bad command line: the message says which flag, what was given and what is legal. */
public final class UsageException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }
}
