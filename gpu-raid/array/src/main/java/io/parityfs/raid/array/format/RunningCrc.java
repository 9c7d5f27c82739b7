package io.parityfs.raid.array.format;

import java.nio.ByteBuffer;

/**
 * The CRC32C of a sequence of bytes built piece by piece from each piece's own CRC ({@link
 * CellChecksums#combine}): a piece whose CRC is already known (a whole cell just checked against
 * its stored checksum) costs no pass over its bytes. What a read hands on with the bytes it
 * gives, so that a node sends the checksums it stored rather than ones taken again from memory.
 * Not thread-safe.
 */
public final class RunningCrc {
  private int crc;
  private long length;

  /** Appends a piece of {@code n} bytes whose CRC32C is {@code pieceCrc}. */
  public void add(int pieceCrc, long n) {
    crc = CellChecksums.combine(crc, pieceCrc, n);
    length += n;
  }

  /** Appends the remaining bytes of {@code piece} (not moved), checksumming them. */
  public void addBytes(ByteBuffer piece) {
    add(CellChecksums.crc32c(piece), piece.remaining());
  }

  /** The CRC32C of every byte appended so far (0 for none). */
  public int value() {
    return crc;
  }

  /** How many bytes were appended. */
  public long length() {
    return length;
  }
}
