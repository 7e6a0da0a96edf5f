package io.kafkas3archiver.chain;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the claim of an object one record at a time, in offset order, and says when the next
 * record would no longer fit S3's user-metadata budget (see {@link Claim#METADATA_BYTES}). Every
 * step is constant time: the claim's metadata size is kept up to date as segments and gaps grow, so
 * a batch's claims cost time linear in the batch, however often its folders alternate.
 */
public final class ClaimBuilder {
  private static final int META_PREFIX = "x-amz-meta-".length();
  private static final int BUDGET = Claim.METADATA_BYTES - Claim.POINTER_ROOM;

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

  private final long first;
  private long last;
  private boolean empty = true;

  private final List<Claim.Segment> segments = new ArrayList<>();
  private int closedSegmentBytes; // closed segments, each with its comma
  private long segFrom;
  private long segTo;
  private long segFolder;

  private final List<Claim.Gap> gaps = new ArrayList<>();
  private long previousGapEnd;
  private int finishedGapBytes; // finished entries, each with its comma
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
    boolean gap = offset > last + 1;
    long held = 0;
    long length = 0;
    boolean repeats = false;
    int gapBytes = 0;
    if (gap) {
      held = last + 1 - previousGapEnd - 1;
      length = offset - (last + 1);
      repeats = entryTimes > 0 && held == entryHeld && length == entryLength;
      gapBytes = repeats ? gapBytesRepeating() : gapBytesWithNewEntry(held, length);
    } else {
      gapBytes = currentGapBytes();
    }
    boolean newSegment = empty || folderEpochSecond != segFolder;
    int segmentBytes =
        newSegment
            ? (empty ? 0 : closedSegmentBytes + segmentBytes(segFrom, segTo, segFolder) + 1)
                + segmentBytes(offset, offset, folderEpochSecond)
            : closedSegmentBytes + segmentBytes(segFrom, offset, segFolder);
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
    if (newSegment) {
      if (!empty) {
        segments.add(new Claim.Segment(segFrom, segTo, segFolder));
        closedSegmentBytes += segmentBytes(segFrom, segTo, segFolder) + 1;
      }
      segFrom = offset;
      segFolder = folderEpochSecond;
    }
    segTo = offset;
    last = offset;
    empty = false;
    return true;
  }

  /** The claim so far (error rows 0: they are known once the object is encoded). */
  public Claim claim() {
    List<Claim.Segment> all = new ArrayList<>(segments.size() + 1);
    all.addAll(segments);
    if (!empty) {
      all.add(new Claim.Segment(segFrom, segTo, segFolder));
    }
    return new Claim(first, empty ? first : last, 0, all, gaps);
  }

  /** The metadata bytes the claim takes now, reserved error-row width included. */
  int bytes() {
    int segmentBytes = empty ? 0 : closedSegmentBytes + segmentBytes(segFrom, segTo, segFolder);
    return FIXED
        + digits(first)
        + 1
        + digits(empty ? first : last)
        + segmentBytes
        + currentGapBytes();
  }

  private int currentGapBytes() {
    if (entryTimes == 0) {
      return 0;
    }
    return META_PREFIX
        + Claim.GAPS.length()
        + finishedGapBytes
        + entryBytes(entryHeld, entryLength, entryTimes);
  }

  private int gapBytesRepeating() {
    return META_PREFIX
        + Claim.GAPS.length()
        + finishedGapBytes
        + entryBytes(entryHeld, entryLength, entryTimes + 1);
  }

  private int gapBytesWithNewEntry(long held, long length) {
    int finished =
        entryTimes > 0 ? finishedGapBytes + entryBytes(entryHeld, entryLength, entryTimes) + 1 : 0;
    return META_PREFIX + Claim.GAPS.length() + finished + entryBytes(held, length, 1);
  }

  private static int entryBytes(long held, long length, int times) {
    return digits(held)
        + (length == 1 ? 0 : 1 + digits(length))
        + (times > 1 ? 1 + digits(times) : 0);
  }

  private static int segmentBytes(long from, long to, long folder) {
    return digits(from) + 1 + digits(to) + 1 + digits(folder);
  }

  /** The length of {@code Long.toString(v)}. */
  static int digits(long v) {
    if (v < 0) {
      return v == Long.MIN_VALUE ? 20 : 1 + digits(-v);
    }
    int n = 1;
    while (v >= 10) {
      v /= 10;
      n++;
    }
    return n;
  }
}
