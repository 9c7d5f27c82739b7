package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testing.SharedMiniCluster;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

/** The Hadoop client does not format a namespace: a chroot without one fails to initialize. */
class PfsMissingNamespaceTest {
  @Test
  void aClusterWhoseChrootHoldsNoNamespaceFailsNamingWhereItLooked() throws Exception {
    String chroot = "/nowhere-" + Long.toHexString(System.nanoTime());
    Configuration conf = SharedMiniCluster.configuration();
    conf.set("fs.pfs.cluster." + SharedMiniCluster.CLUSTER + ".chroot", chroot);
    conf.setBoolean("fs.pfs.impl.disable.cache", true);
    URI uri = URI.create("pfs://" + SharedMiniCluster.CLUSTER + "/");
    IOException e = assertThrows(IOException.class, () -> FileSystem.newInstance(uri, conf));
    String m = String.valueOf(e.getMessage());
    assertTrue(m.contains("no ParityFS namespace here") && m.contains("chroot " + chroot)
        && m.contains("parityfs format"), m);
    // nothing was formatted: a second try fails the same way
    assertThrows(IOException.class, () -> FileSystem.newInstance(uri, conf));
  }
}
