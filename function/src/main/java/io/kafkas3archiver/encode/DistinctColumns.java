package io.kafkas3archiver.encode;

import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Row;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.NumberText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The inferred columns whose every value in the object differs from every other, found before the
 * Parquet writer starts. Parquet-mr builds a dictionary for each column and, at the end of the
 * column's first page, keeps it only if the dictionary plus the value ids are smaller than the
 * plain values; when every value is distinct the dictionary alone is as large as the plain values,
 * so it always falls back and re-encodes the page plain. Naming those columns plain from the start
 * writes the same bytes without building the dictionary and its hash map (about 4 MB and a fifth of
 * a parquet batch's time, measured on the benchmark's batch).
 *
 * <p>Distinct is decided on 64-bit hashes of what the column writes (a string's UTF-8 bytes, a
 * long, a double's bits, a decimal's bytes): different hashes mean different values, so a column
 * called distinct is; two values that only share a hash leave the column to parquet's own decision,
 * as before. One instance per batch: not thread-safe.
 */
final class DistinctColumns {
  /** The most cells looked at, so that a batch of any shape costs at most 4 MB here. */
  static final long MAX_CELLS = 1_000_000;

  private long[] table = new long[0];
  private int size;

  /** The names of {@code plan}'s columns that hold only distinct values (nulls aside) in rows. */
  List<String> of(ColumnPlan plan, List<Row> rows) {
    List<ColumnPlan.Column> columns = plan.columns();
    List<String> distinct = new ArrayList<>();
    if (columns.isEmpty() || rows.isEmpty() || (long) rows.size() * columns.size() > MAX_CELLS) {
      // Past a million cells (4 MB of references: a wide, sparse batch) parquet-mr decides alone.
      return distinct;
    }
    int width = columns.size();
    // Every row's cells in one array (a reference a cell), rather than an array a row.
    Field[] cells = new Field[rows.size() * width];
    Field[] row = new Field[width];
    List<Field> overflow = new ArrayList<>();
    for (int r = 0; r < rows.size(); r++) {
      overflow.clear();
      plan.cells(rows.get(r).fields(), row, overflow);
      System.arraycopy(row, 0, cells, r * width, width);
    }
    for (int c = 0; c < columns.size(); c++) {
      ColumnType type = columns.get(c).type();
      if (type == null || type == ColumnType.BOOLEAN) {
        continue; // parquet-mr never builds a dictionary for booleans
      }
      clear(rows.size());
      boolean all = true;
      for (int r = 0; r < rows.size() && all; r++) {
        Field f = cells[r * width + c];
        if (f != null && f.kind() != TabularBatch.Kind.NULL) {
          all = add(hash(type, f));
        }
      }
      if (all && size > 0) { // a column with no value here is left to parquet-mr
        distinct.add(columns.get(c).name());
      }
    }
    return distinct;
  }

  private static long hash(ColumnType type, Field f) {
    return switch (type) {
      case BIGINT -> mix(Long.parseLong(f.text()));
      case DOUBLE -> mix(Double.doubleToLongBits(NumberText.toDouble(f.text())));
      case DECIMAL -> bytes(ParquetSchema.decimal(f.text()).getBytes(), 0, -1);
      case STRING, JSON ->
          f.hasUtf8()
              ? bytes(f.utf8Source(), f.utf8Offset(), f.utf8Length())
              : bytes(f.text().getBytes(StandardCharsets.UTF_8), 0, -1);
      case BOOLEAN -> 0;
    };
  }

  private static long bytes(byte[] b, int offset, int length) {
    int end = length < 0 ? b.length : offset + length;
    long h = 0x9e3779b97f4a7c15L ^ (end - offset);
    for (int i = offset; i < end; i++) {
      h = (h ^ (b[i] & 0xff)) * 0x100000001b3L;
      h ^= h >>> 29;
    }
    return mix(h);
  }

  /** A 64-bit finalizer (SplitMix64's), so that close values spread over the table. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private void clear(int values) {
    int capacity = Integer.highestOneBit(Math.max(4, values) * 2 - 1) << 1;
    if (table.length != capacity) {
      table = new long[capacity];
    } else {
      Arrays.fill(table, 0L);
    }
    size = 0;
  }

  /** False when the hash was there already. 0 stands for an empty slot, so 0 is stored as 1. */
  private boolean add(long h) {
    long key = h == 0 ? 1 : h;
    int mask = table.length - 1;
    int i = (int) (key ^ (key >>> 32)) & mask;
    while (table[i] != 0) {
      if (table[i] == key) {
        return false;
      }
      i = (i + 1) & mask;
    }
    table[i] = key;
    size++;
    return true;
  }
}
