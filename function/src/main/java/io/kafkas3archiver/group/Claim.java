package io.kafkas3archiver.group;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a data object claims in its partition's chain, stored in its user metadata: the offsets
 * {@code [first, last]} it covers (its error object's rows included), how many of them are error
 * rows, and its segments. A later delivery that meets the object (a 412 on its key) reads this to
 * write only what lies past {@code last}.
 *
 * <p>Segments answer "if a delivery started at offset x, in which folder would it name its object,
 * and from which offset": a run of offsets present in the object whose start folder is the same.
 * They let a shorter delivery leave a pointer at the place where the mapping will restart, so that
 * a restart inside a stored range meets a key too (see {@code Pipeline}).
 */
public record Claim(long first, long last, int errorRows, List<Segment> segments) {
  /** User-metadata names ({@code x-amz-meta-...}); S3 lowercases them. */
  public static final String OFFSETS = "kafka-offsets";

  public static final String ERROR_ROWS = "kafka-error-rows";
  public static final String SEGMENTS = "kafka-segments";

  /**
   * S3 allows 2 KB of user metadata; a segment takes at most ~52 characters. An object whose
   * records fall into more segments (timestamps that jump between hours, compacted gaps) is cut.
   */
  public static final int MAX_SEGMENTS = 32;

  public Claim {
    segments = List.copyOf(segments);
  }

  /** Offsets {@code from..to} present (gaps are runs of their own) whose start folder is shared. */
  public record Segment(long from, long to, long folderEpochSecond) {
    ZonedDateTime folder(ZoneId zone) {
      return Instant.ofEpochSecond(folderEpochSecond).atZone(zone);
    }
  }

  /** Where a delivery that restarts at {@code cut} names its object, if this claim covers it. */
  public Optional<Pointer> pointerAt(long cut, ZoneId zone) {
    if (cut <= first || cut > last) {
      return Optional.empty();
    }
    List<Segment> rest = new ArrayList<>();
    for (Segment s : segments) {
      if (s.to() >= cut) {
        rest.add(new Segment(Math.max(s.from(), cut), s.to(), s.folderEpochSecond()));
      }
    }
    if (rest.isEmpty()) {
      return Optional.empty();
    }
    Segment head = rest.get(0);
    return Optional.of(new Pointer(head.folder(zone), new Claim(head.from(), last, 0, rest)));
  }

  /** A claim-only object to leave at {@code claim.first()} in {@code folder}. */
  public record Pointer(ZonedDateTime folder, Claim claim) {}

  public Map<String, String> toMetadata() {
    Map<String, String> m = new HashMap<>();
    m.put(OFFSETS, first + "-" + last);
    m.put(ERROR_ROWS, Integer.toString(errorRows));
    StringBuilder sb = new StringBuilder();
    for (Segment s : segments) {
      if (!sb.isEmpty()) {
        sb.append(',');
      }
      sb.append(s.from()).append('-').append(s.to()).append('@').append(s.folderEpochSecond());
    }
    m.put(SEGMENTS, sb.toString());
    return m;
  }

  /** The claim of a stored object, or empty when its metadata holds none (not ours). */
  public static Optional<Claim> fromMetadata(Map<String, String> metadata) {
    Map<String, String> m = new HashMap<>();
    metadata.forEach((k, v) -> m.put(k.toLowerCase(java.util.Locale.ROOT), v));
    String offsets = m.get(OFFSETS);
    if (offsets == null) {
      return Optional.empty();
    }
    try {
      int dash = offsets.indexOf('-');
      long first = Long.parseLong(offsets.substring(0, dash));
      long last = Long.parseLong(offsets.substring(dash + 1));
      int errorRows = Integer.parseInt(m.getOrDefault(ERROR_ROWS, "0"));
      List<Segment> segments = new ArrayList<>();
      String s = m.getOrDefault(SEGMENTS, "");
      if (!s.isEmpty()) {
        for (String part : s.split(",")) {
          int d = part.indexOf('-');
          int at = part.indexOf('@');
          segments.add(
              new Segment(
                  Long.parseLong(part.substring(0, d)),
                  Long.parseLong(part.substring(d + 1, at)),
                  Long.parseLong(part.substring(at + 1))));
        }
      }
      return Optional.of(new Claim(first, last, errorRows, segments));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
