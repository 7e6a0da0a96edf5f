package io.kafkas3archiver.decode;

/**
 * The invocation's payload is not a Kafka event source mapping event nor a known action. The
 * message holds no payload bytes, and no parser exception is attached as the cause: the Lambda
 * runtime prints the cause chain, and a parser's message quotes its input. What a DEBUG line may
 * add (where the parser stopped, a masked excerpt) is kept apart in {@link #debugDetail()}.
 */
public final class BadEventException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String debugDetail;

  public BadEventException(String message) {
    this(message, null);
  }

  public BadEventException(String message, String debugDetail) {
    super(message);
    this.debugDetail = debugDetail;
  }

  /** Position and masked excerpt of the problem, for DEBUG lines only; null when none. */
  public String debugDetail() {
    return debugDetail;
  }
}
