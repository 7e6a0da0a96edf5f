package io.kafkas3archiver.esm;

import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Wraps the real S3 store and injects faults: a failed upload (an {@link UploadException}, as
 * {@code S3ObjectStore} throws once its own retries are spent) or a crash right after an object was
 * written (an unchecked exception escaping the handler, as a timeout or an out-of-memory kill ends
 * the invocation). Each fault fires a bounded number of times.
 */
public final class FaultyStore implements ObjectStore {
  private final ObjectStore delegate;
  private final Predicate<String> failUploadOf;
  private final AtomicInteger uploadFailuresLeft;
  private final AtomicInteger crashesLeft;
  private final List<String> written = new ArrayList<>();
  private final AtomicInteger injected = new AtomicInteger();

  private FaultyStore(
      ObjectStore delegate, Predicate<String> failUploadOf, int uploadFailures, int crashes) {
    this.delegate = delegate;
    this.failUploadOf = failUploadOf;
    this.uploadFailuresLeft = new AtomicInteger(uploadFailures);
    this.crashesLeft = new AtomicInteger(crashes);
  }

  /** The first {@code times} uploads whose key matches fail with a 503-like server error. */
  public static FaultyStore failingUploads(
      ObjectStore delegate, Predicate<String> keyMatches, int times) {
    return new FaultyStore(delegate, keyMatches, times, 0);
  }

  /** The first {@code times} uploads succeed and then the invocation dies. */
  public static FaultyStore crashingAfterWrite(ObjectStore delegate, int times) {
    return new FaultyStore(delegate, k -> false, 0, times);
  }

  @Override
  public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
      throws UploadException {
    if (failUploadOf.test(key) && uploadFailuresLeft.getAndDecrement() > 0) {
      injected.incrementAndGet();
      throw new UploadException(
          ErrorType.SERVER_ERROR, "injected fault: S3 answered 503 SlowDown for " + key, 6, null);
    }
    PutResult result = delegate.put(key, body, contentType, deadline);
    synchronized (written) {
      written.add(key);
    }
    if (crashesLeft.getAndDecrement() > 0) {
      injected.incrementAndGet();
      throw new SimulatedCrash("injected crash after writing " + key);
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
    if (failUploadOf.test(key) && uploadFailuresLeft.getAndDecrement() > 0) {
      injected.incrementAndGet();
      throw new UploadException(
          ErrorType.SERVER_ERROR, "injected fault: S3 answered 503 SlowDown for " + key, 6, null);
    }
    PutResult result = delegate.putIfAbsent(key, body, contentType, metadata, deadline);
    if (result.created()) {
      synchronized (written) {
        written.add(key);
      }
      if (crashesLeft.getAndDecrement() > 0) {
        injected.incrementAndGet();
        throw new SimulatedCrash("injected crash after writing " + key);
      }
    }
    return result;
  }

  @Override
  public Optional<Map<String, String>> metadata(String key, Deadline deadline)
      throws UploadException {
    return delegate.metadata(key, deadline);
  }

  @Override
  public Optional<byte[]> read(String key, Deadline deadline) throws UploadException {
    return delegate.read(key, deadline);
  }

  /** Keys written, in order, including writes of invocations that then failed. */
  public List<String> written() {
    synchronized (written) {
      return List.copyOf(written);
    }
  }

  public int faultsInjected() {
    return injected.get();
  }

  /** The invocation ended abruptly after a write. */
  public static final class SimulatedCrash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(String message) {
      super(message);
    }
  }
}
