package io.parityfs.hadoop;

import io.parityfs.client.PfsInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.CompositeCrcFileChecksum;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.util.DataChecksum;

/**
 * {@code getFileChecksum}: the CRC32C of the file's bytes as a {@link CompositeCrcFileChecksum}
 * ("COMPOSITE-CRC32C"). HDFS with {@code dfs.checksum.combine.mode=COMPOSITE_CRC} composes its
 * per-chunk CRC32Cs into exactly this value (the CRC of the concatenation), and so does any
 * store that reports a whole-object CRC32C (GCS), so {@code distcp} can compare files across
 * them whatever their block or chunk sizes. Computed by reading the file (the storage nodes keep
 * CRCs per cell of their arrays, not per file): costs one full read.
 */
final class CompositeCrc {
  /** What HDFS reports as bytes per CRC by default; it takes no part in equality. */
  static final int BYTES_PER_CRC = 512;

  private CompositeCrc() {}

  /** The checksum of the first {@code length} bytes (all of them if the file is shorter). */
  static FileChecksum of(PfsInputStream in, long length) throws IOException {
    CRC32C crc = new CRC32C();
    long left = Math.min(length, in.length());
    byte[] buf = new byte[1 << 20];
    while (left > 0) {
      int n = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (n < 0) {
        throw new EOFException("file ended " + left + " bytes before its length");
      }
      crc.update(buf, 0, n);
      left -= n;
    }
    return new CompositeCrcFileChecksum((int) crc.getValue(), DataChecksum.Type.CRC32C,
        BYTES_PER_CRC);
  }
}
