package io.parityfs.client.bench;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.Layout;
import io.parityfs.testing.MiniCluster;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * ParityFS in this JVM: an embedded ZooKeeper and three storage nodes, each one RAID-6 4+2
 * target over six folders of the disk under test (CPU codec), reached through
 * {@code PfsFileSystem} ({@code pfs://bench/}); files striped over all three targets.
 */
final class ParityFsSide implements BenchSide {
  private final MiniCluster cluster;
  private final FileSystem fs;
  private final Layout layout;

  ParityFsSide(java.nio.file.Path dir, int chunkBytes) throws Exception {
    java.nio.file.Files.createDirectories(dir);
    layout = new Layout(chunkBytes, 3, List.of(), "raid6:4+2");
    cluster = MiniCluster.start(dir, 3, "raid6:4+2", 6);
    try (ParityClient root = cluster.client(Caller.of("root"))) {
      root.namespace().setLayout("/", layout);
    }
    Configuration conf = new Configuration();
    conf.set("fs.pfs.cluster.bench.zookeeper", cluster.connectString());
    conf.set("fs.pfs.zookeeper.session-timeout", "10s");
    fs = FileSystem.newInstance(URI.create("pfs://bench/"), conf);
  }

  @Override
  public String name() {
    return "parityfs";
  }

  @Override
  public String describe() {
    return "ParityFS in this JVM: embedded ZooKeeper, 3 storage nodes, each one RAID-6 4+2 "
        + "target over 6 folders of the same disk (64 KiB cells, CPU codec), files in "
        + (layout.chunkSize() >> 20) + " MiB chunks striped over the 3 targets; via "
        + "PfsFileSystem (pfs://), close durable (every chunk fsynced on its node's drives)";
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
    return false;
  }

  @Override
  public double diskBytesPerDataByte() {
    return 1.5;
  }

  @Override
  public void close() throws IOException {
    fs.close();
    cluster.close();
  }
}
