package io.kafkas3archiver.schema;

/**
 * The registry schema of a batch's records could not be had. It fails the invocation, so the event
 * source mapping retries the batch: a file is never written with another schema than the one the
 * records were validated against. The message names the cause and the fix.
 */
public final class SchemaRegistryException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final boolean retryable;

  public SchemaRegistryException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  /** Whether the same call may succeed later (unreachable, throttled) or needs a fix first. */
  public boolean retryable() {
    return retryable;
  }
}
