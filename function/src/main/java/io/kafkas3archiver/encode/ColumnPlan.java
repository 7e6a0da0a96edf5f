package io.kafkas3archiver.encode;

import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Kind;
import io.kafkas3archiver.encode.TabularBatch.Row;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which top-level fields of a batch get a column of their own in csv and parquet, under which name.
 * Every other field goes, as received, into the one JSON-text column {@value #OVERFLOW}, so any
 * shape is kept in bounded memory and output that stays proportional to the input.
 *
 * <p>The rule (docs: object layout, "Columns"):
 *
 * <ul>
 *   <li>At most {@value #MAX_COLUMNS} value columns per object.
 *   <li>The empty cells of all value columns together may not exceed a quarter of the batch's value
 *       bytes: a field that is in few records costs an empty cell in all the others. Fields are
 *       considered from the most frequent down (ties: first seen); the first that does not fit, and
 *       every rarer one, goes to the overflow column. So 10,000 records that each carry a field
 *       name of their own keep their common fields as columns and their own names in {@value
 *       #OVERFLOW}.
 *   <li>Columns keep the fields' first-seen order.
 *   <li>Names are kept as written, except that readers (Athena, DuckDB, Spark) match names ignoring
 *       case: a name equal to a metadata column, to {@value #OVERFLOW}, or to an earlier column
 *       ignoring case gets {@code _2}, {@code _3}, ...; an empty name becomes {@code _}.
 * </ul>
 *
 * For parquet ({@code typed}), a column also has a type class, the most frequent kind among its
 * non-null values ({@link ParquetSchema}); a field that is null in every record gets no column.
 */
final class ColumnPlan {
  static final int MAX_COLUMNS = 1_000;
  static final String OVERFLOW = "_overflow";

  /**
   * Empty cells may be at most a quarter of the value bytes: a batch of sparse but real columns
   * (100 fields, each in 1 of 4 records) keeps them all, while per-record names stop after a few.
   */
  static final int EMPTY_CELLS_PER_VALUE_BYTE = 4;

  /** A value column: its name in the file, the JSON field it holds, and (parquet) its kind. */
  record Column(String name, String field, Kind kind) {}

  private final List<Column> columns;
  private final Map<String, Integer> indexByField;

  private ColumnPlan(List<Column> columns) {
    this.columns = List.copyOf(columns);
    this.indexByField = new HashMap<>(columns.size() * 2);
    for (int i = 0; i < columns.size(); i++) {
      indexByField.put(columns.get(i).field(), i);
    }
  }

  List<Column> columns() {
    return columns;
  }

  /** The column index of a field, or -1 when the field goes to the overflow column. */
  int indexOf(String field) {
    Integer i = indexByField.get(field);
    return i == null ? -1 : i;
  }

  /** Per-field tallies while planning. */
  private static final class Tally {
    final int firstSeen;
    int present;
    final int[] kinds = new int[Kind.values().length];

    Tally(int firstSeen) {
      this.firstSeen = firstSeen;
    }

    /** The most frequent non-null kind; strings and nested values share one text class. */
    Kind kind() {
      int text = kinds[Kind.STRING.ordinal()] + kinds[Kind.NESTED.ordinal()];
      int number = kinds[Kind.NUMBER.ordinal()];
      int bool = kinds[Kind.BOOLEAN.ordinal()];
      if (text == 0 && number == 0 && bool == 0) {
        return Kind.NULL;
      }
      if (number >= text && number >= bool) {
        return Kind.NUMBER;
      }
      if (bool > text) {
        return Kind.BOOLEAN;
      }
      return Kind.STRING;
    }
  }

  /**
   * Plans the columns of {@code batch}, whose names must not collide with {@code reserved} (the
   * metadata columns). With {@code typed}, all-null fields get no column.
   */
  static ColumnPlan plan(TabularBatch batch, Collection<String> reserved, boolean typed) {
    return plan(batch, reserved, typed, null);
  }

  /**
   * As above; the fields {@code declared} by an explicit schema come first, in its order and with
   * its kinds, whether or not the batch holds them, and count toward the cap.
   */
  static ColumnPlan plan(
      TabularBatch batch, Collection<String> reserved, boolean typed, ExplicitSchema declared) {
    Map<String, Tally> tallies = new LinkedHashMap<>();
    for (Row row : batch.rows()) {
      if (row.fields() == null) {
        continue;
      }
      for (Field f : row.fields()) {
        Tally t = tallies.computeIfAbsent(f.name(), n -> new Tally(tallies.size()));
        t.present++;
        t.kinds[f.kind().ordinal()]++;
      }
    }
    List<Map.Entry<String, Tally>> byFrequency = new ArrayList<>(tallies.entrySet());
    if (typed) {
      byFrequency.removeIf(e -> e.getValue().kind() == Kind.NULL);
    }
    Map<String, Kind> fixed = declared == null ? Map.of() : declared.fields();
    byFrequency.removeIf(e -> fixed.containsKey(e.getKey()));
    byFrequency.sort(
        Comparator.comparingInt((Map.Entry<String, Tally> e) -> -e.getValue().present)
            .thenComparingInt(e -> e.getValue().firstSeen));
    long rows = batch.rows().size();
    long budget = batch.valueBytes() / EMPTY_CELLS_PER_VALUE_BYTE;
    long emptyCells = 0;
    List<Map.Entry<String, Tally>> chosen = new ArrayList<>();
    for (Map.Entry<String, Tally> e : byFrequency) {
      long empty = rows - e.getValue().present;
      if (fixed.size() + chosen.size() >= MAX_COLUMNS || emptyCells + empty > budget) {
        break;
      }
      emptyCells += empty;
      chosen.add(e);
    }
    chosen.sort(Comparator.comparingInt(e -> e.getValue().firstSeen));
    Set<String> taken = new HashSet<>();
    reserved.forEach(name -> taken.add(fold(name)));
    taken.add(fold(OVERFLOW));
    List<Column> columns = new ArrayList<>(fixed.size() + chosen.size());
    fixed.forEach((field, kind) -> columns.add(new Column(uniqueName(field, taken), field, kind)));
    for (Map.Entry<String, Tally> e : chosen) {
      columns.add(
          new Column(
              uniqueName(e.getKey(), taken), e.getKey(), typed ? e.getValue().kind() : null));
    }
    return new ColumnPlan(columns);
  }

  /**
   * Splits a row's fields into its cells (by column index, null where absent) and the fields that
   * go to the overflow column. With {@code typed}, a value whose kind does not fit its column's
   * goes to the overflow too ({@code fits}).
   */
  Field[] cells(
      List<Field> fields, List<Field> overflow, java.util.function.Predicate<Field> fits) {
    Field[] cells = new Field[columns.size()];
    if (fields == null) {
      return cells;
    }
    for (Field f : fields) {
      int i = indexOf(f.name());
      if (i >= 0 && (fits == null || fits.test(f))) {
        cells[i] = f;
      } else if (i >= 0 && f.kind() == Kind.NULL) {
        // A null is the column's null; it needs no overflow entry.
      } else {
        overflow.add(f);
      }
    }
    return cells;
  }

  private static String uniqueName(String field, Set<String> taken) {
    String base = field.isEmpty() ? "_" : field;
    String name = base;
    for (int n = 2; !taken.add(fold(name)); n++) {
      name = base + "_" + n;
    }
    return name;
  }

  private static String fold(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
