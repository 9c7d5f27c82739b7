package io.parityfs.meta;

import java.util.Arrays;

/**
 * The ids of every file in the namespace at one moment, as found by {@link LiveFileScanner},
 * with the id counter read after that moment: every id a client can have been handed is below
 * {@link #idLimit()}. Immutable.
 */
public final class LiveFiles {
  private final long[] ids;
  private final long idLimit;
  private final int passes;

  LiveFiles(long[] sortedIds, long idLimit, int passes) {
    this.ids = sortedIds;
    this.idLimit = idLimit;
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

  /** Verification passes the scan needed (1 when nothing changed while it ran). */
  public int passes() {
    return passes;
  }
}
