package io.parityfs.integration;

import io.parityfs.hadoop.contract.PfsContract;
import io.parityfs.meta.Layout;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Hadoop's FileSystem contract ({@link PfsContract}: the flags of {@code contract/pfs.xml})
 * against a cluster of child processes instead of the in-process one: three storage nodes, each
 * its own JVM, and a ZooKeeper server, as an operator runs them. The cluster is started on first
 * use (in {@code target/contract-cluster}), shared by every {@code ChildClusterContract*Test} of
 * the JVM and stopped at its exit.
 *
 * <p>The root layout stripes 64 KiB chunks over all three nodes, so that a contract file of a
 * few hundred KiB already reads and writes through every node.
 */
public class ChildClusterContract extends PfsContract {
  static final String CLUSTER = "child";
  static final Layout ROOT_LAYOUT = new Layout(64 << 10, 3, List.of(), "raid6:4+2");
  private static TestCluster cluster;

  public ChildClusterContract(Configuration conf) {
    super(conf);
  }

  @Override
  protected URI connect(Configuration conf) throws IOException {
    cluster().local().hadoopProperties(CLUSTER).forEach(conf::set);
    conf.set("fs.pfs.zookeeper.session-timeout", "10s");
    conf.set("fs.AbstractFileSystem.pfs.impl", "io.parityfs.hadoop.Pfs");
    return URI.create("pfs://" + CLUSTER + "/");
  }

  private static synchronized TestCluster cluster() throws IOException {
    if (cluster == null) {
      // under target/, so that a failed run's cluster and logs stay for reading until the next
      Path dir = Path.of("target", "contract-cluster").toAbsolutePath();
      TestDirs.deleteTree(dir);
      TestCluster c = TestCluster.startSecure(dir, ChildClusterContract.class, 3);
      try {
        c.root().namespace().setLayout("/", ROOT_LAYOUT);
      } catch (IOException | RuntimeException e) {
        c.close();
        throw e;
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          c.close();
        } catch (IOException e) {
          // exiting anyway
        }
      }, "contract-cluster-stop"));
      cluster = c;
    }
    return cluster;
  }

}
