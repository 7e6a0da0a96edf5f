package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import io.kafkas3archiver.encode.ErrorObjectEncoder;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.report.BatchOutcome;
import io.kafkas3archiver.report.TableCommit;
import io.kafkas3archiver.report.TopicOutcome;
import io.kafkas3archiver.report.WrittenObject;
import io.kafkas3archiver.table.BatchArchiver;
import io.kafkas3archiver.table.MaintenanceReport;
import io.kafkas3archiver.upload.CredentialsSource;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;

/**
 * OUTPUT_FORMAT=iceberg: one batch is one atomic append commit per table. The snapshot summary
 * carries every topic-partition's last committed offset; each attempt re-reads it from the table's
 * current state and appends only the records past it, so a redelivery with any boundaries, a
 * retried commit, or two invocations holding one partition never store an offset twice.
 *
 * <p>Iceberg rebases a commit onto whatever landed meanwhile (its own retry, and the snapshot
 * producer's refresh before it commits), with the records it was built with: two writers of one
 * partition would both append the same offsets. So each commit validates that no data files were
 * added since the snapshot its offsets were read from (an overwrite that only adds files, with
 * {@code validateNoConflictingData}), the table's {@code commit.retry.num-retries} is 0, and this
 * class retries: refresh, re-read the offsets, re-filter, rewrite, commit.
 */
final class IcebergArchiver implements BatchArchiver {
  private static final int MAX_ATTEMPTS = 50;

  /** Time kept back for the response and the log line when the deadline nears. */
  private static final long DEADLINE_MARGIN_MS = 2_000;

  private final ArchiverConfig config;
  private final IcebergSettings settings;
  private final Function<String, String> env;
  private final ObjectStore errorStore;
  private final CredentialsSource credentials;
  private final Clock clock;
  private final TableRows rows;
  private final ErrorObjectEncoder errorEncoder = new ErrorObjectEncoder();
  private final Map<String, Table> tables = new HashMap<>();
  private Catalog catalog;

  IcebergArchiver(
      ArchiverConfig config,
      IcebergSettings settings,
      Function<String, String> env,
      ObjectStore errorStore,
      CredentialsSource credentials,
      Clock clock) {
    this.config = config;
    this.settings = settings;
    this.env = env;
    this.errorStore = errorStore;
    this.credentials = credentials;
    this.clock = clock;
    this.rows = new TableRows(config.includeKafkaMetadata());
  }

  /**
   * The catalog opens on the first batch, not at init: a REST catalog calls out (and signs with
   * credentials) as it opens, and no secret may be fetched before the SnapStart snapshot.
   */
  private Catalog catalog() {
    if (catalog == null) {
      catalog = IcebergCatalogs.open(settings, config, credentials, env);
    }
    return catalog;
  }

