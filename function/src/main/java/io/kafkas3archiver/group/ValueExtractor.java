package io.kafkas3archiver.group;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a few dotted paths out of a JSON object value in one streaming pass. Fields off every path
 * are skipped without being built, and the pass stops as soon as every path has been seen, so the
 * cost is about that of scanning the bytes up to the last wanted field (measured in the benchmark's
 * field-template row), not that of a tree per record.
 *
 * <p>A scalar yields its text as received (a number's digits, a string's content); an object or
 * array at the end of a path yields its compact JSON text; a JSON null, a missing field, a path
 * through a non-object, a value that is not a JSON object, or malformed JSON yields null.
 */
public final class ValueExtractor {
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          // The same depth bound the encoders live with; deeper values are not partitioned on.
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(1000).build())
          .build();

  /** One level of the paths: which fields to descend into, and which paths end here. */
  private static final class Node {
    final Map<String, Node> children = new HashMap<>(4);
    int[] ends = new int[0];

    boolean hasChildren() {
      return !children.isEmpty();
    }
  }

  private final Node root = new Node();
  private final int count;

  public ValueExtractor(List<List<String>> paths) {
    this.count = paths.size();
    for (int i = 0; i < paths.size(); i++) {
      Node node = root;
      for (String segment : paths.get(i)) {
        node = node.children.computeIfAbsent(segment, s -> new Node());
      }
      int[] ends = java.util.Arrays.copyOf(node.ends, node.ends.length + 1);
      ends[ends.length - 1] = i;
      node.ends = ends;
    }
  }

  int size() {
    return count;
  }

  /** The text at each path, in the order the paths were given; null where there is none. */
  public String[] extract(byte[] value) {
    String[] found = new String[count];
    if (value == null || count == 0) {
      return found;
    }
    try (JsonParser p = FACTORY.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return found;
      }
      walk(p, root, found, new boolean[count], new int[] {count});
    } catch (IOException | RuntimeException e) {
      // Not JSON, or malformed past the fields read so far: what was found stands, the rest is
      // the default partition. The encoder decides what the record itself becomes.
      return found;
    }
    return found;
  }

  /**
   * Walks one object whose START_OBJECT was just read. Returns false once every path is settled, so
   * the callers stop reading. The first occurrence of a duplicated field name wins.
   */
  private static boolean walk(JsonParser p, Node node, String[] found, boolean[] seen, int[] open)
      throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      Node child = node.children.get(p.currentName());
      JsonToken v = p.nextToken();
      if (child == null) {
        p.skipChildren();
        continue;
      }
      boolean descend = v == JsonToken.START_OBJECT && child.hasChildren();
      if (child.ends.length > 0) {
        // A path that ends on an object which another path descends into gets no value: the
        // object is walked, not copied.
        String text = descend ? null : text(p, v);
        for (int i : child.ends) {
          if (!seen[i]) {
            seen[i] = true;
            found[i] = text;
            open[0]--;
          }
        }
      }
      if (descend) {
        if (!walk(p, child, found, seen, open)) {
          return false;
        }
      } else if (child.ends.length == 0) {
        p.skipChildren(); // an array or a scalar where the path wants an object: no value
      }
      if (open[0] == 0) {
        return false;
      }
    }
    return true;
  }

  private static String text(JsonParser p, JsonToken v) throws IOException {
    return switch (v) {
      case VALUE_NULL -> null;
      case START_OBJECT, START_ARRAY -> {
        StringWriter json = new StringWriter();
        try (var g = FACTORY.createGenerator(json)) {
          g.copyCurrentStructure(p);
        }
        yield json.toString();
      }
      default -> p.getText();
    };
  }
}
