package io.kafkas3archiver.table;

import io.kafkas3archiver.config.ConfigException;
import java.util.ServiceLoader;

/** Finds the table writer for {@code OUTPUT_FORMAT} on the class path, or fails the init. */
public final class TableWriters {
  /** The artifact that carries the Iceberg writer (DESIGN §9). */
  public static final String ICEBERG_ARTIFACT = "kafka-s3-archiver-iceberg.jar";

  private TableWriters() {}

  public static BatchArchiver create(TableWriterProvider.Context context) {
    String format = context.config().format().configName();
    for (TableWriterProvider p : ServiceLoader.load(TableWriterProvider.class)) {
      if (p.format().equals(format)) {
        return p.create(context);
      }
    }
    throw new ConfigException(
        "OUTPUT_FORMAT='"
            + format
            + "' needs the Iceberg artifact, and this function runs the plain jar"
            + " (kafka-s3-archiver.jar), which leaves Iceberg out to keep the file formats' cold"
            + " start lean: deploy "
            + ICEBERG_ARTIFACT
            + " (the infrastructure picks it when OUTPUT_FORMAT=iceberg), or choose one of json,"
            + " ndjson, csv, parquet");
  }
}