  @Override
  public BatchOutcome archive(KafkaBatch batch, Deadline deadline) {
    Map<String, TableBatch> byTable = new TreeMap<>();
    Map<String, Tally> tallies = new TreeMap<>();
    for (KafkaRecord r : batch.records()) {
      tallies.computeIfAbsent(r.topic(), Tally::new).add(r.timestamp());
      if (config.inputTopic().isPresent() && !config.inputTopic().get().equals(r.topic())) {
        RejectedRecord rejected =
            RejectedRecord.of(
                r,
                "the record's topic '"
                    + r.topic()
                    + "' is not INPUT_TOPIC '"
                    + config.inputTopic().get()
                    + "'");
        byTable
            .computeIfAbsent(settings.tableFor(r.topic()), TableBatch::new)
            .undecoded
            .add(rejected);
        continue;
      }
      byTable.computeIfAbsent(settings.tableFor(r.topic()), TableBatch::new).records.add(r);
    }
    for (RejectedRecord r : batch.rejected()) {
      tallies.computeIfAbsent(r.topic(), Tally::new).add(r.timestamp());
      byTable.computeIfAbsent(settings.tableFor(r.topic()), TableBatch::new).undecoded.add(r);
    }
    List<TableCommit> commits = new ArrayList<>();
    List<BatchOutcome.Failure> failures = new ArrayList<>();
    for (TableBatch tb : byTable.values()) {
      try {
        commits.add(commit(tb, tallies, deadline));
      } catch (UploadException e) {
        Map<String, Map<String, Long>> firstByTopic = new TreeMap<>();
        for (KafkaRecord r : tb.records) {
          firstByTopic
              .computeIfAbsent(r.topic(), t -> new TreeMap<>())
              .merge(r.topicPartition(), r.offset(), Math::min);
          tallies.get(r.topic()).failed++;
        }
        for (RejectedRecord r : tb.undecoded) {
          if (r.partition() != null && r.offset() != null) {
            firstByTopic
                .computeIfAbsent(r.topic(), t -> new TreeMap<>())
                .merge(r.topic() + "-" + r.partition(), r.offset(), Math::min);
          }
          tallies.get(r.topic()).failed++;
        }
        firstByTopic.forEach(
            (topic, first) -> failures.add(new BatchOutcome.Failure(topic, first, e)));
      }
    }
    return new BatchOutcome(
        tallies.values().stream().map(Tally::outcome).toList(), failures, commits);
  }

  /**
   * {@code {"action":"maintain"}}: {@code ICEBERG_TABLE}, or every table of the namespace that this
   * archiver commits to (its snapshots carry the offsets), compacted and expired in turn.
   */
  @Override
  public MaintenanceReport maintain(Deadline deadline) {
    TableMaintainer maintainer = new TableMaintainer(settings.maintenance(), clock);
    List<MaintenanceReport.TableMaintenance> results = new ArrayList<>();
    List<String> names;
    try {
      names =
          settings.table().isPresent()
              ? List.of(settings.table().get())
              : catalog().listTables(Namespace.of(settings.database())).stream()
                  .map(TableIdentifier::name)
                  .sorted()
                  .toList();
    } catch (RuntimeException e) {
      results.add(failed(settings.database(), catalogError(settings.database(), e, 1)));
      return new MaintenanceReport(config.title(), results);
    }
    for (String name : names) {
      if (deadline.remainingMillis() < DEADLINE_MARGIN_MS * 5) {
        results.add(
            new MaintenanceReport.TableMaintenance(
                name,
                MaintenanceReport.Outcome.OUT_OF_TIME,
                0,
                0,
                0,
                0,
                -1,
                0,
                0,
                0,
                "the invocation's time ran out; give the maintenance function a longer timeout"));
        continue;
      }
      Table table;
      try {
        table = catalog().loadTable(TableIdentifier.of(Namespace.of(settings.database()), name));
      } catch (NoSuchTableException e) {
        continue; // not created yet: nothing to maintain
      } catch (RuntimeException e) {
        results.add(failed(name, catalogError(name, e, 1)));
        continue;
      }
      if (settings.table().isEmpty() && CommittedOffsets.read(table).isEmpty()) {
        continue; // another writer's table in the same namespace
      }
      results.add(maintainer.run(name, table, deadline));
    }
    return new MaintenanceReport(config.title(), results);
  }

  private static MaintenanceReport.TableMaintenance failed(String name, UploadException e) {
    return new MaintenanceReport.TableMaintenance(
        name, MaintenanceReport.Outcome.FAILED, 0, 0, 0, 0, -1, 0, 1, 0, e.getMessage());
  }

  /** One record's place, to drop a record that a batch carries twice. */
  private record Offset(String topicPartition, long offset) {}

  /** The records of one batch bound for one table. */
  private static final class TableBatch {
    final String table;
    final List<KafkaRecord> records = new ArrayList<>();
    final List<RejectedRecord> undecoded = new ArrayList<>();

