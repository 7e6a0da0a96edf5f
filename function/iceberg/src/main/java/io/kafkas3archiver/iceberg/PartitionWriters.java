package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.report.WrittenObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;

/**
 * The data files of one commit attempt, one per partition (hour), each row written as soon as it is
 * converted: a batch never holds its rows as objects, only the Parquet writers' column buffers.
 * Held rows lived through every young collection of the batch, and copying them was most of the
 * iceberg function's GC time (docs/iceberg.md, Performance).
 */
final class PartitionWriters implements AutoCloseable {
  private final Table table;
  private final Schema schema;
  private final PartitionSpec spec;
  private final String codec;
  private final Clock clock;
  private final PartitionKey key;
  private final InternalRecordWrapper wrapper;
  private final Map<PartitionKey, Open> open = new LinkedHashMap<>();
  private final List<DataFile> closed = new ArrayList<>();
  private boolean finished;

  private record Open(DataWriter<Record> writer, long started) {}

  PartitionWriters(Table table, Schema schema, String codec, Clock clock) {
    this.table = table;
    this.schema = schema;
    this.spec = table.spec();
    this.codec = codec;
    this.clock = clock;
    this.key = new PartitionKey(spec, schema);
    this.wrapper = new InternalRecordWrapper(schema.asStruct());
  }

  void write(Record row) {
    key.partition(wrapper.wrap(row));
    Open target = open.get(key);
    if (target == null) {
      PartitionKey partition = key.copy();
      target = new Open(DataFileWriter.open(table, schema, spec, partition, codec), clock.millis());
      open.put(partition, target);
    }
    target.writer().write(row);
  }

  /**
   * Closes every file (Iceberg's S3 output stream uploads on close) and returns them; {@code
   * objects} gains one entry per file for the log line. On a failure the files written so far are
   * deleted.
   */
  List<DataFile> finish(List<WrittenObject> objects) {
    finished = true;
    try {
      for (var it = open.values().iterator(); it.hasNext(); ) {
        Open o = it.next();
        o.writer().close();
        it.remove();
        DataFile file = o.writer().toDataFile();
        closed.add(file);
        objects.add(
            new WrittenObject(
                file.location(),
                WrittenObject.Kind.DATA,
                (int) file.recordCount(),
                file.fileSizeInBytes(),
                file.fileSizeInBytes(),
                1,
                clock.millis() - o.started()));
      }
    } catch (IOException | RuntimeException e) {
      abandon();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    return List.copyOf(closed);
  }

  /**
   * Closes what is open without keeping it, and deletes every file of the attempt. Iceberg's
   * writers cannot be abandoned unwritten: closing uploads, so the files are deleted after.
   */
  private void abandon() {
    for (Open o : open.values()) {
      try {
        o.writer().close();
        closed.add(o.writer().toDataFile());
      } catch (IOException | RuntimeException ignored) {
        // nothing was uploaded for it, or it is deleted below
      }
    }
    DataFileWriter.deleteQuietly(table, closed);
    closed.clear();
    open.clear();
  }

  /** Without {@link #finish}: the attempt was given up (a schema change, a failed upload). */
  @Override
  public void close() {
    if (!finished) {
      finished = true;
      abandon();
    }
  }
}
