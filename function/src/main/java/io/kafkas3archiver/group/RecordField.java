package io.kafkas3archiver.group;

import java.util.Arrays;
import java.util.List;

/**
 * A part of a record that a key template partitions by (DESIGN §8): a dotted path into the JSON
 * value, the key, or a header. Parsed once from {@code KEY_TEMPLATE} (or {@code TIME_FIELD}).
 */
public sealed interface RecordField {

  /** {@code ${value.customer.region}}: the named fields, one object level each. */
  record ValueField(List<String> path) implements RecordField {
    public ValueField {
      path = List.copyOf(path);
    }

    @Override
    public String toString() {
      return "value." + String.join(".", path);
    }
  }

  /** {@code ${key}}: the record key, as UTF-8. */
  record KeyField() implements RecordField {
    @Override
    public String toString() {
      return "key";
    }
  }

  /** {@code ${header.<name>}}: the last header of that name, as Kafka's lastHeader picks it. */
  record HeaderField(String name) implements RecordField {
    @Override
    public String toString() {
      return "header." + name;
    }
  }

  String LEGAL_FORMS =
      "${value.<field>[.<field>...]} (a dotted path of object field names, e.g."
          + " ${value.customer.region}), ${key}, ${header.<name>}";

  /**
   * Parses a variable's name, or returns null if it is not a record variable at all. {@code
   * variable} and {@code raw} only feed the error message.
   */
  static RecordField parse(String variable, String raw, String name) {
    if (name.equals("key")) {
      return new KeyField();
    }
    if (name.equals("header") || name.startsWith("header.")) {
      String header = name.length() > "header.".length() ? name.substring(7) : "";
      if (header.isEmpty()) {
        throw invalid(variable, raw, "${header.} names no header");
      }
      return new HeaderField(header);
    }
    if (name.equals("value") || name.startsWith("value.")) {
      String path = name.length() > "value.".length() ? name.substring(6) : "";
      return new ValueField(path(variable, raw, path));
    }
    return null;
  }

  /** A dotted path: non-empty names, no array steps (a path may not lead into an array). */
  static List<String> path(String variable, String raw, String path) {
    if (path.isEmpty()) {
      throw invalid(variable, raw, "the path is empty");
    }
    if (path.contains("[") || path.contains("]") || path.contains("*")) {
      throw invalid(
          variable,
          raw,
          "the path '"
              + path
              + "' leads into an array; only object fields can be partitioned on, so each record"
              + " has exactly one value");
    }
    List<String> segments = Arrays.asList(path.split("\\.", -1));
    if (segments.stream().anyMatch(String::isEmpty)) {
      throw invalid(variable, raw, "the path '" + path + "' has an empty field name");
    }
    return segments;
  }

  private static InvalidKeyTemplateException invalid(String variable, String raw, String why) {
    return new InvalidKeyTemplateException(
        variable + "='" + raw + "' is not valid: " + why + "; legal forms: " + LEGAL_FORMS);
  }
}
