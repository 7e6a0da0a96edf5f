package io.kafkas3archiver.audit;

import io.kafkas3archiver.chain.Claim;
import io.kafkas3archiver.restore.ArchiveObject;
import io.kafkas3archiver.restore.ArchiveReader;
import io.kafkas3archiver.restore.ArchivedRecord;
import io.kafkas3archiver.restore.ObjectRows;
import io.kafkas3archiver.upload.S3ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * The audit: reads every object's claim (LIST, then HEAD where the state does not hold it), builds
 * each partition's covered offsets, recorded gaps, unclaimed ranges and duplicates, asks the
 * cluster (when given) about the unclaimed ranges and the log's own offsets, and keeps the state
 * for the next run. Reads objects only where claims alone cannot tell: error objects (for their
 * offsets) and a zero-row pointer candidate (to tell it from a duplicate).
 */
public final class Auditor {
  private final AuditOptions options;
  private final S3Client s3;
  private final ArchiveScan.Requests requests = new ArchiveScan.Requests();

  public Auditor(AuditOptions options, S3Client s3) {
    this.options = options;
    this.s3 = s3;
  }

  public AuditReport run() {
    try (ClusterView cluster =
        options.bootstrapServers().isPresent()
            ? new ClusterView(options.topic(), options.kafkaProperties())
            : null) {
      return run(cluster);
    }
  }

  private AuditReport run(ClusterView cluster) {
    AuditReport report =
        new AuditReport(options.bucket(), options.dataPrefix(), options.topic(), cluster != null);
    report.requests = requests;
    AuditState state = options.stateless() || options.full() ? AuditState.empty() : loadState();
    report.incremental = state.loaded;
    report.fromTime = options.fromTime().map(Object::toString).orElse(null);
    report.toTime = options.toTime().map(Object::toString).orElse(null);
    ArchiveScan scan = new ArchiveScan(s3, options.bucket(), requests);
    List<ArchiveScan.Listed> listed = new ArrayList<>();
    listed.addAll(scan.list(options.dataPrefix(), ArchiveObject.Kind.DATA, report.skipped));
    listed.addAll(scan.list(options.errorPrefix(), ArchiveObject.Kind.ERROR, report.skipped));
    int partitionCount = cluster != null ? cluster.partitions() : options.partitionCount();
    AuditState next = AuditState.empty();
    next.noRecords.putAll(state.noRecords);
    Map<Integer, List<AuditedObject>> data = new TreeMap<>();
    Map<Integer, List<AuditedObject>> errors = new TreeMap<>();
    for (ArchiveScan.Listed l : listed) {
      long headsBefore = requests.head;
      Optional<Map<String, String>> metadata = scan.metadata(l, state);
      if (metadata.isEmpty()) {
        continue; // deleted between the listing and the HEAD
      }
      if (requests.head == headsBefore) {
        report.headsSaved++;
      }
      report.objects++;
      Optional<Claim> claim = ArchiveScan.claimOf(metadata.get());
      int partition = AuditedObject.UNKNOWN_PARTITION;
      AuditState.Known known = state.objects.get(l.key());
      if (known != null && known.etag().equals(l.etag())) {
        partition = known.partition();
      } else if (claim.isPresent()) {
        partition =
            AuditedObject.partitionOf(
                l.key(), options.topic(), claim.get().first(), partitionCount);
      }
      next.objects.put(l.key(), new AuditState.Known(l.etag(), metadata.get(), partition));
      AuditedObject o =
          new AuditedObject(
              l.key(), l.kind(), l.etag(), l.size(), claim, metadata.get(), partition);
      if (claim.isEmpty()) {
        if (!o.isError()) {
          report.unplaced.add(
              new AuditReport.BadObject(
                  l.key(),
                  "carries no claim (x-amz-meta-"
                      + Claim.OFFSETS
                      + "): it was overwritten, or not written by the archiver; the offsets it"
                      + " held show as a gap"));
        }
        // An error object without a claim holds records that had no partition or offset.
        continue;
      }
      if (partition == AuditedObject.UNKNOWN_PARTITION) {
        report.unplaced.add(
            new AuditReport.BadObject(
                l.key(),
                "its name holds no archiver id of topic "
                    + options.topic()
                    + " and offset "
                    + claim.get().first()
                    + " in partitions 0.."
                    + (partitionCount - 1)
                    + "; check --topic, or --partition-count when the topic has more partitions"));
        continue;
      }
      if (!options.inRange(partition)) {
        continue;
      }
      if (options.verifyChecksums()) {
        verify(o, report);
      }
      (o.isError() ? errors : data).computeIfAbsent(partition, p -> new ArrayList<>()).add(o);
    }
    Map<Integer, ClusterView.Log> logs = cluster == null ? Map.of() : cluster.logs(partitionCount);
    Map<Integer, Long> committed =
        cluster == null || options.group().isEmpty()
            ? Map.of()
            : cluster.committed(options.group().get());
    List<Integer> partitions = new ArrayList<>(data.keySet());
    errors.keySet().stream().filter(p -> !data.containsKey(p)).forEach(partitions::add);
    logs.keySet().stream()
        .filter(p -> !partitions.contains(p) && options.inRange(p))
        .forEach(partitions::add);
    partitions.sort(Comparator.naturalOrder());
    Map<Integer, OptionalLong> fromTimes =
        options.fromTime().map(t -> cluster.offsetsForTimes(partitionCount, t)).orElse(Map.of());
    // --to is exclusive (as for restore): the window ends before the first offset at --to.
    Map<Integer, OptionalLong> atTo =
        options.toTime().map(t -> cluster.offsetsForTimes(partitionCount, t)).orElse(Map.of());
    for (int p : partitions) {
      Window window = window(p, fromTimes, atTo, logs.get(p));
      if (options.timeRange()) {
        report.partition(p).window = new Ranges.Range(window.from(), window.to());
      }
      audit(
          report.partition(p),
          window,
          data.getOrDefault(p, List.of()),
          errors.getOrDefault(p, List.of()),
          cluster,
          logs.get(p),
          committed.get(p),
          next);
    }
    if (cluster != null) {
      report.probes = cluster.probes;
    }
    if (!options.stateless()) {
      saveState(next);
    }
    return report;
  }

