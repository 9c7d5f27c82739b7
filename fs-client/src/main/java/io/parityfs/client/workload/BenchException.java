package io.parityfs.client.workload;

import java.io.IOException;

/**
 * A workload stopped on one file: either its data came back different from what was written
 * ({@link #corrupt()}: no cause; {@link #offset()} is the first byte that differs), or an
 * operation on it failed ({@link #getCause()} is the client's exception, which says why).
 * Either way every worker was stopped and, unless the run keeps its files, the directory
 * removed.
 */
public final class BenchException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String phase;
  private final String path;
  private final long file;
  private final long offset;

  private BenchException(String phase, String path, long file, long offset, String message,
      IOException cause) {
    super(message, cause);
    this.phase = phase;
    this.path = path;
    this.file = file;
    this.offset = offset;
  }

  /** Data read back differs from what was written, first at {@code offset}. */
  static BenchException corrupt(String phase, String path, String fileName, long file,
      long offset, String detail) {
    return new BenchException(phase, path, file, offset, "CORRUPT: " + fileName + " " + file
        + ", offset " + offset + ": " + detail, null);
  }

  /** An operation on {@code path} failed. */
  static BenchException failed(String phase, String path, String fileName, long file,
      IOException cause) {
    return new BenchException(phase, path, file, -1, phase + " of " + fileName + " " + file
        + " failed: " + cause.getMessage(), cause);
  }

  /** Whether the data differed (rather than an operation failing). */
  public boolean corrupt() {
    return getCause() == null;
  }

  /** The phase it happened in: write, read, create, delete. */
  public String phase() {
    return phase;
  }

  /** The file's namespace path. */
  public String path() {
    return path;
  }

  /** The file's number: the rank of a checkpoint shard, the index of a small file. */
  public long file() {
    return file;
  }

  /** The first byte that differs ({@link #corrupt()}), else -1. */
  public long offset() {
    return offset;
  }

  @Override
  public synchronized IOException getCause() {
    return (IOException) super.getCause();
  }
}
