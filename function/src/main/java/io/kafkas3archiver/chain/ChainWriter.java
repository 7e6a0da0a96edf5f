package io.kafkas3archiver.chain;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.decode.TopicPartition;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.group.Hours;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.group.PartitionTime;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.WrittenObject;
import io.kafkas3archiver.upload.ObjectStore;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one writer of the conditional-write protocol (DESIGN §1, §3): it names each object, writes it
 * with {@code If-None-Match: *}, meets a 412, reads the stored claim, leaves pointers and resumes
 * past what is stored. Nothing else in the code knows the protocol.
 *
 * <p>Each partition's objects form a chain: an object named from offset {@code a} claims the
 * offsets {@code [a, b]} in its user metadata ({@link Claim}). A delivery that meets an existing
 * object (412) reads its claim and writes only the records past {@code b}, as a new object named
 * from the first of them: the same protocol, so the chain does not depend on who wrote first. The
 * data object is the claim for its error object too (it is written first, with zero rows if need
 * be), so error rows follow the same chain and are never written twice.
 *
 * <p>A delivery that ends inside a stored claim ({@code b} past its last offset) leaves a zero-row
 * pointer object where the mapping will restart, named as that restart will name its object and
 * claiming the rest of {@code [.., b]}; the restart then meets it instead of writing those records
 * again.
 *
 * <p>A claim is built record by record ({@link ClaimBuilder}) and an object is cut only where its
 * claim would outgrow S3's 2 KB of user metadata, so a batch costs time linear in its records.
 */
public final class ChainWriter {
  private final ArchiverConfig config;
  private final ObjectKeyTemplate keys;
  private final GroupEncoder encoder;
  private final ObjectStore store;
  private final PartitionTime partitionTime;
  private final String format;

  public ChainWriter(ArchiverConfig config, GroupEncoder encoder, ObjectStore store) {
    this.config = config;
    this.keys = config.keyTemplate();
    this.encoder = encoder;
    this.store = store;
    this.partitionTime = config.partitionTime();
    this.format = config.format().configName();
  }

  /**
   * One invocation's writes. {@code partitionEnds}: per topic-partition ({@code t-0}), the last
   * offset of this delivery, where the mapping restarts after it (pointers go past it).
   */
  public Session session(Map<String, Long> partitionEnds) {
    return new Session(partitionEnds);
  }

  /** The claim of a group's first object (tests: what a restart inside it would meet). */
  public Claim claim(ObjectGroup group) {
    Points points = new Points(group);
    ClaimBuilder builder = new ClaimBuilder(group.start());
    Hours hours = new Hours(config.timeZone());
    for (int i = 0; i < points.size(); i++) {
      if (!builder.add(points.offset(i), restartFolder(hours, points.timestamp(i), group))) {
        break;
      }
    }
    return builder.claim();
  }

  /** The folder a delivery starting at a record with this timestamp would name its object in. */
  private long restartFolder(Hours hours, long timestamp, ObjectGroup group) {
    return switch (partitionTime) {
      case BATCH -> hours.of(timestamp);
      case RECORD, FIELD, INGEST -> group.folderTime().toEpochSecond();
    };
  }

  /** The writes of one invocation: claims met, and where each partition could not be written. */
  public final class Session {
    private final Map<String, Long> partitionEnds;
    private final Hours hours = new Hours(config.timeZone());
    private final Map<String, List<long[]>> claims = new HashMap<>();
    // Per topic-partition, the first offset of an object that was not written, and why. The ESM
    // redelivers that partition from there, so no later object may hold records at or after it:
    // they would be written again, under another key, on redelivery.
    private final Map<String, Long> unwrittenFrom = new HashMap<>();
    private final Map<String, UploadException> unwrittenBecause = new HashMap<>();
    private final List<BatchOutcome.Failure> failures = new ArrayList<>();
    private UploadException bucketWide;

    private Session(Map<String, Long> partitionEnds) {
      this.partitionEnds = partitionEnds;
    }

