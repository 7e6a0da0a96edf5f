package io.kafkas3archiver.decode;

/** The invocation's payload is not a Kafka event source mapping event nor a known action. */
public final class BadEventException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BadEventException(String message) {
    super(message);
  }

  public BadEventException(String message, Throwable cause) {
    super(message, cause);
  }
}