  /** The offsets audited in one partition, inclusive; empty when {@code to < from}. */
  private record Window(long from, long to) {}

  /**
   * The partition's offsets to audit: the offset range, with each record time given mapped by the
   * cluster. A --from later than every record starts at the log's end (nothing to audit yet); the
   * window ends at the log's last offset at most.
   */
  private Window window(
      int partition,
      Map<Integer, OptionalLong> fromTimes,
      Map<Integer, OptionalLong> atTo,
      ClusterView.Log log) {
    if (!options.timeRange() || log == null) {
      return new Window(options.fromOffset(), options.toOffset());
    }
    long end = log.end();
    long from =
        options.fromTime().isEmpty()
            ? options.fromOffset()
            : fromTimes.getOrDefault(partition, OptionalLong.empty()).orElse(end);
    long to =
        options.toTime().isEmpty()
            ? options.toOffset()
            : atTo.getOrDefault(partition, OptionalLong.empty()).orElse(end) - 1;
    // What the range reaches today: the log's last offset at most (the report shows the window).
    return new Window(from, Math.min(to, end - 1));
  }

  private void audit(
      AuditReport.Partition report,
      Window window,
      List<AuditedObject> data,
      List<AuditedObject> errors,
      ClusterView cluster,
      ClusterView.Log log,
      Long committed,
      AuditState state) {
    long from = window.from();
    long to = window.to();
    report.log = log;
    report.committed = committed;
    // A claim's holder is its data object, or its error object when the range's first record with
    // output is an error row. An all-error range writes its error object alone (chain.ChainWriter),
    // which records 0 data rows (kafka-error-rows: errors+0); an error object that records data
    // rows has a data object beside it, and without one its range stays unclaimed (a gap).
    List<AuditedObject> sorted = new ArrayList<>(data);
    java.util.Set<String> dataRanges = new java.util.HashSet<>();
    for (AuditedObject o : data) {
      Claim c = o.claim().orElseThrow();
      dataRanges.add(c.first() + "-" + c.last());
    }
    for (AuditedObject e : errors) {
      Claim c = e.claim().orElseThrow();
      if (c.dataRows() == 0 && !dataRanges.contains(c.first() + "-" + c.last())) {
        sorted.add(e);
      }
    }
    sorted.sort(
        Comparator.comparingLong((AuditedObject o) -> o.claim().orElseThrow().first())
            .thenComparing(AuditedObject::key));
    Ranges covered = new Ranges();
    Ranges claimed = new Ranges();
    Ranges recorded = new Ranges();
    List<AuditedObject> seen = new ArrayList<>();
    Map<String, AuditedObject> errorByRange = new HashMap<>();
    for (AuditedObject e : errors) {
      Claim c = e.claim().orElseThrow();
      errorByRange.put(c.first() + "-" + c.last(), e);
    }
    for (AuditedObject o : sorted) {
      Claim c = o.claim().orElseThrow();
      Ranges held = o.held().clip(from, to);
      if (c.last() < from || c.first() > to) {
        continue;
      }
      report.objects++;
      claimed.add(Math.max(c.first(), from), Math.min(c.last(), to));
      if (c.errorRows() > 0 && !errorByRange.containsKey(c.first() + "-" + c.last())) {
        report.bad.add(
            new AuditReport.BadObject(
                o.key(),
                "claims "
                    + c.errorRows()
                    + " error rows, but no error object under "
                    + options.errorPrefix()
                    + " claims offsets "
                    + c.first()
                    + "-"
                    + c.last()));
      }
      Ranges overlap = covered.intersect(held);
      if (!overlap.isEmpty()) {
        if (pointerShaped(o, seen) && zeroRows(o)) {
          report.pointers++;
          continue;
        }
        for (Ranges.Range r : overlap.list()) {
          List<String> keys = new ArrayList<>();
          for (AuditedObject s : seen) {
            if (!s.held().intersect(Ranges.of(r.from(), r.to())).isEmpty()) {
              keys.add(s.key());
            }
          }
          keys.add(o.key());
          report.duplicates.add(new AuditReport.Duplicate(r, keys));
        }
      }
      covered.addAll(held);
      recorded.addAll(o.recordedGaps().clip(from, to));
      seen.add(o);
    }
    for (AuditedObject e : errors) {
      report.errorObjects++;
      for (ArchivedRecord r : read(e).records()) {
        if (r.partition() == report.partition && r.offset() >= from && r.offset() <= to) {
          report.errorOffsets.add(r.offset(), r.offset());
        }
      }
    }
    recorded.removeAll(covered);
    report.covered = covered;
    for (Ranges.Range r : recorded.list()) {
      report.gaps.add(new AuditReport.Gap(r, AuditReport.GapReason.RECORDED, -1));
    }
    // The span to account for: from the archive's (or the log's) start to its last claim.
    long lo;
    long hi;
    if (claimed.isEmpty()) {
      lo = log == null ? from : Math.max(from, log.start());
      hi = lo - 1;
    } else {
      lo = Math.max(from, log == null ? claimed.first() : Math.min(log.start(), claimed.first()));
      hi = claimed.last();
    }
    Ranges unclaimed = Ranges.of(lo, hi);
    unclaimed.removeAll(claimed);
    Ranges noRecords = state.noRecords(report.partition);
    for (Ranges.Range r : unclaimed.list()) {
      classify(report, r, cluster, log, noRecords, AuditReport.GapReason.MISSING);
    }
    long tailFirstRecord = -1;
    if (cluster != null && log != null) {
      // Past the last claim: markers only (explained), or records not archived yet (the lag).
      long tailFrom = Math.max(hi + 1, lo);
      long tailTo = Math.min(to, log.end() - 1);
      if (tailFrom <= tailTo) {
        OptionalLong first =
            noRecords.containsAll(Ranges.of(tailFrom, tailTo))
                ? OptionalLong.empty()
                : cluster.firstRecord(report.partition, tailFrom, tailTo);
        long markersTo = first.isPresent() ? first.getAsLong() - 1 : tailTo;
        if (markersTo >= tailFrom) {
          noRecords.add(tailFrom, markersTo);
          report.gaps.add(
              new AuditReport.Gap(
                  new Ranges.Range(tailFrom, markersTo),
                  AuditReport.GapReason.NO_RECORD_IN_LOG,
                  -1));
        }
        if (first.isPresent()) {
          tailFirstRecord = first.getAsLong();
          if (committed != null && committed > tailFirstRecord) {
            report.gaps.add(
                new AuditReport.Gap(
                    new Ranges.Range(tailFirstRecord, Math.min(to, committed - 1)),
                    AuditReport.GapReason.COMMITTED_NOT_ARCHIVED,
                    tailFirstRecord));
          }
        }
      }
    }
    report.gaps.sort(Comparator.comparingLong(g -> g.range().from()));
    Ranges accounted = covered.copy();
    for (AuditReport.Gap g : report.gaps) {
      if (g.reason().explained) {
        accounted.add(g.range().from(), g.range().to());
      }
    }
    report.archivedThrough = lo - 1;
    for (Ranges.Range r : accounted.list()) {
      if (r.from() <= lo && r.to() >= lo) {
        report.archivedThrough = r.to();
      }
    }
    if (log != null) {
      long lastInLog = Math.min(to, log.end() - 1);
      report.lag = tailFirstRecord < 0 ? 0 : Math.max(0, lastInLog - tailFirstRecord + 1);
    }
  }

