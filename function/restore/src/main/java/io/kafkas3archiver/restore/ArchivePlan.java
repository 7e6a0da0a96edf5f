package io.kafkas3archiver.restore;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The archive's objects with what each holds per partition (from one read of every object), and the
 * walk that hands out records in offset order per partition, each offset once.
 *
 * <p>The walk does not depend on how objects are named: per partition, objects are taken in order
 * of their lowest offset, each object's rows of that partition are sorted by offset, and an offset
 * at or below the last one handed out is dropped. So an object per batch (several partitions) or
 * per partition, and duplicates left by redeliveries, all come out the same. An object that holds
 * several partitions is read once when it is next in every one of them (the normal case), or again
 * per partition otherwise.
 */
final class ArchivePlan {

  /** One partition's share of an object, after the range filter. */
  record Span(long minOffset, long maxOffset, int records, long bytes) {
    Span plus(ArchivedRecord r) {
      return new Span(
          Math.min(minOffset, r.offset()),
          Math.max(maxOffset, r.offset()),
          records + 1,
          bytes + r.payloadBytes());
    }

    static Span of(ArchivedRecord r) {
      return new Span(r.offset(), r.offset(), 1, r.payloadBytes());
    }
  }

  /** An object and its spans; empty spans mean nothing in range. */
  record Entry(ArchiveObject object, int ordinal, Map<Integer, Span> spans, boolean metadata) {}

  /** Receives records in order; returns normally or throws to stop the walk. */
  interface Sink {
    void accept(ArchivedRecord record, Entry from) throws IOException, InterruptedException;

    /** After each object: a place to report progress or end a transaction. */
    default void objectDone(Entry entry) throws IOException, InterruptedException {}
  }

  /** Reads an object's rows again during the walk. */
  interface Loader {
    ObjectRows load(Entry entry) throws IOException;
  }

  private final List<Entry> entries;

  ArchivePlan(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  List<Entry> entries() {
    return entries;
  }

  /**
   * Hands every record in range to {@code sink}, per partition in offset order, skipping offsets at
   * or below {@code restoredUpTo} (the checkpoint) and duplicates. Returns the duplicates dropped.
   */
  long walk(
      Loader loader, Predicate<ArchivedRecord> inRange, Map<Integer, Long> restoredUpTo, Sink sink)
      throws IOException, InterruptedException {
    Map<Integer, Deque<Entry>> queues = new TreeMap<>();
    Map<Integer, List<Entry>> byPartition = new HashMap<>();
    for (Entry e : entries) {
      for (Map.Entry<Integer, Span> s : e.spans().entrySet()) {
        long done = restoredUpTo.getOrDefault(s.getKey(), Long.MIN_VALUE);
        if (s.getValue().maxOffset() > done) {
          byPartition.computeIfAbsent(s.getKey(), k -> new ArrayList<>()).add(e);
        }
      }
    }
    Map<Entry, Integer> pendingIn = new HashMap<>();
    byPartition.forEach(
        (p, list) -> {
          list.forEach(e -> pendingIn.merge(e, 1, Integer::sum));
          list.sort(
              Comparator.comparingLong((Entry e) -> e.spans().get(p).minOffset())
                  .thenComparingInt(Entry::ordinal));
          queues.put(p, new ArrayDeque<>(list));
        });
    Map<Integer, Long> last = new HashMap<>(restoredUpTo);
    long duplicates = 0;
    while (true) {
      Entry next = null;
      int only = Integer.MIN_VALUE;
      for (Deque<Entry> q : queues.values()) {
        Entry head = q.peekFirst();
        if (head != null && headOfAll(head, queues, pendingIn)) {
          next = head;
          break;
        }
      }
      if (next == null) {
        for (Map.Entry<Integer, Deque<Entry>> q : queues.entrySet()) {
          if (!q.getValue().isEmpty()) {
            next = q.getValue().peekFirst();
            only = q.getKey();
            break;
          }
        }
      }
      if (next == null) {
        return duplicates;
      }
      List<Integer> handled = new ArrayList<>();
      for (Map.Entry<Integer, Deque<Entry>> q : queues.entrySet()) {
        if ((only == Integer.MIN_VALUE || q.getKey() == only) && q.getValue().peekFirst() == next) {
          handled.add(q.getKey());
        }
      }
      // Objects whose offset ranges overlap in a partition (a batch's data and error objects, a
      // redelivery's duplicate) are merged by offset, so neither hides the other's records.
      Map<Entry, ObjectRows> loaded = new HashMap<>();
      List<Entry> finished = new ArrayList<>();
      for (int p : handled) {
        Deque<Entry> q = queues.get(p);
        List<Entry> cluster = new ArrayList<>();
        long max = Long.MIN_VALUE;
        while (!q.isEmpty()
            && (cluster.isEmpty() || q.peekFirst().spans().get(p).minOffset() <= max)) {
          Entry e = q.pollFirst();
          cluster.add(e);
          max = Math.max(max, e.spans().get(p).maxOffset());
          if (pendingIn.merge(e, -1, Integer::sum) == 0) {
            finished.add(e);
          }
        }
        List<ArchivedRecord> list = new ArrayList<>();
        for (Entry e : cluster) {
          ObjectRows rows = loaded.get(e);
          if (rows == null) {
            rows = loader.load(e);
            loaded.put(e, rows);
          }
          for (ArchivedRecord r : rows.records()) {
            if (r.partition() == p && inRange.test(r)) {
              list.add(r);
            }
          }
        }
        list.sort(Comparator.comparingLong(ArchivedRecord::offset));
        long lastOffset = last.getOrDefault(p, Long.MIN_VALUE);
        for (ArchivedRecord r : list) {
          if (r.offset() <= lastOffset) {
            duplicates++;
            continue;
          }
          sink.accept(r, next);
          lastOffset = r.offset();
        }
        last.put(p, lastOffset);
      }
      for (Entry e : finished) {
        sink.objectDone(e);
      }
    }
  }

  /** Whether {@code e} is next in every partition it still has records for. */
  private static boolean headOfAll(
      Entry e, Map<Integer, Deque<Entry>> queues, Map<Entry, Integer> pendingIn) {
    int heads = 0;
    for (Integer p : e.spans().keySet()) {
      Deque<Entry> q = queues.get(p);
      if (q != null && q.peekFirst() == e) {
        heads++;
      }
    }
    return heads == pendingIn.getOrDefault(e, 0);
  }
}
