package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.integration.QuickstartTest.Run;
import io.parityfs.meta.Caller;
import io.parityfs.meta.ZooKeeperSettings;
import io.parityfs.meta.ZooKeeperTls;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsRole;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS to ZooKeeper (issue 18, docs/security.md "TLS to ZooKeeper"): a secure local cluster made
 * with {@code --zookeeper-tls}, whose ZooKeeper takes TLS only with client certificates of the
 * cluster CA. Every process (the node, the admin client, Hadoop, the CLI) reaches it with its
 * certificate; a plaintext client, one without a certificate, one with another CA's and one
 * that trusts another CA are all refused; znodes made over TLS name the digest identity alone.
 */
class ZooKeeperTlsTest {
  @TempDir
  static Path tmp;
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.startZooKeeperTls(tmp.resolve("cluster"), ZooKeeperTlsTest.class, 1,
        1);
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static LocalCluster local() {
    return cluster.local();
  }

  @Test
  void everyProcessReachesZooKeeperOverTls() throws Exception {
    // the node registered through TLS (its node.properties name the stores) and is online
    String nodeConfig = Files.readString(local().dir().resolve("node0/node.properties"));
    assertTrue(nodeConfig.contains("zookeeper.tls.trustStore"), nodeConfig);
    assertTrue(nodeConfig.contains("node0.pem"), nodeConfig);
    assertEquals(Reachability.ONLINE, cluster.target(0).reachability());

    // Hadoop with the keys `local start` prints
    Configuration conf = new Configuration(false);
    local().hadoopProperties("local").forEach(conf::set);
    assertTrue(conf.get("fs.pfs.zookeeper.tls.keystore").endsWith("client.pem"));
    byte[] data = ("written over TLS to ZooKeeper by the Hadoop writer of "
        + ZooKeeperTlsTest.class.getSimpleName()).repeat(2000).getBytes(StandardCharsets.UTF_8);
    try (FileSystem fs = FileSystem.newInstance(URI.create("pfs://local/"), conf)) {
      try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/hadoop.bin"))) {
        out.write(data);
      }
      byte[] back = new byte[data.length];
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/hadoop.bin"))) {
        in.readFully(back);
      }
      assertArrayEquals(data, back);
    }

    // the CLI with the options of `local env`
    Run ls = QuickstartTest.parityfs(QuickstartTest.concat(local().cliOptions(), "ls", "/"));
    assertEquals(0, ls.rc(), ls.all());
    assertTrue(ls.out().contains("hadoop.bin"), ls.out());
  }

  @Test
  void clientsWithoutTheClustersCertificatesAreRefused() throws Exception {
    Path tls = local().dir().resolve(ClusterLayout.TLS_DIR);
    Path ca = tls.resolve(CertificateAuthority.CA_CERT);
    Path other = tmp.resolve("other-ca");
    CertificateAuthority foreign = CertificateAuthority.init(other, "other");
    Path foreignPem = foreign.issue(TlsRole.ADMIN, "intruder", Duration.ofDays(1), List.of(),
        other).pem();

    // plaintext to a TLS-only port: no session, and the error says what to set
    IOException plain = refused(null);
    assertTrue(plain.getMessage().contains("plaintext: if its servers take TLS only"),
        plain.getMessage());
    // TLS without a client certificate: the server asks for one (ssl.clientAuth=need)
    IOException noCert = refused(new ZooKeeperTls(ca, null));
    assertTrue(noCert.getMessage().contains("over TLS"), noCert.getMessage());
    // a certificate of another CA
    refused(new ZooKeeperTls(ca, foreignPem));
    // trusting another CA: the client refuses ZooKeeper's certificate
    refused(new ZooKeeperTls(other.resolve(CertificateAuthority.CA_CERT),
        tls.resolve(ClusterLayout.ADMIN + ".pem")));
  }

  /** Connecting with {@code tls} (the digest and everything else right) fails within 3 s. */
  private static IOException refused(ZooKeeperTls tls) {
    ZooKeeperSettings good = local().zooKeeper();
    ZooKeeperSettings s = new ZooKeeperSettings(good.connect(), good.chroot(),
        good.sessionTimeout(), Duration.ofSeconds(3), good.digest(), tls);
    try (ParityClient c = ParityClient.connect(ClientConfig.builder(s).build(),
        Caller.of("root"))) {
      throw new AssertionError("connected to a TLS-only ZooKeeper with " + tls);
    } catch (IOException expected) {
      assertTrue(expected.getMessage().contains("cannot reach ZooKeeper"),
          expected.getMessage());
      return expected;
    }
  }

  @Test
  void znodesMadeOverTlsNameTheDigestsAlone() throws Exception {
    // ZooKeeper authenticates a TLS session's certificate as an x509 identity too; ACLs must not
    // grant it (a stolen client certificate without the digest reads nothing)
    try (CuratorFramework zk = local().zooKeeper().newClient()) {
      zk.start();
      assertTrue(zk.blockUntilConnected(20, TimeUnit.SECONDS));
      List<String> paths = new ArrayList<>(List.of(ZkPaths.ROOT, ZkPaths.TARGETS,
          ZkPaths.NODES));
      for (String n : zk.getChildren().forPath(ZkPaths.NODES)) {
        paths.add(ZkPaths.NODES + "/" + n); // made by the node, over its own TLS session
      }
      assertTrue(paths.size() > 3, paths.toString());
      for (String p : paths) {
        // the cluster's two digest identities (rights by role), never the certificate's x509
        List<ACL> acl = zk.getACL().forPath(p);
        assertEquals(2, acl.size(), p + ": " + acl);
        for (ACL a : acl) {
          assertEquals("digest", a.getId().getScheme(), p + ": " + acl);
          assertFalse(a.getId().getId().contains("CN="), p + ": " + acl);
        }
      }
    }
  }
}
