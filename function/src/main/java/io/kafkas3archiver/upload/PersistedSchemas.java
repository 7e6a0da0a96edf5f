package io.kafkas3archiver.upload;

import io.kafkas3archiver.group.ObjectKeyTemplate;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.schema.SchemaSource;
import io.kafkas3archiver.schema.TopicSchema;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Inferred schemas, persisted beside the data: version {@code N} of a topic's schema is the object
 * {@code <KEY_PREFIX>/_schemas/<topic>/v<N>.json}, written once with {@code If-None-Match: *}.
 *
 * <p>The function keeps the newest version it knows per topic. A batch whose fields all have a
 * column costs no request. A batch with new fields writes the next version; when another function
 * wrote that version first (412), this one reads it, adds what it still lacks on top of it, and
 * tries the version after, so two writers that add different fields at once converge on one schema
 * holding both, and neither renames or retypes a column the other added. The first batch of a topic
 * after a cold start finds the newest version by probing {@code v1, v2, v4, ...} and then halving:
 * a few reads for hundreds of versions.
 */
public final class PersistedSchemas implements SchemaSource {
  /** Versions tried per batch before giving up (each a 412 from a concurrent writer). */
  private static final int MAX_RACES = 32;

  private final ObjectStore store;
  private final String keyPrefix;
  private final Map<String, TopicSchema> known = new HashMap<>();

  public PersistedSchemas(ObjectStore store, String keyPrefix) {
    this.store = store;
    this.keyPrefix = keyPrefix;
  }

  /** The key of a version's document; the topic is escaped as in data keys, so it cannot climb. */
  public static String key(String keyPrefix, String topic, int version) {
    return keyPrefix + "/_schemas/" + ObjectKeyTemplate.escape(topic) + "/v" + version + ".json";
  }

  @Override
  public synchronized TopicSchema known(String topic) {
    return known.getOrDefault(topic, TopicSchema.empty(topic));
  }

  @Override
  public synchronized TopicSchema schemaFor(
      String topic,
      List<TopicSchema.Addition> additions,
      Collection<String> reserved,
      Deadline deadline)
      throws UploadException {
    TopicSchema current = known.get(topic);
    if (current == null) {
      current = newest(topic, deadline);
      known.put(topic, current);
    }
    for (int race = 0; race < MAX_RACES; race++) {
      TopicSchema wanted = current.plus(additions, reserved);
      if (wanted == current) {
        return current;
      }
      String key = key(keyPrefix, topic, wanted.version());
      if (store
          .putIfAbsent(key, wanted.toJson(), "application/json", Map.of(), deadline)
          .created()) {
        known.put(topic, wanted);
        return wanted;
      }
      current =
          read(topic, wanted.version(), deadline)
              .orElseThrow(
                  () ->
                      new UploadException(
                          ErrorType.SERVER_ERROR,
                          "the schema version "
                              + key
                              + " existed when it was written and was gone when it was read; do"
                              + " not delete objects under "
                              + keyPrefix
                              + "/_schemas/ (the batch will be retried)",
                          1,
                          null));
      known.put(topic, current);
    }
    throw new UploadException(
        ErrorType.SERVER_ERROR,
        "the schema of topic '"
            + topic
            + "' gained "
            + MAX_RACES
            + " versions from other writers while this batch tried to add its fields; the batch"
            + " will be retried",
        1,
        null);
  }

  /** The newest stored version: probe 1, 2, 4, ... until one is missing, then halve. */
  private TopicSchema newest(String topic, Deadline deadline) throws UploadException {
    TopicSchema found = TopicSchema.empty(topic);
    int missing = -1;
    for (int v = 1; ; v *= 2) {
      Optional<TopicSchema> s = read(topic, v, deadline);
      if (s.isEmpty()) {
        missing = v;
        break;
      }
      found = s.get();
      if (v > Integer.MAX_VALUE / 4) {
        break;
      }
    }
    int lo = found.version();
    int hi = missing;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      Optional<TopicSchema> s = read(topic, mid, deadline);
      if (s.isPresent()) {
        found = s.get();
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return found;
  }

  private Optional<TopicSchema> read(String topic, int version, Deadline deadline)
      throws UploadException {
    String key = key(keyPrefix, topic, version);
    Optional<byte[]> body = store.read(key, deadline);
    if (body.isEmpty()) {
      return Optional.empty();
    }
    TopicSchema s;
    try {
      s = TopicSchema.parse(body.get());
    } catch (IllegalArgumentException e) {
      throw new UploadException(
          ErrorType.INVALID_REQUEST,
          key
              + " is not a schema this archiver wrote ("
              + e.getMessage()
              + "); restore it or"
              + " move it away",
          1,
          null);
    }
    if (!s.topic().equals(topic) || s.version() != version) {
      throw new UploadException(
          ErrorType.INVALID_REQUEST,
          key
              + " holds version "
              + s.version()
              + " of topic '"
              + s.topic()
              + "' instead; restore"
              + " it or move it away",
          1,
          null);
    }
    return Optional.of(s);
  }
}
