package io.kafkas3archiver.upload;

import java.util.function.UnaryOperator;

/**
 * A copy of an SDK failure whose texts went through a scrubber (record content in an object key
 * masked, DESIGN §6): the class name and message of each exception in the chain, with the original
 * stack traces. The Lambda runtime prints an unhandled exception with its causes, and an S3 server
 * may quote the key it refused.
 */
final class ScrubbedFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final int MAX_DEPTH = 16;

  private ScrubbedFailure(String text, Throwable cause) {
    super(text, cause, false, true);
  }

  static Throwable of(Throwable failure, UnaryOperator<String> scrub) {
    return copy(failure, scrub, 0);
  }

  private static ScrubbedFailure copy(Throwable t, UnaryOperator<String> scrub, int depth) {
    if (t == null) {
      return null;
    }
    Throwable next = t.getCause() == t || depth >= MAX_DEPTH ? null : t.getCause();
    ScrubbedFailure copy =
        new ScrubbedFailure(
            scrub.apply(t.getClass().getName() + ": " + t.getMessage()),
            copy(next, scrub, depth + 1));
    copy.setStackTrace(t.getStackTrace());
    return copy;
  }

  /** The original's class and message, scrubbed, as {@code Throwable.toString} would print them. */
  @Override
  public String toString() {
    return getMessage();
  }
}
