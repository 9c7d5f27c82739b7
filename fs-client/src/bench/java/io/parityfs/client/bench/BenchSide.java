package io.parityfs.client.bench;

import java.io.Closeable;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** One file system under test, reached through Hadoop's {@link FileSystem} API. */
interface BenchSide extends Closeable {
  /** Short name, the prefix of its metrics: {@code parityfs}, {@code local}, {@code hdfs}. */
  String name();

  /** What it is and how it is set up, for the JSON. */
  String describe();

  FileSystem fs();

  /** The folder the workloads write under. */
  Path root();

  /**
   * Whether a writer calls {@code hsync()} before {@code close()} to make the file durable
   * (the baselines); ParityFS's close already commits only stored, fsynced chunks.
   */
  boolean hsyncBeforeClose();

  /** Bytes this side puts on the disk per byte of file data (RAID-6 4+2: 1.5). */
  double diskBytesPerDataByte();
}
