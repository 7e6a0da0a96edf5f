package io.kafkas3archiver.redrive;

/** A redrive that cannot go on, with a message that names the cause and the fix. */
public final class RedriveException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RedriveException(String message) {
    super(message);
  }

  public RedriveException(String message, Throwable cause) {
    super(message, cause);
  }
}
