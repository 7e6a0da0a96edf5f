package io.kafkas3archiver;

/**
 * Thrown to fail the invocation so that the event source mapping retries the batch. The message is
 * the first failure's advice; it never holds credentials.
 */
public final class ArchiveFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String errorType;

  public ArchiveFailedException(String errorType, String message, Throwable cause) {
    super(errorType + ": " + message, cause);
    this.errorType = errorType;
  }

  public String errorType() {
    return errorType;
  }
}