    /** Writes a group: as links of its partition's chain, or as an error object of its own. */
    public void write(ObjectGroup group, Deadline deadline, Ledger ledger) {
      UploadException blocked = bucketWide != null ? bucketWide : blockedBy(group);
      if (blocked != null) {
        ledger.failed(group.recordCount(), 0);
        markUnwritten(group, group.start(), blocked);
        return;
      }
      try {
        if (group.placed()) {
          writeChain(group, deadline, ledger);
        } else {
          writeUnplaced(group, deadline, ledger);
        }
      } catch (ChainFailure f) {
        ledger.failed(f.unwrittenRecords, Math.max(0, f.cause.attempts() - 1));
        markUnwritten(group, f.unwrittenFrom, f.cause);
        if (f.cause.type().affectsWholeBucket()) {
          bucketWide = f.cause;
        }
      }
    }

    /**
     * The failures, each reported offset moved back to the start of a claim of this invocation that
     * covers it (possible when a partition's records fall into several folders whose offsets
     * interleave): the restart then meets the claim instead of naming a new object inside it.
     */
    public List<BatchOutcome.Failure> failures() {
      List<BatchOutcome.Failure> out = new ArrayList<>(failures.size());
      for (BatchOutcome.Failure f : failures) {
        Map<String, Long> offsets = new LinkedHashMap<>();
        f.firstOffsets().forEach((tp, offset) -> offsets.put(tp, outsideClaims(tp, offset)));
        out.add(new BatchOutcome.Failure(f.topic(), offsets, f.error()));
      }
      return out;
    }

    private long outsideClaims(String tp, long offset) {
      long at = offset;
      boolean moved = true;
      while (moved) {
        moved = false;
        for (long[] c : claims.getOrDefault(tp, List.of())) {
          if (c[0] < at && at <= c[1]) {
            at = c[0];
            moved = true;
          }
        }
      }
      return at;
    }

    private void writeChain(ObjectGroup group, Deadline deadline, Ledger ledger)
        throws ChainFailure {
      String tp = tp(group);
      long partitionEnd = partitionEnds.getOrDefault(tp, group.last());
      List<long[]> seen = claims.computeIfAbsent(tp, k -> new ArrayList<>());
      Points points = new Points(group);
      long groupLast = points.size() == 0 ? group.start() : points.offset(points.size() - 1);
      int at = 0; // the first point of the rest of the group
      long start = group.start();
      ZonedDateTime folder = group.folderTime();
      while (true) {
        ClaimBuilder builder = new ClaimBuilder(start);
        int end = at;
        while (end < points.size()
            && builder.add(
                points.offset(end), restartFolder(hours, points.timestamp(end), group))) {
          end++;
        }
        ObjectGroup piece = points.slice(group, start, folder, at, end);
        long storedLast;
        try {
          GroupEncoder.Bodies bodies = encoder.encode(piece, deadline);
          Kind holder = holder(piece, bodies);
          Claim claim = builder.claim().withErrorRows(bodies.errors().size());
          if (holder == Kind.ERROR) {
            claim = claim.withDataRows(bodies.result().rowsWritten());
          }
          WrittenObject held =
              holder == Kind.NONE ? null : put(holder, piece, bodies, claim, deadline, ledger);
          if (holder == Kind.NONE || held != null) {
            // Written (or nothing to write: only skipped tombstones, whose offsets no object
            // holds; a later delivery of them writes nothing either).
            if (held != null) {
              ledger.written(held);
              Kind companion = holder == Kind.DATA ? Kind.ERROR : Kind.DATA;
              if (holds(companion, bodies)) {
                WrittenObject beside = put(companion, piece, bodies, claim, deadline, ledger);
                if (beside != null) {
                  ledger.written(beside);
                }
              }
            }
            ledger.stored(
                bodies.result().rowsWritten(),
                bodies.result().tombstonesSkipped(),
                bodies.result().valuesOverflowed(),
                bodies.errors());
            storedLast = piece.last();
          } else {
            Claim stored = storedClaim(key(holder, piece), deadline);
            storedLast = stored.last();
            int coveredEnd = points.indexAfter(at, storedLast);
            ObjectGroup covered = points.slice(group, start, folder, at, coveredEnd);
            ledger.alreadyArchived(covered.recordCount());
            Kind companion = companionOf(holder, stored);
            if (companion != null && storedLast <= groupLast) {
              // The claim's writer may have stopped before the object beside it: this delivery
              // holds every record of the claim, so it can write that object, the same bytes, once.
              GroupEncoder.Bodies again = encoder.encode(covered, deadline);
              if (holds(companion, again)) {
                WrittenObject beside = put(companion, covered, again, stored, deadline, ledger);
                if (beside != null) {
                  ledger.written(beside);
                }
              }
            } else if (companion != null) {
              requireCompanion(companion, piece, groupLast, stored, deadline);
            }
            if (storedLast > partitionEnd) {
              leavePointers(group, stored, partitionEnd + 1, deadline, ledger);
            }
          }
        } catch (UploadException e) {
          throw new ChainFailure(start, points.size() - at, e);
        }
        seen.add(new long[] {piece.start(), storedLast});
        at = points.indexAfter(at, storedLast);
        if (at >= points.size()) {
          return;
        }
        // The rest, in the folder a delivery starting there would name: under batch, the hour of
        // that first record, so a continuation and a later delivery from it agree on its key.
        start = points.offset(at);
        folder =
            switch (partitionTime) {
              case BATCH -> hours.folder(points.timestamp(at));
              case RECORD, FIELD, INGEST -> group.folderTime();
            };
      }
    }

