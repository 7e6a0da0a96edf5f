package io.kafkas3archiver.audit;

import io.kafkas3archiver.chain.Claim;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.restore.ArchiveObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One listed object with what its user metadata claims: the key, its ETag and size from the
 * listing, the claim (empty when the object carries none), and the partition its name was derived
 * from (the deterministic id is a name-based UUID of topic, partition, first offset and format).
 */
record AuditedObject(
    String key,
    ArchiveObject.Kind kind,
    String etag,
    long size,
    Optional<Claim> claim,
    Map<String, String> metadata,
    int partition) {

  static final int UNKNOWN_PARTITION = -1;

  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");

  boolean isError() {
    return kind == ArchiveObject.Kind.ERROR;
  }

  /** The offsets the object holds: its segments within {@code [first, last]}, minus its gaps. */
  Ranges held() {
    Claim c = claim.orElseThrow();
    Ranges held = new Ranges();
    if (c.segments().isEmpty()) {
      held.add(c.first(), c.last());
    } else {
      for (Claim.Segment s : c.segments()) {
        held.add(Math.max(s.from(), c.first()), Math.min(s.to(), c.last()));
      }
    }
    for (Claim.Gap g : c.gaps()) {
      held.remove(g.from(), g.to());
    }
    return held;
  }

  /** The offsets of {@code [first, last]} the claim says the object does not hold. */
  Ranges recordedGaps() {
    Claim c = claim.orElseThrow();
    Ranges gaps = Ranges.of(c.first(), c.last());
    gaps.removeAll(held());
    return gaps;
  }

  /**
   * The partition whose deterministic id the key holds, among {@code 0..partitions-1}: the archiver
   * names an object (and its error object) {@code UUID.nameUUIDFromBytes(topic|p:first|format)}.
   * {@link #UNKNOWN_PARTITION} when the key holds no such id (a template without {@code ${JOB_ID}})
   * or none matches.
   */
  static int partitionOf(String key, String topic, long first, int partitions) {
    Matcher m = UUID_TEXT.matcher(key);
    String found = null;
    while (m.find()) {
      found = m.group(); // the last one: the file name's
    }
    if (found == null) {
      return UNKNOWN_PARTITION;
    }
    UUID id = UUID.fromString(found);
    for (int p = 0; p < partitions; p++) {
      for (Format f : Format.values()) {
        if (f.isTable()) {
          continue;
        }
        String name = topic + "|" + p + ":" + first + "|" + f.configName();
        if (UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).equals(id)) {
          return p;
        }
      }
    }
    return UNKNOWN_PARTITION;
  }
}