  /** Compares the object's bytes with the CRC32C its claim recorded; a mismatch names the key. */
  private void verify(AuditedObject o, AuditReport report) {
    String recorded = o.metadata().get(S3ObjectStore.CHECKSUM_METADATA);
    if (recorded == null) {
      report.unverifiable++;
      return;
    }
    Optional<String> stored = new ArchiveScan(s3, options.bucket(), requests).storedCrc32c(o.key());
    if (stored.isEmpty()) {
      return; // gone since the listing: its offsets show as a gap
    }
    report.verified++;
    if (!stored.get().equals(recorded)) {
      report
          .partition(o.partition())
          .bad
          .add(
              new AuditReport.BadObject(
                  o.key(),
                  "its bytes are not the bytes the archiver wrote (CRC32C recorded "
                      + recorded
                      + ", stored "
                      + stored.get()
                      + ", "
                      + o.size()
                      + " bytes now): altered or truncated; restore it from a copy or"
                      + " re-archive its offsets"));
    }
  }

  /** Classifies an unclaimed range, splitting it at the log's start. */
  private void classify(
      AuditReport.Partition report,
      Ranges.Range r,
      ClusterView cluster,
      ClusterView.Log log,
      Ranges noRecords,
      AuditReport.GapReason ifRecords) {
    if (noRecords.containsAll(Ranges.of(r.from(), r.to()))) {
      report.gaps.add(new AuditReport.Gap(r, AuditReport.GapReason.NO_RECORD_IN_LOG, -1));
      return;
    }
    if (cluster == null || log == null) {
      report.gaps.add(new AuditReport.Gap(r, AuditReport.GapReason.UNCHECKED, -1));
      return;
    }
    long from = r.from();
    if (from < log.start()) {
      long end = Math.min(r.to(), log.start() - 1);
      report.gaps.add(
          new AuditReport.Gap(
              new Ranges.Range(from, end), AuditReport.GapReason.BEFORE_LOG_START, -1));
      from = end + 1;
    }
    if (from > r.to()) {
      return;
    }
    long to = Math.min(r.to(), log.end() - 1);
    if (from > to) {
      return;
    }
    OptionalLong first = cluster.firstRecord(report.partition, from, to);
    Ranges.Range checked = new Ranges.Range(from, to);
    if (first.isEmpty()) {
      noRecords.add(from, to);
      report.gaps.add(new AuditReport.Gap(checked, AuditReport.GapReason.NO_RECORD_IN_LOG, -1));
    } else {
      report.gaps.add(new AuditReport.Gap(checked, ifRecords, first.getAsLong()));
    }
  }

