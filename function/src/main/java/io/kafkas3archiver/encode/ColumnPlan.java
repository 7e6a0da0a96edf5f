package io.kafkas3archiver.encode;

import io.kafkas3archiver.encode.TabularBatch.Field;
import io.kafkas3archiver.encode.TabularBatch.Row;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.TopicSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The inferred value columns of one csv or parquet object: every column of the topic's schema
 * version ({@link TopicSchema}), in its order (a declared schema's columns come before them, typed
 * by {@link RegistryColumns}, and its fields are not planned here). Every other field, and every
 * value that its column's type cannot hold exactly, goes, as received, into the one JSON-text
 * column {@value #OVERFLOW}.
 *
 * <p>Which new fields a batch adds to the topic's schema (docs: object layout, "Columns"):
 *
 * <ul>
 *   <li>At most {@value #MAX_COLUMNS} value columns per topic.
 *   <li>The empty cells of the new columns together may not exceed a quarter of the batch's value
 *       bytes: a field that is in few records costs an empty cell in all the others. Fields are
 *       considered from the most frequent down (ties: first seen); the first that does not fit, and
 *       every rarer one, goes to the overflow column. So 10,000 records that each carry a field
 *       name of their own keep their common fields as columns and their own names in {@value
 *       #OVERFLOW}.
 *   <li>A field that is null in every record of the batch gets no column yet: its type is unknown.
 *   <li>New columns are appended in the fields' first-seen order.
 *   <li>A new column's type is the one that holds the most of the batch's values exactly: BIGINT,
 *       DOUBLE, BOOLEAN, or text (STRING, or JSON when objects and arrays outnumber strings); ties
 *       go to that order, so integers are BIGINT unless the batch also holds fractions.
 * </ul>
 */
final class ColumnPlan {
  static final int MAX_COLUMNS = 1_000;
  static final String OVERFLOW = "_overflow";

  /**
   * Empty cells may be at most a quarter of the value bytes: a batch of sparse but real columns
   * (100 fields, each in 1 of 4 records) keeps them all, while per-record names stop after a few.
   */
  static final int EMPTY_CELLS_PER_VALUE_BYTE = 4;

  /** A value column: its name in the file, the JSON field it holds, and its type. */
  record Column(String name, String field, ColumnType type) {}

  private final List<Column> columns;
  private final ColumnType[] types;
  private final FieldIndex index;

  private ColumnPlan(List<Column> columns) {
    this.columns = List.copyOf(columns);
    this.types = new ColumnType[columns.size()];
    String[] fields = new String[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      types[i] = columns.get(i).type();
      fields[i] = columns.get(i).field();
    }
    this.index = new FieldIndex(fields);
  }

  List<Column> columns() {
    return columns;
  }

  /** The column index of a field, or -1 when the field goes to the overflow column. */
  int indexOf(String field) {
    return index.indexOf(field);
  }

  /** The schema version's columns. */
  static ColumnPlan of(TopicSchema schema) {
    return of(schema, List.of());
  }

  /**
   * The schema version's columns, but for those named (ignoring case) as a declared column: a field
   * inferred before the schema was declared, whose values the declared column now takes.
   */
  static ColumnPlan of(TopicSchema schema, Collection<String> declared) {
    java.util.Set<String> taken = new java.util.HashSet<>();
    declared.forEach(n -> taken.add(TopicSchema.fold(n)));
    List<Column> columns = new ArrayList<>();
    for (TopicSchema.Column c : schema.columns()) {
      if (!taken.contains(TopicSchema.fold(c.name()))) {
        columns.add(new Column(c.name(), c.field(), c.type()));
      }
    }
    return new ColumnPlan(columns);
  }

  /**
   * The names a schema column may not take: the metadata columns, the overflow, and the declared
   * columns' names.
   */
  static List<String> reserved(Collection<String> metadata, Collection<String> declared) {
    List<String> reserved = new ArrayList<>(metadata);
    reserved.add(OVERFLOW);
    reserved.addAll(declared);
    return reserved;
  }

  /** Per-field tallies of a new field while planning. */
  private static final class Tally {
    final String field;
    final int firstSeen;
    int present;
    int bigints;
    int doubles;
    int booleans;
    int strings;
    int nested;

    Tally(String field, int firstSeen) {
      this.field = field;
      this.firstSeen = firstSeen;
    }

    void add(Field f) {
      present++;
      switch (f.kind()) {
        case NULL -> {}
        case BOOLEAN -> booleans++;
        case STRING -> strings++;
        case NESTED -> nested++;
        case NUMBER -> {
          if (f.fitsBigint()) {
            bigints++;
            // An integer within 2^53 is exact as a double too.
            if (Math.abs(f.longValue()) <= (1L << 53)) {
              doubles++;
            }
          } else if (f.isExactDouble()) {
            doubles++;
          }
        }
      }
    }

    /** The type holding most values; null when every value is null (or no number fits). */
    ColumnType type() {
      int text = strings + nested;
      int best = Math.max(Math.max(bigints, doubles), Math.max(booleans, text));
      if (best == 0) {
        return null;
      }
      if (bigints == best) {
        return ColumnType.BIGINT;
      }
      if (doubles == best) {
        return ColumnType.DOUBLE;
      }
      if (booleans == best) {
        return ColumnType.BOOLEAN;
      }
      return nested > strings ? ColumnType.JSON : ColumnType.STRING;
    }
  }

  /**
   * The fields of {@code batch} that have no column in {@code schema} and that the rule above
   * admits, with their types, in first-seen order. {@code declared} columns count against the cap
   * (their fields are no longer in the rows).
   */
  static List<TopicSchema.Addition> additions(
      TabularBatch batch, TopicSchema schema, int declared) {
    List<TopicSchema.Column> existing = schema.columns();
    String[] existingFields = new String[existing.size()];
    for (int i = 0; i < existingFields.length; i++) {
      existingFields[i] = existing.get(i).field();
    }
    FieldIndex known = new FieldIndex(existingFields);
    Map<String, Tally> tallies = new LinkedHashMap<>();
    // As in FieldIndex: the tally of the new field last seen at each position is tried first.
    Tally[] tallyAt = new Tally[16];
    List<Row> batchRows = batch.rows();
    for (int r = 0; r < batchRows.size(); r++) {
      List<Field> fields = batchRows.get(r).fields();
      if (fields == null) {
        continue;
      }
      for (int p = 0; p < fields.size(); p++) {
        Field f = fields.get(p);
        if (known.indexOf(f.name(), p) >= 0) {
          continue;
        }
        Tally t = p < tallyAt.length ? tallyAt[p] : null;
        if (t == null || !t.field.equals(f.name())) {
          t = tallies.get(f.name());
          if (t == null) {
            t = new Tally(f.name(), tallies.size());
            tallies.put(f.name(), t);
          }
          if (p >= tallyAt.length) {
            tallyAt = Arrays.copyOf(tallyAt, Math.max(p + 1, tallyAt.length * 2));
          }
          tallyAt[p] = t;
        }
        t.add(f);
      }
    }
    if (tallies.isEmpty()) {
      return List.of();
    }
    List<Map.Entry<String, Tally>> byFrequency = new ArrayList<>(tallies.entrySet());
    byFrequency.removeIf(e -> e.getValue().type() == null);
    byFrequency.sort(
        Comparator.comparingInt((Map.Entry<String, Tally> e) -> -e.getValue().present)
            .thenComparingInt(e -> e.getValue().firstSeen));
    long rows = batch.rows().size();
    long budget = batch.valueBytes() / EMPTY_CELLS_PER_VALUE_BYTE;
    long emptyCells = 0;
    int room = MAX_COLUMNS - existing.size() - declared;
    List<Map.Entry<String, Tally>> chosen = new ArrayList<>();
    for (Map.Entry<String, Tally> e : byFrequency) {
      long empty = rows - e.getValue().present;
      if (chosen.size() >= room || emptyCells + empty > budget) {
        break;
      }
      emptyCells += empty;
      chosen.add(e);
    }
    chosen.sort(Comparator.comparingInt(e -> e.getValue().firstSeen));
    List<TopicSchema.Addition> out = new ArrayList<>(chosen.size());
    for (Map.Entry<String, Tally> e : chosen) {
      out.add(new TopicSchema.Addition(e.getKey(), e.getValue().type()));
    }
    return out;
  }

  /** Whether a value can be stored, exactly, in a column of {@code type}. */
  static boolean fits(ColumnType type, Field value) {
    return switch (value.kind()) {
      case NULL -> true;
      case BOOLEAN -> type == ColumnType.BOOLEAN;
      case NUMBER ->
          switch (type) {
            case BIGINT -> value.fitsBigint();
            case DOUBLE -> value.isExactDouble();
            case DECIMAL -> ParquetSchema.fitsDecimal(value.text());
            case BOOLEAN, STRING, JSON -> false;
          };
      case STRING, NESTED -> type == ColumnType.STRING || type == ColumnType.JSON;
    };
  }

  /**
   * Splits a row's fields into its cells (by column index, null where absent) and the fields that
   * go to the overflow column: those without a column, and those whose value the column's type
   * cannot hold ({@link #fits}). Returns how many went there for their type.
   */
  int cells(List<Field> fields, Field[] cells, List<Field> overflow) {
    Arrays.fill(cells, null);
    if (fields == null) {
      return 0;
    }
    int misfits = 0;
    for (int p = 0; p < fields.size(); p++) {
      Field f = fields.get(p);
      int i = index.indexOf(f.name(), p);
      if (i < 0) {
        overflow.add(f);
      } else if (fits(types[i], f)) {
        cells[i] = f;
      } else {
        overflow.add(f);
        misfits++;
      }
    }
    return misfits;
  }
}
