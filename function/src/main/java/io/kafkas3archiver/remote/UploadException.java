package io.kafkas3archiver.remote;

/** A failed upload, classified, with a message that names the cause and the fix. */
public final class UploadException extends Exception {
  private static final long serialVersionUID = 1L;
  private final ErrorType type;
  private final int attempts;

  public UploadException(ErrorType type, String message, int attempts, Throwable cause) {
    super(message, cause);
    this.type = type;
    this.attempts = attempts;
  }

  public ErrorType type() {
    return type;
  }

  public int attempts() {
    return attempts;
  }
}