  /**
   * Whether {@code o} could be a pointer: no error rows, and an earlier object of the partition
   * with the same last offset that holds every offset {@code o} claims. A pointer is such a
   * zero-row object, left where a shorter redelivery's restart names its object.
   */
  private static boolean pointerShaped(AuditedObject o, List<AuditedObject> earlier) {
    Claim c = o.claim().orElseThrow();
    if (c.errorRows() > 0) {
      return false;
    }
    for (AuditedObject e : earlier) {
      Claim ec = e.claim().orElseThrow();
      if (ec.first() < c.first() && ec.last() == c.last() && e.held().containsAll(o.held())) {
        return true;
      }
    }
    return false;
  }

  private boolean zeroRows(AuditedObject o) {
    ObjectRows rows = read(o);
    return rows.records().isEmpty() && rows.undecodableRows() == 0;
  }

  private ObjectRows read(AuditedObject o) {
    ArchiveObject object = ArchiveObject.of(o.key(), o.size(), o.kind()).orElseThrow();
    requests.get++;
    try {
      return new ArchiveReader(s3, options.bucket(), options.topic()).read(object, 0);
    } catch (IOException e) {
      throw new AuditException("could not read " + o.key() + ": " + e.getMessage(), e);
    }
  }

  private AuditState loadState() {
    try {
      requests.get++;
      byte[] bytes =
          s3.getObjectAsBytes(b -> b.bucket(options.bucket()).key(options.stateKey()))
              .asByteArrayUnsafe();
      return AuditState.parse(bytes);
    } catch (NoSuchKeyException e) {
      return AuditState.empty();
    } catch (SdkException e) {
      throw new AuditException(
          "reading the audit state s3://"
              + options.bucket()
              + "/"
              + options.stateKey()
              + " failed ("
              + e.getMessage()
              + "); pass --no-state to audit without it",
          e);
    }
  }

  private void saveState(AuditState state) {
    try {
      requests.put++;
      s3.putObject(
          b -> b.bucket(options.bucket()).key(options.stateKey()).contentType("application/gzip"),
          RequestBody.fromBytes(state.serialize()));
    } catch (SdkException e) {
      throw new AuditException(
          "writing the audit state s3://"
              + options.bucket()
              + "/"
              + options.stateKey()
              + " failed ("
              + e.getMessage()
              + "); the audit needs s3:PutObject there, or pass --no-state",
          e);
    }
  }
}
