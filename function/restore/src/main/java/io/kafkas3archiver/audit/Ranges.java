package io.kafkas3archiver.audit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A set of offsets as disjoint, non-adjacent inclusive ranges, kept merged. */
final class Ranges {
  /** One inclusive range of offsets. */
  record Range(long from, long to) {
    long size() {
      return to - from + 1;
    }

    @Override
    public String toString() {
      return from == to ? Long.toString(from) : from + ".." + to;
    }
  }

  private final TreeMap<Long, Long> runs = new TreeMap<>();

  static Ranges of(long from, long to) {
    Ranges r = new Ranges();
    r.add(from, to);
    return r;
  }

  void add(long from, long to) {
    if (from > to) {
      return;
    }
    Map.Entry<Long, Long> before = runs.floorEntry(from);
    if (before != null && before.getValue() >= from - 1) {
      from = before.getKey();
      to = Math.max(to, before.getValue());
      runs.remove(before.getKey());
    }
    Map.Entry<Long, Long> next = runs.ceilingEntry(from);
    while (next != null && next.getKey() <= to + 1) {
      to = Math.max(to, next.getValue());
      runs.remove(next.getKey());
      next = runs.ceilingEntry(from);
    }
    runs.put(from, to);
  }

  void addAll(Ranges other) {
    other.runs.forEach(this::add);
  }

  void remove(long from, long to) {
    if (from > to) {
      return;
    }
    List<Range> touched = new ArrayList<>();
    Map.Entry<Long, Long> e = runs.floorEntry(from);
    if (e == null || e.getValue() < from) {
      e = runs.higherEntry(from);
    }
    while (e != null && e.getKey() <= to) {
      touched.add(new Range(e.getKey(), e.getValue()));
      e = runs.higherEntry(e.getKey());
    }
    for (Range r : touched) {
      runs.remove(r.from());
      if (r.from() < from) {
        runs.put(r.from(), from - 1);
      }
      if (r.to() > to) {
        runs.put(to + 1, r.to());
      }
    }
  }

  void removeAll(Ranges other) {
    other.runs.forEach(this::remove);
  }

  Ranges intersect(Ranges other) {
    Ranges out = copy();
    Ranges complement = Ranges.of(Long.MIN_VALUE, Long.MAX_VALUE);
    complement.removeAll(other);
    out.removeAll(complement);
    return out;
  }

  /** The part of this set inside {@code [from, to]}. */
  Ranges clip(long from, long to) {
    Ranges out = copy();
    if (from > Long.MIN_VALUE) {
      out.remove(Long.MIN_VALUE, from - 1);
    }
    if (to < Long.MAX_VALUE) {
      out.remove(to + 1, Long.MAX_VALUE);
    }
    return out;
  }

  boolean containsAll(Ranges other) {
    Ranges rest = other.copy();
    rest.removeAll(this);
    return rest.isEmpty();
  }

  boolean contains(long offset) {
    Map.Entry<Long, Long> e = runs.floorEntry(offset);
    return e != null && e.getValue() >= offset;
  }

  Ranges copy() {
    Ranges r = new Ranges();
    r.runs.putAll(runs);
    return r;
  }

  boolean isEmpty() {
    return runs.isEmpty();
  }

  long size() {
    long n = 0;
    for (var e : runs.entrySet()) {
      n += e.getValue() - e.getKey() + 1;
    }
    return n;
  }

  long first() {
    return runs.firstKey();
  }

  long last() {
    return runs.lastEntry().getValue();
  }

  List<Range> list() {
    List<Range> out = new ArrayList<>(runs.size());
    runs.forEach((f, t) -> out.add(new Range(f, t)));
    return out;
  }

  @Override
  public String toString() {
    return list().toString();
  }
}
