package io.kafkas3archiver.testing;

import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.ObjectStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * S3's conditional writes in memory, for unit tests: a key is written once ({@code If-None-Match:
 * *}), its user metadata can be read back, and {@link #fail} decides which writes fail.
 */
public class MemoryStore implements ObjectStore {
  public final Map<String, byte[]> objects = new TreeMap<>();
  public final Map<String, Map<String, String>> metadata = new TreeMap<>();

  /** Throws to fail a write of {@code key}; nothing by default. */
  protected void fail(String key) throws UploadException {}

  @Override
  public synchronized PutResult put(String key, ObjectBody body, String contentType, Deadline d)
      throws UploadException {
    fail(key);
    objects.put(key, body.toByteArray());
    return new PutResult(1, 0);
  }

  @Override
  public synchronized PutResult putIfAbsent(
      String key, ObjectBody body, String contentType, Map<String, String> meta, Deadline d)
      throws UploadException {
    fail(key);
    if (objects.containsKey(key)) {
      return new PutResult(1, 0, false);
    }
    objects.put(key, body.toByteArray());
    metadata.put(key, Map.copyOf(meta));
    return new PutResult(1, 0, true);
  }

  @Override
  public synchronized Optional<byte[]> read(String key, Deadline d) {
    return Optional.ofNullable(objects.get(key));
  }

  @Override
  public synchronized Optional<Map<String, String>> metadata(String key, Deadline d) {
    return Optional.ofNullable(metadata.get(key));
  }
}
