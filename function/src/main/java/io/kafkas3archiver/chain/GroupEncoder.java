package io.kafkas3archiver.chain;

import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.encode.EncodeResult;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import java.util.List;

/** Encodes and compresses a group's records; the chain writer names and writes the bodies. */
public interface GroupEncoder {
  /**
   * @param result rows written, tombstones skipped and the records the format refused
   * @param errors every error row: the group's rejected records, then the format's
   * @param data the data object's body (an empty file of the format when it holds no row)
   * @param rawBytes the data body's size before compression
   * @param errorLines the error object's NDJSON, or null without errors
   */
  record Bodies(
      EncodeResult result,
      List<RejectedRecord> errors,
      ObjectBody data,
      long rawBytes,
      String dataContentType,
      byte[] errorLines) {}

  /** May read or write the topic's schema versions (csv, parquet), within {@code deadline}. */
  Bodies encode(ObjectGroup group, Deadline deadline) throws UploadException;
}