    /**
     * Writes the data or the error object of a piece under {@code claim}; null when the key
     * existed.
     */
    private WrittenObject put(
        Kind kind,
        ObjectGroup piece,
        GroupEncoder.Bodies bodies,
        Claim claim,
        Deadline deadline,
        Ledger ledger)
        throws UploadException {
      return kind == Kind.DATA
          ? putIfAbsent(
              key(kind, piece),
              WrittenObject.Kind.DATA,
              bodies.result().rowsWritten(),
              bodies.rawBytes(),
              bodies.data(),
              bodies.dataContentType(),
              claim,
              deadline,
              ledger)
          : putIfAbsent(
              key(kind, piece),
              WrittenObject.Kind.ERROR,
              bodies.errors().size(),
              bodies.errorLines().length,
              ObjectBody.of(bodies.errorLines()),
              ERROR_CONTENT_TYPE,
              claim,
              deadline,
              ledger);
    }

    /**
     * A claim whose holder says an object belongs beside it (error rows beside a data object, data
     * rows beside an error object) that is missing (its writer stopped in between), met by a
     * delivery that does not hold the claim's whole range, so it cannot write that object. Moving
     * on would lose those rows for good: the partition is reported (or the batch failed) from the
     * claim's start instead, until a delivery that holds the whole range comes.
     */
    private void requireCompanion(
        Kind companion, ObjectGroup piece, long groupLast, Claim stored, Deadline d)
        throws UploadException {
      String key = key(companion, piece);
      if (store.metadata(key, d).isPresent()) {
        return;
      }
      throw new UploadException(
          ErrorType.SERVER_ERROR,
          "the "
              + (companion == Kind.ERROR ? "error" : "data")
              + " object s3://"
              + config.bucketName()
              + "/"
              + config.shownKey(key)
              + " of offsets "
              + stored.first()
              + "-"
              + stored.last()
              + " is missing (an earlier invocation stopped after the object beside it), and this"
              + " batch ends at "
              + groupLast
              + ", so it cannot write it; the partition will be redelivered from "
              + stored.first(),
          1,
          null);
    }

