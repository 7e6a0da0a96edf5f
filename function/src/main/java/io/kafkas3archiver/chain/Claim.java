package io.kafkas3archiver.chain;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What a data object claims in its partition's chain, stored in its user metadata: the offsets
 * {@code [first, last]} it covers (its error object's rows included), how many of them are error
 * rows, its segments and its gaps. A later delivery that meets the object (a 412 on its key) reads
 * this to write only what lies past {@code last}.
 *
 * <p>Segments and gaps answer "if a delivery started at offset x, from which offset would it name
 * its object, and in which folder": the first offset {@code >= x} present in the object (neither a
 * gap nor past {@code last}), in the start folder of the segment that holds it. A segment is a run
 * of offsets whose start folder is the same; gaps are the offsets of {@code [first, last]} the
 * object does not hold (transaction markers, compacted records, records of another folder). They
 * let a shorter delivery leave a pointer at the place where the mapping will restart, so that a
 * restart inside a stored range meets a key too (see {@code Pipeline}).
 *
 * <p>Objects written before gaps had a key of their own have no {@code kafka-gaps}: their segments
 * end at every missing offset, so the offsets between segments are the gaps, and the same lookup
 * reads them right.
 */
public record Claim(
    long first, long last, int errorRows, List<Segment> segments, List<Gap> gaps, int dataRows) {
  /** User-metadata names ({@code x-amz-meta-...}); S3 lowercases them. */
  public static final String OFFSETS = "kafka-offsets";

  public static final String ERROR_ROWS = "kafka-error-rows";
  public static final String SEGMENTS = "kafka-segments";
  public static final String GAPS = "kafka-gaps";

  /**
   * S3 allows 2 KB of user metadata per object: the UTF-8 bytes of every name and value (counted
   * here with the {@code x-amz-meta-} prefix, to be safe). An object is cut only where its claim
   * would not fit.
   *
   * <p>The arithmetic, for a claim of one folder: the four names take 97 bytes; {@code first-last}
   * at most 39; the row counts are reserved at their widest, 21 ({@code errors+rows}); one segment
   * at most 51 ({@code from-to@epochSecond}); {@link #POINTER_ROOM} 100; {@link #CHECKSUM_ROOM} 31.
   * That leaves 1,709 bytes for gaps and further segments. A gap is written as the number of
   * offsets held since the previous one ({@code 9}), then {@code +length} when it is longer than
   * one offset, then {@code *times} when the same entry repeats, each entry followed by a comma. So
   * transaction markers after transactions of the same size cost a few bytes whatever their number
   * ({@code 9*222}); markers after transactions of under 100 records of varying size cost at most 3
   * bytes each, so at least 569 fit; compaction holes of up to 9 offsets at most 999 apart at most
   * 6 bytes, so 284 fit. Gaps that interleave finely (two folders' offsets) are written as a bitmap
   * instead when that is shorter: 10,000 offsets take 1,668 bytes. A further folder (an hour edge
   * under {@code PARTITION_TIME=batch}) costs about 39 bytes at 13-digit offsets.
   */
  public static final int METADATA_BYTES = 2048;

  /**
   * What a pointer's claim may take beyond the claim it is cut from: its first offset and its first
   * segment's start have more digits (at most 18 more each) and a repeated gap entry may split in
   * two (at most 40 more). A claim is only written if it fits with this much room to spare, so
   * every pointer cut from it fits too.
   */
  static final int POINTER_ROOM = 100;

  /**
   * What the object's other user metadata takes: the CRC32C every conditional put records beside
   * its claim ({@code x-amz-meta-kafka-crc32c}, 23 bytes, and 8 of base64), for the audit.
   */
  static final int CHECKSUM_ROOM = 31;

  /** The most a claim may take so that it, any pointer cut from it and its checksum fit. */
  static final int BUDGET = METADATA_BYTES - POINTER_ROOM - CHECKSUM_ROOM;

  private static final int META_PREFIX = "x-amz-meta-".length();

  public Claim {
    segments = List.copyOf(segments);
    gaps = List.copyOf(gaps);
  }

  /** A claim without gaps (every offset of {@code [first, last]} outside its segments is one). */
  public Claim(long first, long last, int errorRows, List<Segment> segments) {
    this(first, last, errorRows, segments, List.of());
  }

  /**
   * A claim held by its data object (or a pointer): {@code dataRows} is -1, not recorded. Only a
   * claim held by an error object records its data rows, so that a delivery meeting it knows
   * whether a data object belongs beside it.
   */
  public Claim(long first, long last, int errorRows, List<Segment> segments, List<Gap> gaps) {
    this(first, last, errorRows, segments, gaps, -1);
  }

  /**
   * Offsets {@code from..to} whose start folder is shared (the gaps among them excluded), or, when
   * {@code otherFolders} is not empty, is one of these folders: a mixed segment, where record times
   * jitter across an hour edge so the start folder alternates record by record. A restart inside a
   * mixed segment names its object in one of its folders; a pointer goes to each (written {@code
   * from-to@f1|f2}).
   */
  public record Segment(long from, long to, long folderEpochSecond, List<Long> otherFolders) {
    public Segment {
      otherFolders = List.copyOf(otherFolders);
    }

    public Segment(long from, long to, long folderEpochSecond) {
      this(from, to, folderEpochSecond, List.of());
    }

    ZonedDateTime folder(ZoneId zone) {
      return Instant.ofEpochSecond(folderEpochSecond).atZone(zone);
    }

    /** Every folder a restart inside this segment may name its object in. */
    List<Long> folders() {
      List<Long> all = new ArrayList<>(1 + otherFolders.size());
      all.add(folderEpochSecond);
      all.addAll(otherFolders);
      return all;
    }

    Segment span(long newFrom, long newTo) {
      return new Segment(newFrom, newTo, folderEpochSecond, otherFolders);
    }
  }

  /** Offsets {@code from..to} inside the claimed range that the object does not hold. */
  public record Gap(long from, long to) {}

  /** Where a delivery that restarts at {@code cut} names its object, if this claim covers it. */
  public Optional<Pointer> pointerAt(long cut, ZoneId zone) {
    return pointersAt(cut, zone).stream().findFirst();
  }

  /**
   * Where a delivery that restarts at {@code cut} may name its object: one place, or one per folder
   * of a mixed segment. Empty when this claim does not cover {@code cut}.
   */
  public List<Pointer> pointersAt(long cut, ZoneId zone) {
    if (cut <= first || cut > last) {
      return List.of();
    }
    long at = firstHeldFrom(cut);
    if (at < 0) {
      return List.of();
    }
    List<Segment> rest = new ArrayList<>();
    for (Segment s : segments) {
      if (s.to() >= at) {
        rest.add(s.span(Math.max(s.from(), at), s.to()));
      }
    }
    List<Gap> restGaps = gaps.stream().filter(g -> g.from() > at).toList();
    Claim claim = new Claim(at, last, 0, rest, restGaps);
    List<Pointer> pointers = new ArrayList<>();
    for (long folder : rest.get(0).folders()) {
      pointers.add(new Pointer(Instant.ofEpochSecond(folder).atZone(zone), claim));
    }
    return pointers;
  }

  /** The first offset {@code >= x} this object holds, or -1 when it holds none. */
  private long firstHeldFrom(long x) {
    for (Segment s : segments) {
      if (s.to() < x) {
        continue;
      }
      long at = Math.max(s.from(), x);
      for (Gap g : gaps) {
        if (g.from() > at) {
          break;
        }
        if (g.to() >= at) {
          at = g.to() + 1;
        }
      }
      if (at <= s.to()) {
        return at;
      }
    }
    return -1;
  }

  /** A claim-only object to leave at {@code claim.first()} in {@code folder}. */
  public record Pointer(ZonedDateTime folder, Claim claim) {}

  public Claim withErrorRows(int rows) {
    return new Claim(first, last, rows, segments, gaps, dataRows);
  }

  /** The same claim held by an error object beside which {@code rows} data rows belong. */
  public Claim withDataRows(int rows) {
    return new Claim(first, last, errorRows, segments, gaps, rows);
  }

  /**
   * This claim, or its longest head that fits the metadata budget (with the error-row count still
   * to come and room for a pointer cut from it): the object is then cut after that head's {@code
   * last}, which is an offset the object holds. A head of one run of offsets always fits.
   */
  public Claim fitted() {
    if (fits(this)) {
      return this;
    }
    List<Long> ends = new ArrayList<>(); // where a run of held offsets ends, ascending
    for (Segment s : segments) {
      for (Gap g : gaps) {
        if (g.from() > s.from() && g.to() < s.to()) {
          ends.add(g.from() - 1);
        }
      }
      ends.add(s.to());
    }
    int lo = 0; // ends.get(lo) fits (a single run)
    int hi = ends.size() - 1; // the whole claim does not
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (fits(through(ends.get(mid)))) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return through(ends.get(lo));
  }

  /** The head of this claim up to {@code end}, an offset it holds. */
  Claim through(long end) {
    List<Segment> head = new ArrayList<>();
    for (Segment s : segments) {
      if (s.from() <= end) {
        head.add(s.span(s.from(), Math.min(s.to(), end)));
      }
    }
    return new Claim(
        first, end, errorRows, head, gaps.stream().filter(g -> g.to() < end).toList(), dataRows);
  }

  private static boolean fits(Claim c) {
    return c.withErrorRows(Integer.MAX_VALUE).withDataRows(Integer.MAX_VALUE).metadataBytes()
        <= BUDGET;
  }

  /** The bytes this claim takes of S3's user-metadata limit, names included. */
  public int metadataBytes() {
    int bytes = 0;
    for (var e : toMetadata().entrySet()) {
      bytes += META_PREFIX + utf8(e.getKey()) + utf8(e.getValue());
    }
    return bytes;
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  public Map<String, String> toMetadata() {
    Map<String, String> m = new HashMap<>();
    m.put(OFFSETS, first + "-" + last);
    m.put(ERROR_ROWS, errorRows + (dataRows >= 0 ? "+" + dataRows : ""));
    StringBuilder sb = new StringBuilder();
    for (Segment s : segments) {
      if (!sb.isEmpty()) {
        sb.append(',');
      }
      sb.append(s.from()).append('-').append(s.to()).append('@').append(s.folderEpochSecond());
      for (long other : s.otherFolders()) {
        sb.append('|').append(other);
      }
    }
    m.put(SEGMENTS, sb.toString());
    if (!gaps.isEmpty()) {
      m.put(GAPS, encodeGaps());
    }
    return m;
  }

  /**
   * The gaps, delta-coded ({@link #deltaGaps}) or, where offsets of two folders interleave so
   * finely that the delta code is long, as a bitmap of the held offsets ({@link #bitmapGaps}):
   * whichever is shorter, once the delta code passes {@link #BITMAP_FROM} bytes.
   */
  private String encodeGaps() {
    String delta = deltaGaps();
    if (useBitmap(delta.length(), bitmapLength(first, last))) {
      return bitmapGaps();
    }
    return delta;
  }

  /** Below this many bytes the delta code is kept even if a bitmap would be shorter. */
  static final int BITMAP_FROM = 100;

  static boolean useBitmap(int deltaLength, long bitmapLength) {
    return deltaLength > BITMAP_FROM && bitmapLength < deltaLength;
  }

  /** The length of the bitmap form over {@code [first, last]}: a marker and 6 offsets a char. */
  static long bitmapLength(long first, long last) {
    return 1 + (last - first + 1 + 5) / 6;
  }

  private static final String BASE64URL =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** {@code ~} then 6 offsets a char (base64url, first offset in the high bit), 1 = held. */
  private String bitmapGaps() {
    int n = (int) (last - first + 1);
    boolean[] held = new boolean[n];
    java.util.Arrays.fill(held, true);
    for (Gap g : gaps) {
      for (long o = g.from(); o <= g.to(); o++) {
        held[(int) (o - first)] = false;
      }
    }
    StringBuilder sb = new StringBuilder(1 + (n + 5) / 6).append('~');
    for (int i = 0; i < n; i += 6) {
      int v = 0;
      for (int b = 0; b < 6; b++) {
        v = (v << 1) | (i + b < n && held[i + b] ? 1 : 0);
      }
      sb.append(BASE64URL.charAt(v));
    }
    return sb.toString();
  }

  private static List<Gap> decodeBitmap(String s, long first, long last) {
    List<Gap> gaps = new ArrayList<>();
    long n = last - first + 1;
    if (s.length() - 1 != (n + 5) / 6) {
      throw new IllegalArgumentException("a bitmap of the wrong length");
    }
    long gapFrom = -1;
    for (long i = 0; i < n; i++) {
      int v = BASE64URL.indexOf(s.charAt(1 + (int) (i / 6)));
      if (v < 0) {
        throw new IllegalArgumentException("a malformed bitmap");
      }
      boolean held = ((v >> (5 - (int) (i % 6))) & 1) == 1;
      if (!held && gapFrom < 0) {
        gapFrom = first + i;
      } else if (held && gapFrom >= 0) {
        gaps.add(new Gap(gapFrom, first + i - 1));
        gapFrom = -1;
      }
    }
    if (gapFrom >= 0) {
      throw new IllegalArgumentException("a gap at the claim's last offset");
    }
    return gaps;
  }

  /** {@code held[+length][*times]}, comma-separated: see {@link #METADATA_BYTES}. */
  private String deltaGaps() {
    StringBuilder sb = new StringBuilder();
    long previousEnd = first - 1;
    String entry = null;
    int times = 0;
    for (Gap g : gaps) {
      long length = g.to() - g.from() + 1;
      String e = (g.from() - previousEnd - 1) + (length == 1 ? "" : "+" + length);
      previousEnd = g.to();
      if (e.equals(entry)) {
        times++;
        continue;
      }
      appendEntry(sb, entry, times);
      entry = e;
      times = 1;
    }
    appendEntry(sb, entry, times);
    return sb.toString();
  }

  private static void appendEntry(StringBuilder sb, String entry, int times) {
    if (entry == null) {
      return;
    }
    if (!sb.isEmpty()) {
      sb.append(',');
    }
    sb.append(entry);
    if (times > 1) {
      sb.append('*').append(times);
    }
  }

  private static List<Gap> decodeGaps(String s, long first, long last) {
    List<Gap> gaps = new ArrayList<>();
    if (s.isEmpty()) {
      return gaps;
    }
    if (s.charAt(0) == '~') {
      return decodeBitmap(s, first, last);
    }
    long previousEnd = first - 1;
    for (String entry : s.split(",")) {
      int star = entry.indexOf('*');
      int times = star < 0 ? 1 : Integer.parseInt(entry.substring(star + 1));
      String gap = star < 0 ? entry : entry.substring(0, star);
      int plus = gap.indexOf('+');
      long held = Long.parseLong(plus < 0 ? gap : gap.substring(0, plus));
      long length = plus < 0 ? 1 : Long.parseLong(gap.substring(plus + 1));
      if (held < 0 || length < 1 || times < 1) {
        throw new IllegalArgumentException("a malformed gap entry: " + entry);
      }
      for (int i = 0; i < times; i++) {
        long from = previousEnd + 1 + held;
        previousEnd = from + length - 1;
        if (previousEnd >= last) {
          throw new IllegalArgumentException("a gap at or past the claim's last offset");
        }
        gaps.add(new Gap(from, previousEnd));
      }
    }
    return gaps;
  }

  private static Segment segment(long from, long to, String folders) {
    String[] parts = folders.split("\\|");
    List<Long> others = new ArrayList<>();
    for (int i = 1; i < parts.length; i++) {
      others.add(Long.parseLong(parts[i]));
    }
    return new Segment(from, to, Long.parseLong(parts[0]), others);
  }

  /** The claim of a stored object, or empty when its metadata holds none (not ours). */
  public static Optional<Claim> fromMetadata(Map<String, String> metadata) {
    Map<String, String> m = new HashMap<>();
    metadata.forEach((k, v) -> m.put(k.toLowerCase(Locale.ROOT), v));
    String offsets = m.get(OFFSETS);
    if (offsets == null) {
      return Optional.empty();
    }
    try {
      int dash = offsets.indexOf('-');
      long first = Long.parseLong(offsets.substring(0, dash));
      long last = Long.parseLong(offsets.substring(dash + 1));
      String rows = m.getOrDefault(ERROR_ROWS, "0");
      int plus = rows.indexOf('+');
      int errorRows = Integer.parseInt(plus < 0 ? rows : rows.substring(0, plus));
      int dataRows = plus < 0 ? -1 : Integer.parseInt(rows.substring(plus + 1));
      List<Segment> segments = new ArrayList<>();
      String s = m.getOrDefault(SEGMENTS, "");
      if (!s.isEmpty()) {
        for (String part : s.split(",")) {
          int d = part.indexOf('-');
          int at = part.indexOf('@');
          segments.add(
              segment(
                  Long.parseLong(part.substring(0, d)),
                  Long.parseLong(part.substring(d + 1, at)),
                  part.substring(at + 1)));
        }
      }
      List<Gap> gaps = decodeGaps(m.getOrDefault(GAPS, ""), first, last);
      return Optional.of(new Claim(first, last, errorRows, segments, gaps, dataRows));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
