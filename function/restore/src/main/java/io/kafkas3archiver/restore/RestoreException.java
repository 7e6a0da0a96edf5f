package io.kafkas3archiver.restore;

/**
 * A restore that cannot go on, with a message that names the cause and the fix. Whether running the
 * same command again helps is part of the message: it is said only where it does (a failure after
 * producing began resumes from the checkpoint; a wrong bucket or a missing region does not get
 * better by rerunning).
 */
public final class RestoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RestoreException(String message) {
    super(message);
  }

  public RestoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** What follows a failure once producing began: nothing past the last checkpoint is committed. */
  static final String RERUN_RESUMES =
      "nothing after the last checkpoint was committed, so rerunning the same command resumes"
          + " there";
}
