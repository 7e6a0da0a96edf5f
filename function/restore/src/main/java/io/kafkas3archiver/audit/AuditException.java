package io.kafkas3archiver.audit;

/** An audit that cannot run, with a message that names the cause and the fix. */
public final class AuditException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AuditException(String message) {
    super(message);
  }

  public AuditException(String message, Throwable cause) {
    super(message, cause);
  }
}
