package io.parityfs.meta;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A file's <em>repair record</em> (docs/across-nodes.md §3 and §5): the members of its groups
 * that a write could not store, because their target was down, while the group still had
 * enough members to be read. Such a member is <em>stale</em>: its target may hold an older
 * version of it, or none. Readers never use a stale member (they read another copy, or decode
 * from the group's other members), and catch-up or re-protection rebuilds it and takes it out
 * of the record.
 *
 * <p>A group is what one member of each target belongs to: an ec:K+M chunk group (its number,
 * chunk / K), or for {@code mirror:N} a data chunk and its copies (the chunk's index). The
 * record is a set of ranges: groups {@code from..to} (inclusive) whose member on {@code target}
 * is stale. Ranges of one target are kept sorted, disjoint and not adjacent, so a writer that
 * went on through a node's whole absence adds one range per target. It is committed with the
 * file's length, in the same ZooKeeper write, so no reader sees the length without the record.
 *
 * @param ranges sorted by target then {@code from}, merged
 */
public record Repairs(List<Range> ranges) {
  /** The most ranges a record holds (its JSON stays well inside an inode's size bound). */
  public static final int MAX_RANGES = 256;

  /** No stale member. */
  public static final Repairs NONE = new Repairs(List.of());

  /** Groups {@code from..to} (inclusive) whose member on {@code target} is stale. */
  public record Range(String target, long from, long to) {
    public Range {
      if (target == null || target.isEmpty()) {
        throw new IllegalArgumentException("a repair range needs a target");
      }
      if (from < 0 || to < from) {
        throw new IllegalArgumentException("repair range " + from + ".." + to + " on " + target
            + ": from must be >= 0 and <= to");
      }
    }

    boolean contains(String t, long group) {
      return target.equals(t) && from <= group && group <= to;
    }

    /** How many groups the range covers. */
    public long groups() {
      return to - from + 1;
    }
  }

  public Repairs {
    ranges = normalise(ranges == null ? List.of() : ranges);
  }

  /** One stale member: group {@code group}'s on {@code target}. */
  public static Repairs of(String target, long group) {
    return new Repairs(List.of(new Range(target, group, group)));
  }

  public boolean isEmpty() {
    return ranges.isEmpty();
  }

  /** Whether group {@code group}'s member on {@code target} is stale. */
  public boolean stale(String target, long group) {
    for (Range r : ranges) {
      if (r.contains(target, group)) {
        return true;
      }
    }
    return false;
  }

  /** The targets some stale member is on, sorted. */
  public Set<String> targets() {
    Set<String> out = new TreeSet<>();
    for (Range r : ranges) {
      out.add(r.target());
    }
    return out;
  }

  /** How many stale members the record names. */
  public long members() {
    long n = 0;
    for (Range r : ranges) {
      n += r.groups();
    }
    return n;
  }

  /** This record and {@code more}'s ranges together. */
  public Repairs with(Repairs more) {
    if (more.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return more;
    }
    List<Range> all = new ArrayList<>(ranges);
    all.addAll(more.ranges);
    return new Repairs(all);
  }

  /** This record without groups {@code from..to}' members on {@code target} (repaired). */
  public Repairs without(String target, long from, long to) {
    List<Range> out = new ArrayList<>();
    for (Range r : ranges) {
      if (!r.target().equals(target) || r.to() < from || r.from() > to) {
        out.add(r);
        continue;
      }
      if (r.from() < from) {
        out.add(new Range(target, r.from(), from - 1));
      }
      if (r.to() > to) {
        out.add(new Range(target, to + 1, r.to()));
      }
    }
    return new Repairs(out);
  }

  /** This record without the ranges of groups at or past {@code groups} (a truncate's). */
  public Repairs below(long groups) {
    List<Range> out = new ArrayList<>();
    for (Range r : ranges) {
      if (r.from() < groups) {
        out.add(new Range(r.target(), r.from(), Math.min(r.to(), groups - 1)));
      }
    }
    return new Repairs(out);
  }

  @Override
  public String toString() {
    List<String> out = new ArrayList<>();
    for (Range r : ranges) {
      out.add(r.target() + ":" + (r.from() == r.to() ? r.from() + "" : r.from() + ".." + r.to()));
    }
    return String.join(", ", out);
  }

  private static List<Range> normalise(List<Range> in) {
    List<Range> sorted = new ArrayList<>(in);
    sorted.sort(Comparator.comparing(Range::target).thenComparingLong(Range::from));
    List<Range> out = new ArrayList<>();
    for (Range r : sorted) {
      Range last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last.target().equals(r.target()) && r.from() <= last.to() + 1) {
        out.set(out.size() - 1, new Range(r.target(), last.from(), Math.max(last.to(), r.to())));
      } else {
        out.add(r);
      }
    }
    return List.copyOf(out);
  }
}
