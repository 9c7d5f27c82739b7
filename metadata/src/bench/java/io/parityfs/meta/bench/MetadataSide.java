package io.parityfs.meta.bench;

import java.io.Closeable;
import java.io.IOException;

/**
 * One side of the metadata benchmark: the same operations, by path, on ParityFS's namespace or
 * on an HDFS NameNode. Implementations are thread-safe; {@code client} picks which client (of a
 * side's pool, if it keeps one) a benchmark thread uses.
 */
interface MetadataSide extends Closeable {
  /** Short name for reports: {@code parityfs} or {@code hdfs}. */
  String name();

  /** What the JSON says about this side (server, durability, client). */
  String describe();

  void mkdirs(int client, String path) throws IOException;

  /** Creates an empty file and closes it (what a writer that writes nothing does). */
  void createFile(int client, String path) throws IOException;

  /** The file's status; fails if it does not exist. */
  void stat(int client, String path) throws IOException;

  void rename(int client, String src, String dst) throws IOException;

  /**
   * Fills the existing directory {@code dir} with {@code count} empty, closed files {@code
   * e0000000 ...}, the fastest way this side offers (setup, never timed).
   */
  void fill(String dir, int count) throws Exception;

  /**
   * Lists a whole directory with attributes, 1,000 entries per request.
   *
   * @param fresh start from a client with nothing cached (ParityFS: a new session and cache)
   * @return the entries seen
   */
  long listAll(String dir, boolean fresh) throws IOException;
}
