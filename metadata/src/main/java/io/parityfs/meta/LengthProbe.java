package io.parityfs.meta;

import java.io.IOException;

/**
 * What lease recovery asks the storage side: how many bytes of a file its targets hold. The
 * client library answers it by listing the file's chunks on its targets (chunk {@code i} of
 * {@code chunkSize} on {@code targets[i % stripeCount]}): the stored prefix (see {@code
 * io.parityfs.meta.chunks.ChunkLengthProbe}).
 * The metadata layer knows no storage node, so it takes the answer from whoever recovers.
 */
@FunctionalInterface
public interface LengthProbe {
  /** The bytes the storage targets hold for {@code file}; IOException when they can't say. */
  long length(FileStatus file) throws IOException;

  /**
   * Fences {@code file} at {@code file.generation()} on every one of its targets (from then on
   * they refuse older writers' writes and deletes), deletes its chunks at or past {@code end}
   * (rounded up to a chunk boundary; for {@code ec}, those of the group that holds the end
   * stay: {@link Fenced#cutKept}) with that generation, and returns the stored prefix as it
   * is after that ({@link #length}), which no older writer can change any more. What lease
   * recovery (with the prefix's end) and append (with the file's length) do before a new
   * writer writes. The default, for probes without targets (tests), fences nothing and answers
   * {@code end}.
   */
  default long fence(FileStatus file, long end) throws IOException {
    return end;
  }

  /**
   * What {@link #fence} answers, and the members it could not reach.
   *
   * @param length the stored prefix after the fence
   * @param unreached the file's members on targets that could not answer, for the repair
   *     record (empty unless the file has protection across nodes, whose probe reads around a
   *     target that is down instead of failing)
   * @param cutKept data chunks at or past the end that the fence left in place because they
   *     belong to the {@code ec} group that holds the end (its <em>cut group</em>): that
   *     group's last round may need them to decode the bytes before the end, so they stay until
   *     a round stores the group again cut at the end (a new writer does so before it writes;
   *     docs/across-nodes.md §3)
   */
  record Fenced(long length, Repairs unreached, int cutKept) {
    public Fenced(long length, Repairs unreached) {
      this(length, unreached, 0);
    }
  }

  /**
   * {@link #fence}, with the members on targets that could not be reached: lease recovery
   * commits them in the file's repair record, so it can close a file with protection across
   * nodes while one of its nodes is down. The default reaches every target or fails.
   */
  default Fenced fenceAll(FileStatus file, long end) throws IOException {
    return new Fenced(fence(file, end), Repairs.NONE);
  }
}
