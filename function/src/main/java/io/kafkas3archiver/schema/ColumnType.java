package io.kafkas3archiver.schema;

import java.math.BigDecimal;

/**
 * The type of a value column of a topic's csv and parquet objects: what Parquet stores and Athena
 * declares. Inference gives the first five; {@link #DECIMAL} is a declared {@code number}.
 */
public enum ColumnType {
  /** An integer that fits 64 bits: Parquet INT64. */
  BIGINT("bigint", "bigint"),
  /** A number whose nearest double prints back as the same number: Parquet DOUBLE. */
  DOUBLE("double", "double"),
  BOOLEAN("boolean", "boolean"),
  /** UTF-8 text. */
  STRING("string", "string"),
  /** An object or array, as compact JSON text (Parquet STRING). */
  JSON("json", "string"),
  /** A declared {@code number}: {@code DECIMAL(38,9)}. */
  DECIMAL("decimal(38,9)", "decimal(38,9)");

  private final String id;
  private final String athenaType;

  ColumnType(String id, String athenaType) {
    this.id = id;
    this.athenaType = athenaType;
  }

  /** The name in the persisted schema document. */
  public String id() {
    return id;
  }

  /** The column's type in an Athena (Hive) table. */
  public String athenaType() {
    return athenaType;
  }

  public static ColumnType ofId(String id) {
    for (ColumnType t : values()) {
      if (t.id.equals(id)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown column type '" + id + "'");
  }

  /** Whether a JSON number's text is an integer that a BIGINT holds exactly. */
  public static boolean fitsBigint(String text) {
    return fitsBigint(text, null, 0, text.length());
  }

  /** {@link #fitsBigint(String)} of the ASCII text {@code b[offset, offset + n)}. */
  public static boolean fitsBigint(byte[] b, int offset, int n) {
    return fitsBigint(null, b, offset, n);
  }

  private static boolean fitsBigint(String text, byte[] b, int offset, int n) {
    int start = n > 0 && NumberText.at(text, b, offset, 0) == '-' ? 1 : 0;
    if (start == n || n - start > 19) {
      return false;
    }
    for (int i = start; i < n; i++) {
      char c = NumberText.at(text, b, offset, i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    if (n - start < 19) {
      return true;
    }
    try {
      Long.parseLong(text != null ? text : NumberText.latin1(b, offset, n));
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * The double a JSON number's text holds exactly, or null: exact when the nearest double's
   * shortest text ({@link Double#toString}) is the same number ({@code 43.72154389814236}, {@code
   * 0.1}, {@code 1.0e5}, {@code 10}), so nothing a Java or JavaScript producer printed is lost.
   */
  public static Double exactDouble(String text) {
    double d;
    try {
      d = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      return null;
    }
    if (Double.isInfinite(d) || Double.isNaN(d)) {
      return null;
    }
    String shortest = Double.toString(d);
    if (shortest.equals(text)) {
      return d;
    }
    try {
      return new BigDecimal(shortest).compareTo(new BigDecimal(text)) == 0 ? d : null;
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }
}