    TableBatch(String table) {
      this.table = table;
    }
  }

  /** Per-topic counts; {@code in = written + errored + tombstones + failed + alreadyCommitted}. */
  private static final class Tally {
    final String topic;
    int in;
    int written;
    int errored;
    int tombstones;
    int failed;
    long earliest = Long.MAX_VALUE;
    final List<WrittenObject> objects = new ArrayList<>();

    Tally(String topic) {
      this.topic = topic;
    }

    void add(long timestamp) {
      in++;
      if (timestamp >= 0) {
        earliest = Math.min(earliest, timestamp);
      }
    }

    TopicOutcome outcome() {
      return new TopicOutcome(
          topic,
          in,
          written,
          errored,
          tombstones,
          failed,
          0, // a table counts skipped offsets per commit (recordsAlreadyCommitted)
          earliest == Long.MAX_VALUE ? -1 : earliest,
          objects,
          0,
          List.of(),
          0, // a table has no fan-out guard: nothing is deferred
          0);
    }
  }

  /** What one attempt decided and wrote, before its commit. */
  private record Prepared(
      List<DataFile> files,
      List<WrittenObject> fileObjects,
      List<WrittenObject> errorObjects,
      Map<String, Integer> writtenByTopic,
      Map<String, Integer> erroredByTopic,
      Map<String, Integer> tombstonesByTopic,
      int alreadyCommitted,
      int fresh,
      Map<String, Long> nextOffsets) {}

