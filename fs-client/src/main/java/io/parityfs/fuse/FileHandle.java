package io.parityfs.fuse;

import io.parityfs.client.PfsInputStream;

/**
 * One open of a file (a FUSE file handle): the shared {@link OpenFile}, whether it writes, and
 * for a reader its own stream (opened at the first read that the file's writer does not serve).
 * The stream is guarded by this handle's monitor.
 */
final class FileHandle {
  final OpenFile file;
  final boolean write;
  final boolean append;
  PfsInputStream in;
  /** Where the last read through this handle ended (-1: none): equal offsets are sequential. */
  long lastEnd = -1;

  FileHandle(OpenFile file, boolean write, boolean append) {
    this.file = file;
    this.write = write;
    this.append = append;
  }
}
