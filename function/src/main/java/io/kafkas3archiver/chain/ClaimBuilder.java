package io.kafkas3archiver.chain;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the claim of an object one record at a time, in offset order, and says when the next
 * record would no longer fit S3's user-metadata budget (see {@link Claim#METADATA_BYTES}). Every
 * step is constant time: the claim's metadata size is kept up to date as segments and gaps grow, so
 * a batch's claims cost time linear in the batch, however often its folders alternate.
 *
 * <p>Two shapes keep jittered record times from cutting objects short: a start folder that comes
 * back (records alternating across an hour edge, under {@code PARTITION_TIME=batch}) merges into
 * one mixed segment instead of one segment per alternation; and gaps that interleave finely (two
 * folders' offsets, under {@code record}) are written as a bitmap of held offsets when that is
 * shorter than the delta code (see {@link Claim}).
 */
public final class ClaimBuilder {
  private static final int META_PREFIX = "x-amz-meta-".length();
  private static final int BUDGET = Claim.BUDGET;

  /**
   * Names and the widest row counts ({@code errors+rows}), which are known only once the object is
   * encoded.
   */
  private static final int FIXED =
      3 * META_PREFIX
          + Claim.OFFSETS.length()
          + Claim.ERROR_ROWS.length()
          + Claim.SEGMENTS.length()
          + digits(Integer.MAX_VALUE)
          + 1
          + digits(Integer.MAX_VALUE);

  private static final int GAPS_NAME = META_PREFIX + Claim.GAPS.length();

  private final long first;
  private long last;
  private boolean empty = true;

  private final List<Claim.Segment> segments = new ArrayList<>();
  private int closedSegmentBytes; // closed segments, each with its comma
  private long segFrom;
  private long segTo;
  private long segFolder;
  private final List<Long> segOthers = new ArrayList<>(); // a mixed segment's other folders

  private final List<Claim.Gap> gaps = new ArrayList<>();
  private long previousGapEnd;
  private int finishedGapBytes; // finished delta entries, each with its comma
  private long entryHeld;
  private long entryLength;
  private int entryTimes; // 0: no entry yet

  /** A claim whose object is named from {@code first}. */
  public ClaimBuilder(long first) {
    this.first = first;
    this.last = first - 1;
    this.previousGapEnd = first - 1;
  }

  /** Whether no record was added yet. */
  public boolean isEmpty() {
    return empty;
  }

  /** The last offset added (the claim's {@code last}). */
  public long last() {
    return last;
  }

  /**
   * Adds the record at {@code offset} whose restart folder is {@code folderEpochSecond}, or returns
   * false and changes nothing when the claim would then outgrow the budget. The first record always
   * fits. Offsets come in ascending order; one at or below {@link #last()} (a duplicate) adds
   * nothing.
   */
  public boolean add(long offset, long folderEpochSecond) {
    if (!empty && offset <= last) {
      return true;
    }
    // The gaps' delta code after this record.
    boolean gap = offset > last + 1;
    long held = 0;
    long length = 0;
    boolean repeats = false;
    int delta = deltaBytes();
    if (gap) {
      held = last + 1 - previousGapEnd - 1;
      length = offset - (last + 1);
      repeats = entryTimes > 0 && held == entryHeld && length == entryLength;
      delta =
          repeats
              ? finishedGapBytes + entryBytes(entryHeld, entryLength, entryTimes + 1)
              : (entryTimes > 0
                      ? finishedGapBytes + entryBytes(entryHeld, entryLength, entryTimes) + 1
                      : 0)
                  + entryBytes(held, length, 1);
    }
    boolean anyGaps = gap || !gaps.isEmpty();
    int gapBytes = anyGaps ? GAPS_NAME + chosenGapBytes(delta, offset) : 0;

    // The segment: extend the current one, start a new one, or (the folder comes back: records
    // jitter across an hour edge) merge the current one into the one before as a mixed segment.
    boolean extend =
        !empty && (folderEpochSecond == segFolder || segOthers.contains(folderEpochSecond));
    Claim.Segment previous = segments.isEmpty() ? null : segments.get(segments.size() - 1);
    boolean merge =
        !empty && !extend && previous != null && previous.folders().contains(folderEpochSecond);
    int segmentBytes;
    List<Long> merged = null;
    if (extend) {
      segmentBytes = closedSegmentBytes + segmentBytes(segFrom, offset, segFolder, segOthers);
    } else if (merge) {
      merged = mergedOthers(previous);
      segmentBytes =
          closedSegmentBytes
              - (segmentBytes(previous) + 1)
              + segmentBytes(previous.from(), offset, previous.folderEpochSecond(), merged);
    } else {
      segmentBytes =
          (empty ? 0 : closedSegmentBytes + segmentBytes(segFrom, segTo, segFolder, segOthers) + 1)
              + segmentBytes(offset, offset, folderEpochSecond, List.of());
    }
    int bytes = FIXED + digits(first) + 1 + digits(offset) + segmentBytes + gapBytes;
    if (!empty && bytes > BUDGET) {
      return false;
    }

    if (gap) {
      Claim.Gap g = new Claim.Gap(last + 1, offset - 1);
      gaps.add(g);
      if (repeats) {
        entryTimes++;
      } else {
        if (entryTimes > 0) {
          finishedGapBytes += entryBytes(entryHeld, entryLength, entryTimes) + 1;
        }
        entryHeld = held;
        entryLength = length;
        entryTimes = 1;
      }
      previousGapEnd = g.to();
    }
    if (merge) {
      segments.remove(segments.size() - 1);
      closedSegmentBytes -= segmentBytes(previous) + 1;
      segFrom = previous.from();
      segFolder = previous.folderEpochSecond();
      segOthers.clear();
      segOthers.addAll(merged);
    } else if (!extend) {
      if (!empty) {
        Claim.Segment closed = new Claim.Segment(segFrom, segTo, segFolder, segOthers);
        segments.add(closed);
        closedSegmentBytes += segmentBytes(closed) + 1;
      }
      segFrom = offset;
      segFolder = folderEpochSecond;
      segOthers.clear();
    }
    segTo = offset;
    last = offset;
    empty = false;
    return true;
  }

  /** The claim so far (row counts 0: they are known once the object is encoded). */
  public Claim claim() {
    List<Claim.Segment> all = new ArrayList<>(segments.size() + 1);
    all.addAll(segments);
    if (!empty) {
      all.add(new Claim.Segment(segFrom, segTo, segFolder, segOthers));
    }
    return new Claim(first, empty ? first : last, 0, all, gaps);
  }

  /** The metadata bytes the claim takes now, the widest row counts included. */
  int bytes() {
    int segmentBytes =
        empty ? 0 : closedSegmentBytes + segmentBytes(segFrom, segTo, segFolder, segOthers);
    long end = empty ? first : last;
    int gapBytes = gaps.isEmpty() ? 0 : GAPS_NAME + chosenGapBytes(deltaBytes(), end);
    return FIXED + digits(first) + 1 + digits(end) + segmentBytes + gapBytes;
  }

  /** The gaps' value as {@link Claim} writes it: the delta code, or the bitmap if shorter. */
  private int chosenGapBytes(int delta, long end) {
    long bitmap = Claim.bitmapLength(first, end);
    return Claim.useBitmap(delta, bitmap) ? (int) bitmap : delta;
  }

  private int deltaBytes() {
    return entryTimes == 0 ? 0 : finishedGapBytes + entryBytes(entryHeld, entryLength, entryTimes);
  }

  private static int entryBytes(long held, long length, int times) {
    return digits(held)
        + (length == 1 ? 0 : 1 + digits(length))
        + (times > 1 ? 1 + digits(times) : 0);
  }

  /** The previous segment's other folders, with the current segment's folders added. */
  private List<Long> mergedOthers(Claim.Segment previous) {
    List<Long> others = new ArrayList<>(previous.otherFolders());
    List<Long> current = new ArrayList<>(1 + segOthers.size());
    current.add(segFolder);
    current.addAll(segOthers);
    for (long f : current) {
      if (f != previous.folderEpochSecond() && !others.contains(f)) {
        others.add(f);
      }
    }
    return others;
  }

  private static int segmentBytes(Claim.Segment s) {
    return segmentBytes(s.from(), s.to(), s.folderEpochSecond(), s.otherFolders());
  }

  private static int segmentBytes(long from, long to, long folder, List<Long> others) {
    int bytes = digits(from) + 1 + digits(to) + 1 + digits(folder);
    for (int i = 0; i < others.size(); i++) { // by index: no iterator per record
      bytes += 1 + digits(others.get(i));
    }
    return bytes;
  }

  /** The length of {@code Long.toString(v)}. */
  static int digits(long v) {
    if (v < 0) {
      return v == Long.MIN_VALUE ? 20 : 1 + digits(-v);
    }
    // Compared with powers of ten, not divided: it runs several times a record (JFR: 2% of a
    // warm ndjson batch with the division), and a long division costs ten times a multiply.
    int n = 1;
    for (long power = 10; n < 19 && v >= power; power *= 10) {
      n++;
    }
    return n;
  }
}