  private TableCommit commit(TableBatch tb, Map<String, Tally> tallies, Deadline deadline)
      throws UploadException {
    long started = clock.millis();
    Table table;
    try {
      table = table(tb.table);
    } catch (RuntimeException e) {
      throw catalogError(tb.table, e, 1);
    }
    int attempt = 1; // commit attempts: 1 + conflicts lost
    for (int round = 1; ; round++) {
      Prepared p;
      Snapshot readFrom;
      Map<String, Long> committed;
      Transaction transaction;
      if (round > 2 * MAX_ATTEMPTS) {
        throw catalogError(
            tb.table,
            new IllegalStateException("the schema kept changing under this batch"),
            attempt);
      }
      try {
        // The one table load of an attempt: a new transaction refreshes the table (Iceberg's
        // Transactions.newTransaction), so the offsets are read from the very state the commit
        // starts from. A refresh of our own before it was a second catalog load per batch.
        transaction = table.newTransaction();
        readFrom = table.currentSnapshot();
        committed = CommittedOffsets.read(table);
        p = prepare(table, tb, committed, deadline);
        if (p == null) {
          continue; // we evolved the schema: prepare again on the new one
        }
      } catch (CommitFailedException | CommitStateUnknownException e) {
        // A schema update lost a race, or the catalog could not say whether it landed: the next
        // round refreshes and evolves again only if the columns are still missing.
        backoff(attempt++, deadline, tb.table, e);
        continue;
      } catch (UploadException e) {
        throw e;
      } catch (RuntimeException e) {
        throw catalogError(tb.table, e, attempt);
      }
      List<String> topics = tb.records.stream().map(KafkaRecord::topic).distinct().toList();
      if (p.fresh() == 0) {
        // Everything here was committed by an earlier delivery: nothing to append.
        return new TableCommit(
            tb.table, topics, -1, 0, p.alreadyCommitted(), 0, attempt, clock.millis() - started);
      }
      // An overwrite that only adds files is an append that can validate: it fails if another
      // commit added data since readFrom, whose offsets we have not seen.
      // One commit holds the data files and the offsets twice: in the snapshot summary (the
      // history CommittedOffsets reads) and in the table's properties, which outlive snapshots
      // that other engines expire (S3 Tables' own maintenance keeps only recent snapshots, and
      // its compactions carry no offsets). Only partitions this batch advanced are set, so a
      // property never goes back when the transaction is re-applied onto a newer snapshot.
      OverwriteFiles append =
          transaction
              .newOverwrite()
              .conflictDetectionFilter(Expressions.alwaysTrue())
              .validateNoConflictingData();
      if (readFrom != null) {
        append.validateFromSnapshot(readFrom.snapshotId());
      }
      p.files().forEach(append::addFile);
      append.set(CommittedOffsets.MARKER, CommittedOffsets.MARKER_VERSION);
      p.nextOffsets()
          .forEach((tp, offset) -> append.set(CommittedOffsets.PREFIX + tp, Long.toString(offset)));
      try {
        append.commit();
        UpdateProperties offsets = transaction.updateProperties();
        p.nextOffsets()
            .forEach(
                (tp, offset) -> {
                  if (!offset.equals(committed.get(tp))) {
                    offsets.set(CommittedOffsets.PREFIX + tp, Long.toString(offset));
                  }
                });
        offsets.commit();
        transaction.commitTransaction();
      } catch (CommitFailedException | ValidationException e) {
        DataFileWriter.deleteQuietly(table, p.files());
        backoff(attempt++, deadline, tb.table, e);
        continue;
      } catch (CommitStateUnknownException e) {
        // It may have landed: the next attempt re-reads the offsets and appends only what is
        // missing. The files stay, since the table may reference them.
        backoff(attempt++, deadline, tb.table, e);
        continue;
      } catch (RuntimeException e) {
        DataFileWriter.deleteQuietly(table, p.files());
        throw catalogError(tb.table, e, attempt);
      }
      long snapshotId = table.currentSnapshot().snapshotId();
      int rowsAppended = 0;
      for (String topic : tallies.keySet()) {
        Tally t = tallies.get(topic);
        t.written += p.writtenByTopic().getOrDefault(topic, 0);
        t.errored += p.erroredByTopic().getOrDefault(topic, 0);
        t.tombstones += p.tombstonesByTopic().getOrDefault(topic, 0);
        rowsAppended += p.writtenByTopic().getOrDefault(topic, 0);
      }
      for (WrittenObject o : p.fileObjects()) {
        tallies.get(topicOf(o, topics)).objects.add(o);
      }
      for (WrittenObject o : p.errorObjects()) {
        tallies.get(topicOf(o, topics)).objects.add(o);
      }
      return new TableCommit(
          tb.table,
          topics,
          snapshotId,
          rowsAppended,
          p.alreadyCommitted(),
          p.files().size(),
          attempt,
          clock.millis() - started);
    }
  }

  /** Data files and error objects are attributed to the table's first topic. */
  private static String topicOf(WrittenObject o, List<String> topics) {
    for (String t : topics) {
      if (o.key().contains("/" + t + "/")) {
        return t;
      }
    }
    return topics.get(0);
  }

