package io.kafkas3archiver.schema;

/**
 * A declared schema ({@code PARQUET_SCHEMA=glue:...} or {@code s3://...}) could not be read or is
 * not valid. It fails the invocation, so the event source mapping retries the batch: no object is
 * written with another schema than the declared one. The message names the cause and the fix.
 */
public final class DeclaredSchemaException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final boolean retryable;

  public DeclaredSchemaException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  /** Whether the same call may succeed later (unreachable, throttled) or needs a fix first. */
  public boolean retryable() {
    return retryable;
  }
}
