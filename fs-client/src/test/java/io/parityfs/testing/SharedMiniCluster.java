package io.parityfs.testing;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.Layout;
import io.parityfs.testkit.TestDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * One {@link MiniCluster} per test JVM, started on first use and stopped at exit, for the
 * Hadoop tests (the contract suites, the shell test) that would otherwise each pay a cluster's
 * start: two storage nodes, RAID-6 4+2 each, and a root layout of 256 KiB chunks striped over
 * both, so that files of a few hundred KiB already span chunks and targets. The Hadoop URI is
 * {@code pfs://mini/}.
 */
public final class SharedMiniCluster {
  public static final String CLUSTER = "mini";
  public static final Layout ROOT_LAYOUT = new Layout(256 << 10, 2, List.of(), "raid6:4+2");
  private static MiniCluster cluster;
  private static MiniCluster secure;

  private SharedMiniCluster() {}

  /** The cluster, started if this is the first call. */
  public static synchronized MiniCluster get() {
    if (cluster == null) {
      cluster = startShared(false);
    }
    return cluster;
  }

  /**
   * A second shared cluster, as {@link #get()} but with TLS on every node ({@link
   * MiniCluster#startWithTls}), the default of the local cluster users run: what every mount
   * test that reaches storage nodes runs against ({@link MiniCluster#clientConfig} and {@link
   * MiniCluster#tlsOptions} carry its certificates).
   */
  public static synchronized MiniCluster secure() {
    if (secure == null) {
      secure = startShared(true);
    }
    return secure;
  }

  private static MiniCluster startShared(boolean tls) {
    try {
      Path dir = Files.createTempDirectory(tls ? "pfs-shared-tls-cluster" : "pfs-shared-cluster");
      MiniCluster c = tls ? MiniCluster.startWithTls(dir, 2, "raid6:4+2", 6)
          : MiniCluster.start(dir, 2, "raid6:4+2", 6);
      try (ParityClient root = c.client(Caller.of("root"))) {
        root.namespace().setLayout("/", ROOT_LAYOUT);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          c.close();
        } catch (IOException | RuntimeException e) {
          // exiting anyway; still remove the folder
        }
        try {
          TestDirs.deleteTree(dir);
        } catch (IOException | UncheckedIOException e) {
          // best effort at exit
        }
      }, "shared-mini-cluster-stop"));
      return c;
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the shared mini cluster: " + e, e);
    }
  }

  /** A Hadoop configuration naming the cluster {@code mini} (pfs://mini/). */
  public static Configuration configuration() {
    return apply(new Configuration());
  }

  /** Sets the keys that name the cluster {@code mini} in {@code conf}; returns it. */
  public static Configuration apply(Configuration conf) {
    conf.set("fs.pfs.cluster." + CLUSTER + ".zookeeper", get().connectString());
    conf.set("fs.pfs.zookeeper.session-timeout", "5s");
    conf.set("fs.AbstractFileSystem.pfs.impl", "io.parityfs.hadoop.Pfs");
    return conf;
  }
}