  /**
   * Filters out what the table already holds, evolves the schema, writes the error object and the
   * data files. Returns null when a schema change was committed (the caller prepares again).
   */
  private Prepared prepare(
      Table table, TableBatch tb, Map<String, Long> committed, Deadline deadline)
      throws UploadException {
    int already = 0;
    Set<Offset> seen = new HashSet<>();
    Map<String, Long> next = new TreeMap<>(committed);
    List<RejectedRecord> rejected = new ArrayList<>();
    Map<String, Integer> tombstones = new HashMap<>();
    Map<String, Integer> written = new HashMap<>();
    Schema schema = table.schema();
    // Each row goes to its data file as soon as it is converted (PartitionWriters). A record that
    // needs a new or promoted column stops the pass: the schema is evolved for the whole batch,
    // these files are dropped, and the caller prepares again on the new schema.
    try (PartitionWriters files = new PartitionWriters(table, schema, codec(), clock)) {
      for (KafkaRecord r : tb.records) {
        String tp = r.topicPartition(); // built per call: once per record
        Long last = committed.get(tp);
        if ((last != null && r.offset() <= last) || !seen.add(new Offset(tp, r.offset()))) {
          already++;
          continue;
        }
        next.merge(tp, r.offset(), Math::max);
        TableRows.Parsed p = rows.parse(r);
        if (p.rejection() != null) {
          rejected.add(RejectedRecord.of(r, p.rejection()));
        } else if (p.tombstone() && !config.includeKafkaMetadata()) {
          tombstones.merge(r.topic(), 1, Integer::sum);
        } else {
          TableRows.Row row = rows.row(schema, p);
          if (row.needsEvolution()) {
            evolve(table, tb, committed);
            return null;
          } else if (row.rejection() != null) {
            rejected.add(RejectedRecord.of(r, row.rejection()));
          } else {
            files.write(row.record());
            written.merge(r.topic(), 1, Integer::sum);
          }
        }
      }
      for (RejectedRecord r : tb.undecoded) {
        if (r.partition() != null && r.offset() != null) {
          String tp = r.topic() + "-" + r.partition();
          Long last = committed.get(tp);
          if ((last != null && r.offset() <= last) || !seen.add(new Offset(tp, r.offset()))) {
            already++;
            continue;
          }
          next.merge(tp, r.offset(), Math::max);
        }
        rejected.add(r);
      }
      Map<String, Integer> errored = new HashMap<>();
      rejected.forEach(r -> errored.merge(r.topic(), 1, Integer::sum));
      int fresh =
          written.values().stream().mapToInt(Integer::intValue).sum()
              + rejected.size()
              + tombstones.values().stream().mapToInt(Integer::intValue).sum();

      // Error rows go out before the commit: once the offsets are committed a redelivery skips
      // them, so they must already be stored. A retried attempt renders the same key.
      List<WrittenObject> errorObjects = writeErrorObjects(rejected, deadline);
      List<WrittenObject> fileObjects = new ArrayList<>();
      List<DataFile> dataFiles = files.finish(fileObjects);
      return new Prepared(
          dataFiles, fileObjects, errorObjects, written, errored, tombstones, already, fresh, next);
    }
  }

  /**
   * Adds the columns and promotions that this batch's values need, as one schema update: the
   * batch's values are read again here, since the one pass above keeps none of them.
   */
  private void evolve(Table table, TableBatch tb, Map<String, Long> committed) {
    Set<Offset> seen = new HashSet<>();
    List<TableRows.Parsed> parsed = new ArrayList<>();
    for (KafkaRecord r : tb.records) {
      String tp = r.topicPartition();
      Long last = committed.get(tp);
      if ((last != null && r.offset() <= last) || !seen.add(new Offset(tp, r.offset()))) {
        continue;
      }
      TableRows.Parsed p = rows.parse(r);
      if (p.rejection() == null && p.value() != null) {
        parsed.add(p);
      }
    }
    TableRows.Evolution evolution = rows.evolution(table.schema(), parsed);
    if (evolution.isEmpty()) {
      throw new IllegalStateException(
          "a row asked for a schema change that the batch's values do not need; this is a bug");
    }
    UpdateSchema update = table.updateSchema();
    // Top-level by name, never as a path: a field named "device.id" is one column.
    evolution.added().forEach((name, type) -> update.addColumn(null, name, type));
    evolution.promoted().forEach((name, type) -> update.updateColumn(name, type.asPrimitiveType()));
    update.commit();
  }