    /**
     * The mapping will restart this partition at {@code cut}, inside {@code stored}'s range: leave
     * claim-only objects where that restart will name its first object. It holds the first record
     * after the cut, this delivery does not, so which of the two keys it probes (data or error, see
     * {@link #holder}) is not known here: both get a pointer.
     */
    private void leavePointers(
        ObjectGroup group, Claim stored, long cut, Deadline deadline, Ledger ledger)
        throws UploadException {
      for (Claim.Pointer pointer : stored.pointersAt(cut, config.timeZone())) {
        Claim claim = pointer.claim();
        ObjectGroup empty =
            new ObjectGroup(
                group.topic(),
                group.partition(),
                claim.first(),
                pointer.folder(),
                List.of(),
                List.of(),
                // The claim met is this group's key, so its record-variable values are the group's.
                group.folderValues());
        GroupEncoder.Bodies bodies = encoder.encode(empty, deadline);
        WrittenObject data =
            putIfAbsent(
                key(Kind.DATA, empty),
                WrittenObject.Kind.DATA,
                0,
                bodies.rawBytes(),
                bodies.data(),
                bodies.dataContentType(),
                claim,
                deadline,
                ledger);
        if (data != null) {
          ledger.written(data);
        }
        WrittenObject errors =
            putIfAbsent(
                key(Kind.ERROR, empty),
                WrittenObject.Kind.ERROR,
                0,
                0,
                ObjectBody.of(new byte[0]),
                ERROR_CONTENT_TYPE,
                claim,
                deadline,
                ledger);
        if (errors != null) {
          ledger.written(errors);
        }
      }
    }

    /** Records rejected without partition or offset: one error object, named by their content. */
    private void writeUnplaced(ObjectGroup group, Deadline deadline, Ledger ledger)
        throws ChainFailure {
      GroupEncoder.Bodies bodies;
      try {
        bodies = encoder.encode(group, deadline);
      } catch (UploadException e) {
        throw new ChainFailure(group.start(), group.recordCount(), e);
      }
      try {
        if (bodies.errorLines() != null) {
          String key = keys.errorKey(group, group.jobId(format));
          var r =
              store.putIfAbsent(key, bodies.errorLines(), ERROR_CONTENT_TYPE, Map.of(), deadline);
          if (r.created()) {
            ledger.written(
                new WrittenObject(
                    key,
                    WrittenObject.Kind.ERROR,
                    bodies.errors().size(),
                    bodies.errorLines().length,
                    bodies.errorLines().length,
                    r.attempts(),
                    r.millis()));
          } else {
            ledger.retries(r.attempts() - 1); // the same bytes, written before
          }
        }
      } catch (UploadException e) {
        throw new ChainFailure(group.start(), group.recordCount(), e);
      }
      ledger.stored(0, 0, 0, bodies.errors());
    }

    /** The put's object, or null when the key existed and nothing was written. */
    private WrittenObject putIfAbsent(
        String key,
        WrittenObject.Kind kind,
        int rows,
        long rawBytes,
        ObjectBody body,
        String contentType,
        Claim claim,
        Deadline deadline,
        Ledger ledger)
        throws UploadException {
      var result = store.putIfAbsent(key, body, contentType, claim.toMetadata(), deadline);
      if (!result.created()) {
        // Retries spent before meeting the key (often this put's own first write, its answer
        // lost) are still retries: without this, uploadRetries reads 0 after lost answers.
        ledger.retries(result.attempts() - 1);
        return null;
      }
      return new WrittenObject(
          key, kind, rows, rawBytes, body.length(), result.attempts(), result.millis());
    }

