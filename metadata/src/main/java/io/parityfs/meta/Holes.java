package io.parityfs.meta;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A sparse file's <em>holes</em>: the groups inside its length that were never stored, which
 * read as zeros and take no space (docs/metadata.md, "Sparse files"). A group is what {@link
 * ChunkMap#group} names: for {@code ec:K+M} data chunks gK..gK+K−1 and their parity, otherwise
 * one data chunk (and its copies). A hole group has no member on any target; every group of the
 * file outside the holes is stored whole, so a member that a target lacks outside them is lost
 * (DATA_LOST), never taken for zeros: which groups exist is recorded, not guessed.
 *
 * <p>The writer owns the record while it holds the lease: a truncate up or a write past the end
 * adds the groups wholly past the old end, a write into a hole stores its group (zeros but for
 * the write) and takes it out; each commit writes the whole record with the length, in the same
 * ZooKeeper write. Ranges are inclusive, sorted, disjoint and not adjacent.
 *
 * @param ranges sorted by {@code from}, merged
 */
public record Holes(List<Range> ranges) {
  /** The most ranges a record holds; an extension that would pass it stores its zeros. */
  public static final int MAX_RANGES = 128;

  /** A dense file. */
  public static final Holes NONE = new Holes(List.of());

  /** Groups {@code from..to} (inclusive), never stored. */
  public record Range(long from, long to) {
    public Range {
      if (from < 0 || to < from) {
        throw new IllegalArgumentException("hole " + from + ".." + to
            + ": from must be >= 0 and <= to");
      }
    }

    /** How many groups the range covers. */
    public long groups() {
      return to - from + 1;
    }
  }

  public Holes {
    ranges = normalise(ranges == null ? List.of() : ranges);
  }

  public boolean isEmpty() {
    return ranges.isEmpty();
  }

  /** Whether group {@code group} is a hole. */
  public boolean contains(long group) {
    int lo = 0;
    int hi = ranges.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Range r = ranges.get(mid);
      if (group < r.from()) {
        hi = mid - 1;
      } else if (group > r.to()) {
        lo = mid + 1;
      } else {
        return true;
      }
    }
    return false;
  }

  /** How many groups are holes. */
  public long groups() {
    long n = 0;
    for (Range r : ranges) {
      n += r.groups();
    }
    return n;
  }

  /** This record with groups {@code from..to} added (nothing when {@code to < from}). */
  public Holes with(long from, long to) {
    if (to < from) {
      return this;
    }
    List<Range> all = new ArrayList<>(ranges);
    all.add(new Range(from, to));
    return new Holes(all);
  }

  /** This record without group {@code group} (stored now). */
  public Holes without(long group) {
    List<Range> out = new ArrayList<>();
    for (Range r : ranges) {
      if (group < r.from() || group > r.to()) {
        out.add(r);
        continue;
      }
      if (r.from() < group) {
        out.add(new Range(r.from(), group - 1));
      }
      if (r.to() > group) {
        out.add(new Range(group + 1, r.to()));
      }
    }
    return new Holes(out);
  }

  /** This record without the groups at or past {@code groups} (a file cut there). */
  public Holes below(long groups) {
    List<Range> out = new ArrayList<>();
    for (Range r : ranges) {
      if (r.from() < groups) {
        out.add(new Range(r.from(), Math.min(r.to(), groups - 1)));
      }
    }
    return new Holes(out);
  }

  @Override
  public String toString() {
    List<String> out = new ArrayList<>();
    for (Range r : ranges) {
      out.add(r.from() == r.to() ? r.from() + "" : r.from() + ".." + r.to());
    }
    return String.join(", ", out);
  }

  private static List<Range> normalise(List<Range> in) {
    List<Range> sorted = new ArrayList<>(in);
    sorted.sort(Comparator.comparingLong(Range::from));
    List<Range> out = new ArrayList<>();
    for (Range r : sorted) {
      Range last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && r.from() <= last.to() + 1) {
        out.set(out.size() - 1, new Range(last.from(), Math.max(last.to(), r.to())));
      } else {
        out.add(r);
      }
    }
    return List.copyOf(out);
  }
}
