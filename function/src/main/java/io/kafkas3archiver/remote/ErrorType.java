package io.kafkas3archiver.remote;

/** The stable {@code errorType} of a failed upload, as logged and alarmed on. */
public enum ErrorType {
  ACCESS_DENIED("AccessDenied", false),
  INVALID_CREDENTIALS("InvalidCredentials", false),
  CREDENTIALS_UNAVAILABLE("CredentialsUnavailable", false),
  NO_SUCH_BUCKET("NoSuchBucket", false),
  WRONG_REGION("WrongRegion", false),
  INVALID_REQUEST("InvalidRequest", false),
  THROTTLED("Throttled", true),
  SERVER_ERROR("ServerError", true),
  NETWORK("Network", true),
  TIMEOUT("Timeout", true),
  /** OUTPUT_FORMAT=iceberg: other writers kept winning the optimistic commit until the deadline. */
  COMMIT_CONFLICT("CommitConflict", true),
  /** OUTPUT_FORMAT=iceberg: the catalog refused or failed a call (not found, denied, invalid). */
  CATALOG("CatalogError", false);

  private final String label;
  private final boolean retryable;

  ErrorType(String label, boolean retryable) {
    this.label = label;
    this.retryable = retryable;
  }

  public String label() {
    return label;
  }

  public boolean retryable() {
    return retryable;
  }

  /** Errors that every object in the batch would meet too, so trying the rest is pointless. */
  public boolean affectsWholeBucket() {
    return switch (this) {
      case ACCESS_DENIED,
          INVALID_CREDENTIALS,
          CREDENTIALS_UNAVAILABLE,
          NO_SUCH_BUCKET,
          WRONG_REGION ->
          true;
      case INVALID_REQUEST, THROTTLED, SERVER_ERROR, NETWORK, TIMEOUT, COMMIT_CONFLICT, CATALOG ->
          false;
    };
  }
}
