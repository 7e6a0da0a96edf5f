package io.kafkas3archiver.encode;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Which column holds a JSON field, found with one string comparison per field where records list
 * their fields in a steady order, as a topic's records mostly do: the column that the field at the
 * same position had in the previous record is tried first, and the map (which hashes every new name
 * String) only when that misses. Not thread-safe: one per encoding.
 */
final class FieldIndex {
  private final String[] fields;
  private final Map<String, Integer> byField;

  /** By position in a record: the column last found there, or -1. */
  private int[] columnAt = new int[16];

  /** By position: the name last found there without a column, so it misses without a lookup. */
  private String[] noneAt = new String[16];

  FieldIndex(String[] fields) {
    this.fields = fields;
    this.byField = new HashMap<>(fields.length * 2);
    for (int i = 0; i < fields.length; i++) {
      byField.put(fields[i], i);
    }
    Arrays.fill(columnAt, -1);
  }

  /** The column index of {@code field}, or -1 when it has none. */
  int indexOf(String field) {
    Integer i = byField.get(field);
    return i == null ? -1 : i;
  }

  /** As {@link #indexOf(String)}, for the field at {@code position} in its record. */
  int indexOf(String field, int position) {
    if (position < columnAt.length) {
      int guess = columnAt[position];
      if (guess >= 0 && fields[guess].equals(field)) {
        return guess;
      }
      if (field.equals(noneAt[position])) {
        return -1;
      }
    } else {
      grow(position);
    }
    int i = indexOf(field);
    if (i >= 0) {
      columnAt[position] = i;
    } else {
      noneAt[position] = field;
    }
    return i;
  }

  private void grow(int position) {
    int length = Math.max(position + 1, columnAt.length * 2);
    int old = columnAt.length;
    columnAt = Arrays.copyOf(columnAt, length);
    Arrays.fill(columnAt, old, length, -1);
    noneAt = Arrays.copyOf(noneAt, length);
  }
}
