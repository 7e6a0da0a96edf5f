package io.kafkas3archiver.report;

/** One object put to S3: its key, what it holds, and how the upload went. */
public record WrittenObject(
    String key, Kind kind, int rows, long rawBytes, long bytes, int attempts, long millis) {

  /** A data object holds archived rows; an error object holds rejected records. */
  public enum Kind {
    DATA,
    ERROR
  }
}
