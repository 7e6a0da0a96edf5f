package io.kafkas3archiver.upload;

/** Where objects go. One implementation talks to S3; the seam keeps the pipeline testable. */
public interface ObjectStore {

  /** Writes the whole object under {@code key}, retrying transient failures until the deadline. */
  PutResult put(String key, byte[] body, String contentType, Deadline deadline)
      throws UploadException;

  /**
   * Warms the client's code paths (SnapStart priming) without writing anything. The default does
   * nothing.
   */
  default void prime() {}

  /** How one successful put went: attempts made (1 = no retry) and the time it took. */
  record PutResult(int attempts, long millis) {}
}
