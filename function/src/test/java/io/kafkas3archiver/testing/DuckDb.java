package io.kafkas3archiver.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An independent reader for what the function wrote: DuckDB (in-process, JDBC), so output is never
 * checked only with our own encoder.
 */
public final class DuckDb implements AutoCloseable {
  private final Connection connection;

  public DuckDb() {
    try {
      this.connection = DriverManager.getConnection("jdbc:duckdb:");
    } catch (SQLException e) {
      throw new IllegalStateException("could not open DuckDB", e);
    }
  }

  /** Runs a query and returns every row as column name -> value, in column order. */
  public List<Map<String, Object>> query(String sql) {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      ResultSetMetaData meta = rs.getMetaData();
      List<Map<String, Object>> rows = new ArrayList<>();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.put(meta.getColumnName(i), rs.getObject(i));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB query failed: " + sql, e);
    }
  }

  /** A path as a SQL string literal. */
  public static String literal(Path path) {
    return "'" + path.toAbsolutePath().toString().replace("'", "''") + "'";
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
