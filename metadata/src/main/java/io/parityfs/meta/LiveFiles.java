package io.parityfs.meta;

import java.util.Arrays;
import java.util.List;

/**
 * The ids of every file in the namespace at one moment, as found by {@link LiveFileScanner},
 * with the id counter read after that moment: every id a client can have been handed is below
 * {@link #idLimit()}. Immutable.
 */
public final class LiveFiles {
  private final long[] ids;
  private final long idLimit;
  private final List<long[]> skipped;
  private final int passes;

  LiveFiles(long[] sortedIds, long idLimit, List<long[]> skipped, int passes) {
    this.ids = sortedIds;
    this.idLimit = idLimit;
    this.skipped = List.copyOf(skipped);
    this.passes = passes;
  }

  /** Whether file {@code id} was in the namespace. */
  public boolean contains(long id) {
    return Arrays.binarySearch(ids, id) >= 0;
  }

  /** How many files. */
  public int size() {
    return ids.length;
  }

  /** The id counter after the scan: no file id at or above it has been handed out. */
  public long idLimit() {
    return idLimit;
  }

  /**
   * Whether this namespace never handed out {@code id}: at or above {@link #idLimit()}, or in a
   * range the id counter jumped over ({@code R/idskips}: ids that storage targets held when
   * the namespace was rolled back or formatted over them). Chunks of such an id are not this
   * namespace's to collect.
   */
  public boolean neverIssued(long id) {
    return id >= idLimit || IdSkips.contains(skipped, id);
  }

  /** Verification passes the scan needed (1 when nothing changed while it ran). */
  public int passes() {
    return passes;
  }
}
