package io.parityfs.meta.bench;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.EditLogFileOutputStream;

/**
 * Hadoop's NameNode in this JVM (MiniDFSCluster, no DataNode: the files are empty), name and
 * edit-log directories on disk, with the edit log fsynced as in production (MiniDFSCluster skips
 * it unless told). Every benchmark thread uses the one {@link FileSystem} (one DFSClient, one
 * multiplexed RPC connection), as a Hadoop application does.
 */
final class HdfsSide implements MetadataSide {
  private final MiniDFSCluster cluster;
  private final FileSystem fs;
  private final int handlers;

  HdfsSide(File dir) throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.getAbsolutePath());
    conf.setInt("dfs.replication", 1);
    conf.setInt("dfs.ls.limit", 1000); // entries per listing RPC (the default)
    handlers = conf.getInt("dfs.namenode.handler.count", 10);
    cluster = new MiniDFSCluster.Builder(conf, dir).numDataNodes(0).skipFsyncForTesting(false)
        .build();
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
    return "HDFS NameNode " + org.apache.hadoop.util.VersionInfo.getVersion()
        + " (MiniDFSCluster, edit-log fsync on, name dirs on disk, " + handlers
        + " RPC handlers, no DataNode) via one DistributedFileSystem";
  }

  @Override
  public void mkdirs(int client, String path) throws IOException {
    fs.mkdirs(new Path(path));
  }

  @Override
  public void createFile(int client, String path) throws IOException {
    // replication 1 given explicitly: with no DataNode MiniDFSCluster sets the default to 0
    fs.create(new Path(path), false, 4096, (short) 1, 128L << 20).close();
  }

  @Override
  public void stat(int client, String path) throws IOException {
    fs.getFileStatus(new Path(path));
  }

  @Override
  public void rename(int client, String src, String dst) throws IOException {
    if (!fs.rename(new Path(src), new Path(dst))) {
      throw new IOException("rename " + src + " -> " + dst + " returned false");
    }
  }

  /**
   * Creates and closes each file from 16 threads with the edit-log fsync off for the fill only
   * (HDFS has no batch create; fsync is back on before anything is timed).
   */
  @Override
  public void fill(String dir, int count) throws Exception {
    EditLogFileOutputStream.setShouldSkipFsyncForTesting(true);
    try {
      int threads = 16;
      java.util.List<Thread> workers = new java.util.ArrayList<>();
      java.util.concurrent.atomic.AtomicReference<Exception> failure =
          new java.util.concurrent.atomic.AtomicReference<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        Thread w = new Thread(() -> {
          try {
            for (int i = first; i < count; i += threads) {
              createFile(0, String.format("%s/e%07d", dir, i));
            }
          } catch (Exception e) {
            failure.compareAndSet(null, e);
          }
        });
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      if (failure.get() != null) {
        throw failure.get();
      }
    } finally {
      EditLogFileOutputStream.setShouldSkipFsyncForTesting(false);
    }
  }

  @Override
  public long listAll(String dir, boolean fresh) throws IOException {
    long n = 0;
    RemoteIterator<org.apache.hadoop.fs.FileStatus> it = fs.listStatusIterator(new Path(dir));
    while (it.hasNext()) {
      if (it.next() == null) {
        throw new FileNotFoundException(dir);
      }
      n++;
    }
    return n;
  }

  @Override
  public void close() throws IOException {
    fs.close();
    cluster.shutdown();
  }
}