  private List<WrittenObject> writeErrorObjects(List<RejectedRecord> rejected, Deadline deadline)
      throws UploadException {
    Map<String, List<RejectedRecord>> byTopic = new LinkedHashMap<>();
    rejected.forEach(r -> byTopic.computeIfAbsent(r.topic(), t -> new ArrayList<>()).add(r));
    List<WrittenObject> written = new ArrayList<>();
    for (var e : byTopic.entrySet()) {
      long ts = e.getValue().get(0).timestamp();
      var folder =
          Instant.ofEpochMilli(Math.max(0, ts))
              .atZone(config.timeZone())
              .truncatedTo(ChronoUnit.HOURS);
      ObjectGroup group = new ObjectGroup(e.getKey(), folder, List.of(), e.getValue());
      String key = config.keyTemplate().errorKey(group, group.jobId("iceberg"));
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      try {
        errorEncoder.encode(e.getValue(), body);
      } catch (IOException io) {
        throw new UncheckedIOException(io);
      }
      byte[] bytes = body.toByteArray();
      var result = errorStore.put(key, bytes, "application/x-ndjson", deadline);
      written.add(
          new WrittenObject(
              key,
              WrittenObject.Kind.ERROR,
              e.getValue().size(),
              bytes.length,
              bytes.length,
              result.attempts(),
              result.millis()));
    }
    return written;
  }

  private String codec() {
    return switch (config.compression()) {
      case NONE -> "uncompressed";
      case GZIP -> "gzip";
      case SNAPPY -> "snappy";
      case ZSTD -> "zstd";
    };
  }

  private Table table(String name) {
    Table cached = tables.get(name);
    if (cached != null) {
      return cached; // each attempt's transaction refreshes it (commit)
    }
    TableIdentifier id = TableIdentifier.of(Namespace.of(settings.database()), name);
    Table table;
    try {
      table = catalog().loadTable(id);
    } catch (NoSuchTableException missing) {
      table = create(id);
    }
    if (!"0".equals(table.properties().get(TableProperties.COMMIT_NUM_RETRIES))) {
      // See the class comment: our own retry re-reads the offsets; Iceberg's would not.
      table.updateProperties().set(TableProperties.COMMIT_NUM_RETRIES, "0").commit();
    }
    tables.put(name, table);
    return table;
  }

  private Table create(TableIdentifier id) {
    Schema schema = rows.initialSchema();
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, "2");
    props.put(TableProperties.PARQUET_COMPRESSION, codec());
    props.put(TableProperties.COMMIT_NUM_RETRIES, "0");
    try {
      return catalog().createTable(id, schema, TableRows.spec(schema), props);
    } catch (NoSuchNamespaceException e) {
      if (catalog() instanceof SupportsNamespaces ns) {
        try {
          ns.createNamespace(id.namespace());
        } catch (AlreadyExistsException raced) {
          // another invocation created it
        }
        return create(id);
      }
      throw e;
    } catch (AlreadyExistsException raced) {
      return catalog().loadTable(id);
    }
  }

  private void backoff(int attempt, Deadline deadline, String table, RuntimeException cause)
      throws UploadException {
    long pause =
        ThreadLocalRandom.current().nextLong(20, Math.min(2_000, 50L << Math.min(attempt, 6)));
    if (attempt >= MAX_ATTEMPTS || deadline.remainingMillis() - pause < DEADLINE_MARGIN_MS) {
      throw new UploadException(
          ErrorType.COMMIT_CONFLICT,
          "the commit to Iceberg table '"
              + settings.database()
              + "."
              + table
              + "' lost to other writers "
              + attempt
              + " times until the deadline; the batch will be redelivered and skip what landed."
              + " Fewer concurrent commits per table help: a longer batching window, or fewer"
              + " pollers for this table",
          attempt,
          cause);
    }
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private UploadException catalogError(String table, RuntimeException e, int attempt) {
    return new UploadException(
        ErrorType.CATALOG,
        "Iceberg table '"
            + settings.database()
            + "."
            + table
            + "' in the "
            + settings.catalog().configName()
            + " catalog: "
            + e.getClass().getSimpleName()
            + ": "
            + e.getMessage()
            + ". Check ICEBERG_CATALOG/ICEBERG_DATABASE/ICEBERG_REST_URI and that the function's"
            + " role may read and commit the table and write its warehouse location",
        attempt,
        e);
  }
}
