package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testing.MiniCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against a cluster whose nodes run mutual TLS (docs/security.md): {@code ca init},
 * {@code issue} and {@code revoke}; put and cat with a client certificate; without one, the
 * nodes are unreachable; a drive command needs an admin certificate.
 */
class CliTlsTest {
  @TempDir static Path dir;
  static MiniCluster cluster;
  static CliRunner cli;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.startWithTls(dir.resolve("cluster"), 1, "raid6:4+2", 6);
    cli = new CliRunner(cluster.connectString());
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String[] as(String who, String... args) {
    Path pki = cluster.pki();
    String[] all = new String[args.length + 6];
    all[0] = "--tls-key";
    all[1] = pki.resolve(who + ".key").toString();
    all[2] = "--tls-cert";
    all[3] = pki.resolve(who + ".crt").toString();
    all[4] = "--tls-ca";
    all[5] = pki.resolve("ca.crt").toString();
    System.arraycopy(args, 0, all, 6, args.length);
    return all;
  }

  @Test
  void clientsNeedACertificateAndDriveCommandsAnAdminOne() throws Exception {
    Path local = dir.resolve("in.txt");
    Files.writeString(local, "written by the tls client\n".repeat(1000));
    cli.ok(as("client", "put", local.toString(), "/t.txt"));
    assertEquals(Files.readString(local), cli.ok(as("client", "cat", "/t.txt")).out());
    CliRunner.Run plain = cli.run("cat", "/t.txt");
    assertEquals(6, plain.rc(), plain.err()); // the nodes refuse plaintext: unavailable
    String target = cluster.nodes().get(0).targets().get(0).id();
    CliRunner.Run denied = cli.run(as("client", "fail-drive", target, "1"));
    assertTrue(denied.rc() != 0 && denied.err().contains("PERMISSION_DENIED"), denied.err());
    CliRunner.Run byAdmin = cli.ok(as("admin", "fail-drive", target, "1"));
    assertTrue(byAdmin.out().contains("FAILED"), byAdmin.out());
    assertEquals(Files.readString(local), cli.ok(as("client", "cat", "/t.txt")).out(),
        "read degraded");
    CliRunner.Run half = cli.run("--tls-key", "k", "cat", "/t.txt");
    assertEquals(2, half.rc(), half.err());
    // an empty revocation list option (an exported PARITYFS_TLS_CRL=) means none, not a path
    assertEquals(Files.readString(local), cli.ok(as("client", "--tls-crl=", "cat", "/t.txt"))
        .out());
  }

  /**
   * {@code --core-site}: the CLI (and the mount, through the same options) takes the cluster's
   * ZooKeeper and the client's TLS files from a Hadoop core-site, as Spark on the host does.
   */
  @Test
  void aCoreSiteGivesTheClusterAndItsCredentials() throws Exception {
    Path local = dir.resolve("site.txt");
    Files.writeString(local, "through the core-site\n");
    cli.ok(as("client", "put", local.toString(), "/site.txt"));
    Path pki = cluster.pki();
    Path site = dir.resolve("core-site.xml");
    Files.writeString(site, "<?xml version=\"1.0\"?>\n<configuration>\n"
        + "  <property><name>fs.defaultFS</name><value>pfs://mini/</value></property>\n"
        + "  <property><name>fs.pfs.cluster.mini.zookeeper</name><value>"
        + cluster.connectString() + "</value></property>\n"
        + "  <property><name>fs.pfs.tls.key</name><value>" + pki.resolve("client.key")
        + "</value></property>\n"
        + "  <property><name>fs.pfs.tls.cert</name><value>" + pki.resolve("client.crt")
        + "</value></property>\n"
        + "  <property><name>fs.pfs.tls.ca</name><value>" + pki.resolve("ca.crt")
        + "</value></property>\n</configuration>\n");
    // no --zookeeper, no --tls-*: all from the file
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int rc;
    try (java.io.PrintStream o = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
        java.io.PrintStream e = new java.io.PrintStream(err, true, StandardCharsets.UTF_8)) {
      rc = Main.run(new String[] {"--user", "root", "--core-site", site.toString(), "cat",
          "/site.txt"}, new java.io.ByteArrayInputStream(new byte[0]), o, e, false);
    }
    assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
    assertEquals(Files.readString(local), out.toString(StandardCharsets.UTF_8));
    Path none = dir.resolve("empty-site.xml");
    Files.writeString(none, "<configuration/>\n");
    CliRunner.Run refused = cli.run("--core-site", none.toString(), "cat", "/site.txt");
    assertEquals(2, refused.rc(), refused.err());
    assertTrue(refused.err().contains("no pfs cluster in it"), refused.err());
  }

  @Test
  void zkAclClosesANamespaceMadeWithoutADigest() throws Exception {
    // a namespace of its own (under a chroot), made open, then closed by zk-acl
    Path digest = dir.resolve("zk.digest");
    Files.writeString(digest, "parityfs:acl-secret\n");
    Path wrong = dir.resolve("wrong.digest");
    Files.writeString(wrong, "parityfs:guess\n");
    cli.ok("--chroot", "/acl", "format");
    cli.ok("--chroot", "/acl", "mkdir", "-p", "/made/open");
    assertEquals(2, cli.run("--chroot", "/acl", "zk-acl").rc(), "needs the digest");
    CliRunner.Run applied = cli.ok("--json", "--chroot", "/acl", "--digest-file",
        digest.toString(), "zk-acl");
    assertTrue(applied.json().get("set").asLong() > 10, applied.out());
    assertEquals(0, applied.json().get("refused").asLong());
    CliRunner.Run stranger = cli.run("--chroot", "/acl", "ls", "/made");
    assertEquals(5, stranger.rc(), stranger.err());
    assertTrue(stranger.err().contains("NOAUTH"), stranger.err());
    assertEquals(5, cli.run("--chroot", "/acl", "mkdir", "/intruder").rc());
    assertTrue(cli.ok("--chroot", "/acl", "--digest-file", digest.toString(), "ls", "/made")
        .out().contains("open"));
    assertEquals(0, cli.run("--chroot", "/acl", "--digest-file", digest.toString(), "zk-acl")
        .rc(), "idempotent");
    CliRunner.Run other = cli.run("--chroot", "/acl", "--digest-file", wrong.toString(),
        "zk-acl");
    assertEquals(7, other.rc(), other.err() + other.out());
    assertTrue(other.err().contains("another identity's"), other.err());
  }

  @Test
  void theCaCommandsMakeIssueAndRevoke() throws Exception {
    Path ca = dir.resolve("ca");
    cli.ok("ca", "init", "--dir", ca.toString(), "--cluster", "prod");
    assertEquals(7, cli.run("ca", "init", "--dir", ca.toString()).rc(), "never overwritten");
    CliRunner.Run node = cli.ok("--json", "ca", "issue", "--dir", ca.toString(), "--role",
        "node", "--name", "node7", "--host", "10.0.0.7,node7.example");
    assertEquals("node", node.json().get("role").asText());
    assertTrue(Files.exists(ca.resolve("node7.key")));
    assertEquals(2, cli.run("ca", "issue", "--dir", ca.toString(), "--role", "root", "--name",
        "x").rc(), "unknown role");
    CliRunner.Run revoked = cli.ok("ca", "revoke", "--dir", ca.toString(),
        ca.resolve("node7.crt").toString());
    assertTrue(revoked.out().startsWith("revoked CN=node7"), revoked.out());
    assertTrue(Files.readString(ca.resolve("ca.crl"), StandardCharsets.US_ASCII)
        .contains("BEGIN X509 CRL"));
  }
}
