package io.kafkas3archiver.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

/**
 * Opens one Parquet data file in a partition of the table: batches and compaction both write so.
 */
final class DataFileWriter {
  private DataFileWriter() {}

  /**
   * @param codec Iceberg's name of the Parquet codec ({@code zstd}, {@code uncompressed}, ...)
   */
  static DataWriter<Record> open(
      Table table, Schema schema, PartitionSpec spec, StructLike partition, String codec) {
    String location =
        table
            .locationProvider()
            .newDataLocation(spec, partition, "kafka-" + UUID.randomUUID() + ".parquet");
    try {
      return Parquet.writeData(table.io().newOutputFile(location))
          .forTable(table)
          .schema(schema)
          .withSpec(spec)
          .withPartition(partition)
          .createWriterFunc(GenericParquetWriter::create)
          .set(TableProperties.PARQUET_COMPRESSION, codec)
          .overwrite()
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes files of a commit that did not land. */
  static void deleteQuietly(Table table, List<DataFile> files) {
    for (DataFile f : files) {
      try {
        table.io().deleteFile(f.location());
      } catch (RuntimeException ignored) {
        // An orphan file costs storage only; remove_orphan_files cleans it.
      }
    }
  }
}