    private Claim storedClaim(String key, Deadline deadline) throws UploadException {
      var metadata = store.metadata(key, deadline);
      if (metadata.isEmpty()) {
        // Deleted between our put and our read: not ours to recreate in this invocation.
        throw new UploadException(
            ErrorType.SERVER_ERROR,
            "s3://"
                + config.bucketName()
                + "/"
                + config.shownKey(key)
                + " existed when it was written and was gone when its offset range was read; the"
                + " batch will be retried",
            1,
            null);
      }
      return Claim.fromMetadata(metadata.get())
          .orElseThrow(
              () ->
                  new UploadException(
                      ErrorType.INVALID_REQUEST,
                      "s3://"
                          + config.bucketName()
                          + "/"
                          + config.shownKey(key)
                          + " exists but carries no offset range (x-amz-meta-"
                          + Claim.OFFSETS
                          + "), so it was not written by this version of the archiver; move it"
                          + " out of KEY_PREFIX '"
                          + config.keyPrefix()
                          + "' or choose another KEY_PREFIX",
                      1,
                      null));
    }

    /** The failure that stops this group, if it holds records at or after an unwritten offset. */
    private UploadException blockedBy(ObjectGroup group) {
      if (!group.placed()) {
        return null;
      }
      Long from = unwrittenFrom.get(tp(group));
      if (from != null && group.last() >= from) {
        return unwrittenBecause.get(tp(group));
      }
      return null;
    }

    private void markUnwritten(ObjectGroup group, long from, UploadException cause) {
      Map<String, Long> firstOffsets = new LinkedHashMap<>();
      if (group.placed()) {
        String tp = tp(group);
        firstOffsets.put(tp, from);
        unwrittenFrom.merge(tp, from, Math::min);
        unwrittenBecause.putIfAbsent(tp, cause);
      }
      failures.add(new BatchOutcome.Failure(group.topic(), firstOffsets, cause));
    }
  }

  private static final String ERROR_CONTENT_TYPE = "application/x-ndjson";

  /**
   * Which object of a piece holds its claim: the one its first record with output goes to. A
   * delivery that writes a piece and one that meets it later start from the same offset, so they
   * hold the same first record and agree on the key to probe; an error-only piece writes one
   * object, and one of skipped tombstones only writes none ({@code NONE}).
   */
  enum Kind {
    DATA,
    ERROR,
    NONE
  }

  private Kind holder(ObjectGroup piece, GroupEncoder.Bodies bodies) {
    boolean rows = bodies.result().rowsWritten() > 0;
    boolean errors = !bodies.errors().isEmpty();
    if (!rows) {
      return errors ? Kind.ERROR : Kind.NONE;
    }
    if (!errors) {
      return Kind.DATA;
    }
    long firstError = Long.MAX_VALUE;
    java.util.Set<Long> refused = new java.util.HashSet<>();
    for (RejectedRecord r : bodies.errors()) {
      if (r.offset() != null) {
        firstError = Math.min(firstError, r.offset());
      }
    }
    for (RejectedRecord r : bodies.result().rejected()) {
      refused.add(r.offset());
    }
    boolean tombstonesAreRows = config.includeKafkaMetadata();
    for (KafkaRecord r : piece.records()) { // in offset order
      if (r.offset() > firstError) {
        break;
      }
      if (!refused.contains(r.offset()) && (tombstonesAreRows || !r.isTombstone())) {
        return Kind.DATA;
      }
    }
    return Kind.ERROR;
  }

  /** Whether a piece's bodies hold an object of this kind. */
  private static boolean holds(Kind kind, GroupEncoder.Bodies bodies) {
    return kind == Kind.DATA ? bodies.result().rowsWritten() > 0 : bodies.errorLines() != null;
  }

  /** The object a stored claim says belongs beside its holder, if any. */
  private static Kind companionOf(Kind holder, Claim stored) {
    if (holder == Kind.DATA && stored.errorRows() > 0) {
      return Kind.ERROR;
    }
    if (holder == Kind.ERROR && stored.dataRows() > 0) {
      return Kind.DATA;
    }
    return null;
  }

  private String key(Kind kind, ObjectGroup piece) {
    return kind == Kind.DATA
        ? keys.dataKey(piece, piece.jobId(format))
        : keys.errorKey(piece, piece.jobId(format));
  }

  private static String tp(ObjectGroup g) {
    return new TopicPartition(g.topic(), g.partition()).id();
  }

