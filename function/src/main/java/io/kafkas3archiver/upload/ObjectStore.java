package io.kafkas3archiver.upload;

import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import java.util.Map;
import java.util.Optional;

/** Where objects go. One implementation talks to S3; the seam keeps the pipeline testable. */
public interface ObjectStore {

  /**
   * Writes the whole object under {@code key}, retrying transient failures until the deadline. The
   * body is the encoder's ranges as they are: a store that needs one array asks {@link
   * ObjectBody#toByteArray}, so no store, and no store wrapping another, copies a body unseen.
   */
  PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
      throws UploadException;

  /** As above, for a body in one array (wrapped, not copied). */
  default PutResult put(String key, byte[] body, String contentType, Deadline deadline)
      throws UploadException {
    return put(key, ObjectBody.of(body), contentType, deadline);
  }

  /**
   * Writes the object only if no object has that key ({@code If-None-Match: *}), with {@code
   * metadata} as its user metadata. A key that exists is not an error: the result says {@code
   * created=false} and nothing was written. There is no unconditional fallback: exactly-once rests
   * on this refusal (see {@code chain.ChainWriter}), so every store must implement it.
   */
  PutResult putIfAbsent(
      String key,
      ObjectBody body,
      String contentType,
      Map<String, String> metadata,
      Deadline deadline)
      throws UploadException;

  /** As above, for a body in one array (wrapped, not copied). */
  default PutResult putIfAbsent(
      String key, byte[] body, String contentType, Map<String, String> metadata, Deadline deadline)
      throws UploadException {
    return putIfAbsent(key, ObjectBody.of(body), contentType, metadata, deadline);
  }

  /** The user metadata of the object at {@code key}, or empty when there is none. */
  Optional<Map<String, String>> metadata(String key, Deadline deadline) throws UploadException;

  /**
   * The body of the object at {@code key}, or empty when there is none. The default, for test
   * doubles that keep no bodies, finds none.
   */
  default Optional<byte[]> read(String key, Deadline deadline) throws UploadException {
    return Optional.empty();
  }

  /**
   * Warms the client's code paths (SnapStart priming) without writing anything. The default does
   * nothing.
   */
  default void prime() {}

  /**
   * How one put went: attempts made (1 = no retry), the time it took, and whether it created the
   * object ({@code false}: the key existed, so a conditional put wrote nothing).
   */
  record PutResult(int attempts, long millis, boolean created) {
    public PutResult(int attempts, long millis) {
      this(attempts, millis, true);
    }
  }
}
