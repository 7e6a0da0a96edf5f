package io.kafkas3archiver.chain;

import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.report.WrittenObject;
import java.util.List;

/** What the chain writer tells the caller about one group: objects, rows, retries, failures. */
public interface Ledger {
  /** An object this invocation created. */
  void written(WrittenObject object);

  /** Records this invocation stored: data rows, skipped tombstones, error rows. */
  void stored(int rows, int tombstones, int overflowed, List<RejectedRecord> errors);

  /** Records found in objects an earlier delivery wrote. */
  void alreadyArchived(int records);

  /** Retries spent by puts that met an existing key (often their own lost first write). */
  void retries(int retries);

  /** Records not archived, reported back or failing the batch, and the retries spent on them. */
  void failed(int records, int retries);
}
