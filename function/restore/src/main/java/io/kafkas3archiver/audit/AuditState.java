package io.kafkas3archiver.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * What an incremental audit keeps in the bucket between runs: the claim of every object it read, by
 * key and ETag (so the next run HEADs only new or changed objects, and names every object that
 * disappeared), and the unclaimed ranges the cluster showed to hold no record (offsets never change
 * in a log, so they need not be fetched again). One gzip JSON object, outside the data and error
 * prefixes so neither the audit nor the restore lists it as archive data.
 */
final class AuditState {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One audited object: the ETag it had and its user metadata then. */
  record Known(String etag, Map<String, String> metadata, int partition) {}

  final Map<String, Known> objects = new TreeMap<>();
  final Map<Integer, Ranges> noRecords = new TreeMap<>();
  final boolean loaded;

  private AuditState(boolean loaded) {
    this.loaded = loaded;
  }

  static AuditState empty() {
    return new AuditState(false);
  }

  Optional<Map<String, String>> metadata(String key, String etag) {
    Known k = objects.get(key);
    return k != null && k.etag().equals(etag) ? Optional.of(k.metadata()) : Optional.empty();
  }

  Ranges noRecords(int partition) {
    return noRecords.computeIfAbsent(partition, p -> new Ranges());
  }

  static AuditState parse(byte[] gzipped) {
    try (var in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
      JsonNode root = JSON.readTree(in);
      AuditState s = new AuditState(true);
      root.path("objects")
          .fields()
          .forEachRemaining(
              e -> {
                Map<String, String> m = new HashMap<>();
                e.getValue()
                    .path("metadata")
                    .fields()
                    .forEachRemaining(f -> m.put(f.getKey(), f.getValue().asText()));
                s.objects.put(
                    e.getKey(),
                    new Known(
                        e.getValue().path("etag").asText(),
                        Map.copyOf(m),
                        e.getValue().path("partition").asInt(AuditedObject.UNKNOWN_PARTITION)));
              });
      root.path("noRecords")
          .fields()
          .forEachRemaining(
              e -> {
                Ranges r = s.noRecords(Integer.parseInt(e.getKey()));
                for (JsonNode pair : e.getValue()) {
                  r.add(pair.get(0).asLong(), pair.get(1).asLong());
                }
              });
      return s;
    } catch (IOException | RuntimeException e) {
      throw new AuditException(
          "the audit state is unreadable ("
              + e.getMessage()
              + "); run once with --full, which rewrites it",
          e);
    }
  }

  byte[] serialize() {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", 1);
    ObjectNode objs = root.putObject("objects");
    objects.forEach(
        (key, k) -> {
          ObjectNode o = objs.putObject(key);
          o.put("etag", k.etag());
          o.put("partition", k.partition());
          ObjectNode m = o.putObject("metadata");
          new TreeMap<>(k.metadata()).forEach(m::put);
        });
    ObjectNode nr = root.putObject("noRecords");
    noRecords.forEach(
        (p, r) -> {
          ArrayNode a = nr.putArray(Integer.toString(p));
          for (Ranges.Range range : r.list()) {
            a.addArray().add(range.from()).add(range.to());
          }
        });
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (var out = new GZIPOutputStream(bytes)) {
      JSON.writeValue(out, root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