  /** The rest of a group, from where its chain could not be written, and why. */
  private static final class ChainFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final long unwrittenFrom;
    private final int unwrittenRecords;
    private final transient UploadException cause;

    ChainFailure(long unwrittenFrom, int unwrittenRecords, UploadException cause) {
      super(cause.getMessage(), cause, false, false);
      this.unwrittenFrom = unwrittenFrom;
      this.unwrittenRecords = unwrittenRecords;
      this.cause = cause;
    }
  }

  /**
   * A placed group's records and offset-carrying rejections, merged in offset order once, so the
   * pieces of a group are slices of it (rejections without an offset cannot be in a chain).
   */
  private static final class Points {
    private final List<KafkaRecord> records;
    private final List<RejectedRecord> rejected;
    // Per point in offset order: the number of records and rejections before it. Null when the
    // group has no rejection with an offset (the usual group): the points are then the records.
    private final int[] recordsBefore;
    private final int[] rejectedBefore;
    private final long[] offsets;
    private final long[] timestamps;

    Points(ObjectGroup group) {
      records = inOffsetOrder(group.records());
      rejected = new ArrayList<>();
      for (RejectedRecord r : group.rejected()) {
        if (r.offset() != null) {
          rejected.add(r);
        }
      }
      if (rejected.isEmpty()) {
        recordsBefore = rejectedBefore = null;
        offsets = timestamps = null;
        return;
      }
      rejected.sort(Comparator.comparingLong(RejectedRecord::offset));
      int n = records.size() + rejected.size();
      recordsBefore = new int[n + 1];
      rejectedBefore = new int[n + 1];
      offsets = new long[n];
      timestamps = new long[n];
      int i = 0;
      int j = 0;
      for (int k = 0; k < n; k++) {
        recordsBefore[k] = i;
        rejectedBefore[k] = j;
        boolean takeRecord =
            j >= rejected.size()
                || (i < records.size() && records.get(i).offset() <= rejected.get(j).offset());
        if (takeRecord) {
          offsets[k] = records.get(i).offset();
          timestamps[k] = records.get(i).timestamp();
          i++;
        } else {
          offsets[k] = rejected.get(j).offset();
          timestamps[k] = rejected.get(j).timestamp();
          j++;
        }
      }
      recordsBefore[n] = i;
      rejectedBefore[n] = j;
    }

    /** The records as given when they already are in offset order (the grouper sorts them). */
    private static List<KafkaRecord> inOffsetOrder(List<KafkaRecord> records) {
      for (int i = 1; i < records.size(); i++) {
        if (records.get(i - 1).offset() > records.get(i).offset()) {
          List<KafkaRecord> sorted = new ArrayList<>(records);
          sorted.sort(Comparator.comparingLong(KafkaRecord::offset));
          return sorted;
        }
      }
      return records;
    }

    int size() {
      return offsets == null ? records.size() : offsets.length;
    }

    long offset(int k) {
      return offsets == null ? records.get(k).offset() : offsets[k];
    }

    long timestamp(int k) {
      return timestamps == null ? records.get(k).timestamp() : timestamps[k];
    }

    private int recordsBefore(int k) {
      return recordsBefore == null ? k : recordsBefore[k];
    }

    private int rejectedBefore(int k) {
      return rejectedBefore == null ? 0 : rejectedBefore[k];
    }

    /** The first point at or after {@code from} whose offset is past {@code last}. */
    int indexAfter(int from, long last) {
      int k = from;
      while (k < size() && offset(k) <= last) {
        k++;
      }
      return k;
    }

    /** Points {@code [from, to)} as a group named from {@code start} in {@code folder}. */
    ObjectGroup slice(ObjectGroup group, long start, ZonedDateTime folder, int from, int to) {
      return new ObjectGroup(
          group.topic(),
          group.partition(),
          start,
          folder,
          records.subList(recordsBefore(from), recordsBefore(to)),
          rejected.subList(rejectedBefore(from), rejectedBefore(to)),
          group.folderValues());
    }
  }
}
