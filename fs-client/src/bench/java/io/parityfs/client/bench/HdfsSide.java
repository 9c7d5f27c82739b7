package io.parityfs.client.bench;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.EditLogFileOutputStream;

/**
 * HDFS in this JVM: a MiniDFSCluster with one NameNode and one DataNode, replication 1, name
 * and data directories on the disk under test. Durable as production: the edit log is fsynced
 * (MiniDFSCluster skips that unless told not to), every finished block file is fsynced by the
 * DataNode ({@code dfs.datanode.synconclose}), and writers call {@code hsync} before close.
 */
final class HdfsSide implements BenchSide {
  private final MiniDFSCluster cluster;
  private final FileSystem fs;

  HdfsSide(java.nio.file.Path dir) throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.toAbsolutePath().toString());
    conf.setInt("dfs.replication", 1);
    conf.setBoolean("dfs.datanode.synconclose", true);
    cluster = new MiniDFSCluster.Builder(conf, dir.toFile()).numDataNodes(1)
        .skipFsyncForTesting(false).build();
    EditLogFileOutputStream.setShouldSkipFsyncForTesting(false);
    cluster.waitActive();
    fs = cluster.getFileSystem();
  }

  @Override
  public String name() {
    return "hdfs";
  }

  @Override
  public String describe() {
    return "HDFS 3.4.1 MiniDFSCluster in this JVM (1 NameNode, 1 DataNode, replication 1, "
        + "block size " + (fs.getDefaultBlockSize(new Path("/")) >> 20) + " MiB, edit-log fsync "
        + "on, dfs.datanode.synconclose=true), via DistributedFileSystem, hsync before close";
  }

  @Override
  public FileSystem fs() {
    return fs;
  }

  @Override
  public Path root() {
    return new Path("/bench");
  }

  @Override
  public boolean hsyncBeforeClose() {
    return true;
  }

  @Override
  public double diskBytesPerDataByte() {
    return 1.0; // plus a 4-byte CRC per 512 bytes in the block's .meta file
  }

  @Override
  public void close() throws IOException {
    fs.close();
    cluster.shutdown(true);
  }
}
