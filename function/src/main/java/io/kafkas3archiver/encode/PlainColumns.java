package io.kafkas3archiver.encode;

import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Row;
import io.kafkas3archiver.schema.ColumnType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The inferred columns whose dictionary Parquet would build only to drop it, found before the
 * Parquet writer starts. Parquet-mr builds a dictionary for each column and, at the end of the
 * column's first page, keeps it only if the dictionary plus the value ids are smaller than the
 * plain values ({@code DictionaryValuesWriter.isCompressionSatisfying}); otherwise it falls back
 * and re-encodes the page plain. Naming those columns plain from the start writes the same bytes
 * without building the dictionary, its hash map and the second copy of the values. All-distinct
 * columns were the first case (about 4 MB and a fifth of a parquet batch's time on the benchmark's
 * batch); its nearly distinct {@code odometerKm} and {@code status} columns fell back too, and
 * their re-encoding was about 6% of the batch's allocation in a JFR profile.
 *
 * <p>The forecast is parquet-mr's own sum, counted here: the dictionary's bytes (8 a distinct long
 * or double, 4 plus the length a distinct string), the ids (one byte of bit width, then every eight
 * ids bit-packed at the width of the largest id, a header byte every 63 groups) against the plain
 * values (8 a long or double, 4 plus the length a string). It is exact when the ids are all
 * bit-packed, so a column with a run of eight equal values in a row (which parquet-mr writes as a
 * run, smaller) is left to parquet-mr, and so is a batch past {@link #MAX_CELLS}. It judges the
 * whole column, where parquet-mr judges the column's first page, which ends at 20,000 rows or about
 * a megabyte of plain values. For a column of one page (PlainColumnsTest's batches) the two agree
 * byte for byte; for a longer column they can differ when the first page and the rest disagree, and
 * then the forecast names plain only a column that is smaller plain over all its values: a file as
 * valid, the encoding chosen on more data. Values are told apart by 64-bit hashes of what the
 * column writes (a string's UTF-8 bytes, a long, a double's bits): two values that share a hash
 * count as one, which only makes the dictionary look smaller and leaves the column to parquet-mr.
 * One instance per batch: not thread-safe.
 */
final class PlainColumns {
  /** The most cells looked at, so that a batch of any shape costs at most 4 MB here. */
  static final long MAX_CELLS = 1_000_000;

  /** Equal values in a row from which parquet-mr's id encoder writes a run, not bit-packed ids. */
  private static final int RUN = 8;

  /** Bit-packed groups of eight ids under one header byte, at most (parquet-mr's encoder). */
  private static final int GROUPS_PER_HEADER = 63;

  private long[] table = new long[0];
  private int size;

  /** The names of {@code plan}'s columns that parquet-mr would write plain, given {@code rows}. */
  List<String> of(ColumnPlan plan, List<Row> rows) {
    List<ColumnPlan.Column> columns = plan.columns();
    List<String> plain = new ArrayList<>();
    if (columns.isEmpty() || rows.isEmpty() || (long) rows.size() * columns.size() > MAX_CELLS) {
      // Past a million cells (4 MB of references: a wide, sparse batch) parquet-mr decides alone.
      return plain;
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
      if (type == null || type == ColumnType.BOOLEAN || type == ColumnType.DECIMAL) {
        // Parquet-mr's v1 writer builds no dictionary for booleans, nor for a decimal's fixed
        // length bytes (DefaultV1ValuesWriterFactory writes those plain).
        continue;
      }
      clear(rows.size());
      long values = 0;
      long plainBytes = 0;
      long dictionaryBytes = 0;
      long previous = 0;
      int repeats = 0;
      // The plain values less the dictionary only grow: past the most the ids could take, the
      // dictionary is kept whatever comes next (a column of few values is decided early).
      long mostIds = idBytes(rows.size(), rows.size());
      for (int r = 0;
          r < rows.size() && repeats < RUN && plainBytes - dictionaryBytes <= mostIds;
          r++) {
        Field f = cells[r * width + c];
        if (f == null || f.kind() == TabularBatch.Kind.NULL) {
          continue; // a null has no value in the page, only a definition level
        }
        // What the value costs plain and in the dictionary, as parquet-mr counts both: a long or
        // a double 8, a string 4 plus its length.
        long h;
        long cost;
        if (type == ColumnType.BIGINT) {
          h = mix(f.longValue());
          cost = 8;
        } else if (type == ColumnType.DOUBLE) {
          h = mix(Double.doubleToLongBits(f.doubleValue()));
          cost = 8;
        } else { // STRING, JSON
          byte[] b = f.hasUtf8() ? f.utf8Source() : f.text().getBytes(StandardCharsets.UTF_8);
          int from = f.hasUtf8() ? f.utf8Offset() : 0;
          int length = f.hasUtf8() ? f.utf8Length() : b.length;
          h = bytes(b, from, length);
          cost = 4L + length;
        }
        if (add(h)) {
          dictionaryBytes += cost;
        }
        plainBytes += cost;
        repeats = values > 0 && h == previous ? repeats + 1 : 1;
        previous = h;
        values++;
      }
      if (repeats < RUN && values > 0 && idBytes(values, size) + dictionaryBytes >= plainBytes) {
        plain.add(columns.get(c).name());
      }
    }
    return plain;
  }

  /**
   * The bytes of {@code values} dictionary ids of {@code distinct} values, all bit-packed, as
   * parquet-mr's first page holds them: one byte of bit width (that of the largest id), then each
   * group of eight ids at that width, a header byte every 63 groups.
   */
  static long idBytes(long values, long distinct) {
    int bitWidth = 64 - Long.numberOfLeadingZeros(distinct - 1);
    long groups = (values + RUN - 1) / RUN;
    long headers = (groups + GROUPS_PER_HEADER - 1) / GROUPS_PER_HEADER;
    return 1 + groups * bitWidth + headers;
  }

  private static long bytes(byte[] b, int offset, int length) {
    int end = offset + length;
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
