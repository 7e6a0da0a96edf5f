package io.kafkas3archiver.testing;

import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.ObjectStore;
import java.util.Map;
import java.util.Optional;

/**
 * A store for tests and benchmarks that never meet a key twice (every batch a first delivery): a
 * conditional put is a plain put, and no metadata is ever read. Never a stand-in for S3 where a
 * redelivery matters: use {@link MemoryStore} there. Its one method takes the body as the pipeline
 * hands it over, in ranges: a benchmark that wants the bytes joined pays for it where it can be
 * seen.
 */
@FunctionalInterface
public interface UnconditionalStore extends ObjectStore {
  @Override
  PutResult put(String key, ObjectBody body, String contentType, Deadline d) throws UploadException;

  @Override
  default PutResult putIfAbsent(
      String key, ObjectBody body, String contentType, Map<String, String> metadata, Deadline d)
      throws UploadException {
    return put(key, body, contentType, d);
  }

  @Override
  default Optional<Map<String, String>> metadata(String key, Deadline d) {
    return Optional.empty();
  }
}
