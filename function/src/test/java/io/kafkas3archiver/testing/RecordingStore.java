package io.kafkas3archiver.testing;

import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Passes puts through to a real store and remembers the keys of the data and error objects that
 * were written, in order (the topic schemas under {@code _schemas/} in {@link #schemaKeys()}).
 */
public final class RecordingStore implements ObjectStore {
  private final ObjectStore delegate;
  private final List<String> keys = new ArrayList<>();
  private final List<String> schemaKeys = new ArrayList<>();

  public RecordingStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
      throws UploadException {
    PutResult result = delegate.put(key, body, contentType, deadline);
    synchronized (keys) {
      keys.add(key);
    }
    return result;
  }

  @Override
  public PutResult putIfAbsent(
      String key,
      ObjectBody body,
      String contentType,
      Map<String, String> metadata,
      Deadline deadline)
      throws UploadException {
    PutResult result = delegate.putIfAbsent(key, body, contentType, metadata, deadline);
    if (result.created()) {
      synchronized (keys) {
        (key.contains("/_schemas/") ? schemaKeys : keys).add(key);
      }
    }
    return result;
  }

  @Override
  public Optional<byte[]> read(String key, Deadline deadline) throws UploadException {
    return delegate.read(key, deadline);
  }

  @Override
  public Optional<Map<String, String>> metadata(String key, Deadline deadline)
      throws UploadException {
    return delegate.metadata(key, deadline);
  }

  @Override
  public void prime() {
    delegate.prime();
  }

  public List<String> keys() {
    synchronized (keys) {
      return List.copyOf(keys);
    }
  }

  public List<String> schemaKeys() {
    synchronized (keys) {
      return List.copyOf(schemaKeys);
    }
  }

  public void clear() {
    synchronized (keys) {
      keys.clear();
      schemaKeys.clear();
    }
  }
}
