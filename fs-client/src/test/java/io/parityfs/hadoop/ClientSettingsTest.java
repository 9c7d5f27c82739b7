package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ClientConfig;
import io.parityfs.meta.Caller;
import io.parityfs.meta.ZooKeeperSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** URI authority and configuration keys to the client's settings, and the caller. */
class ClientSettingsTest {
  @TempDir
  Path dir;

  static Configuration empty() {
    return new Configuration(false);
  }

  @Test
  void namedClusterWithChrootAndDigestFile() throws IOException {
    Path secret = dir.resolve("zk.digest");
    Files.writeString(secret, "pfs:s3cret\n");
    Configuration c = empty();
    c.set("fs.pfs.cluster.prod.zookeeper", "zk1:2181,zk2:2181");
    c.set("fs.pfs.cluster.prod.chroot", "/prod");
    c.set("fs.pfs.cluster.prod.digest.file", secret.toString());
    c.set("fs.pfs.cluster.prod.digest", "ignored:when-a-file-is-given");
    c.set("fs.pfs.zookeeper.session-timeout", "7s");
    ZooKeeperSettings zk = ClientSettings.zooKeeper(URI.create("pfs://prod/a/b"), c);
    assertEquals("zk1:2181,zk2:2181", zk.connect());
    assertEquals("/prod", zk.chroot());
    assertEquals("pfs:s3cret", zk.digest());
    assertEquals(Duration.ofSeconds(7), zk.sessionTimeout());
    assertEquals(Duration.ofSeconds(15), zk.connectionTimeout());
  }

  @Test
  void zooKeeperTlsIsOnWithATrustStoreAndNeedsOneForAKeyStore() throws IOException {
    Configuration c = empty();
    assertNull(ClientSettings.zooKeeper(URI.create("pfs://zk9:2181/"), c).tls());
    c.set("fs.pfs.zookeeper.tls.keystore", "/etc/pki/client.pem");
    IOException e = assertThrows(IOException.class,
        () -> ClientSettings.zooKeeper(URI.create("pfs://zk9:2181/"), c));
    assertTrue(e.getMessage().contains("fs.pfs.zookeeper.tls.truststore"), e.getMessage());
    c.set("fs.pfs.zookeeper.tls.truststore", "/etc/pki/ca.crt");
    ZooKeeperSettings zk = ClientSettings.zooKeeper(URI.create("pfs://zk9:2181/"), c);
    assertEquals(Path.of("/etc/pki/ca.crt"), zk.tls().trustStore());
    assertEquals(Path.of("/etc/pki/client.pem"), zk.tls().keyStore());
  }

  @Test
  void hostPortAuthorityIsOneServerWithTheGlobalSettings() throws IOException {
    Configuration c = empty();
    c.set("fs.pfs.zookeeper.chroot", "/global");
    c.set("fs.pfs.zookeeper.digest", "u:p");
    ZooKeeperSettings zk = ClientSettings.zooKeeper(URI.create("pfs://zk9:2181/"), c);
    assertEquals("zk9:2181", zk.connect());
    assertEquals("/global", zk.chroot());
    assertEquals("u:p", zk.digest());
  }

  @Test
  void missingOrUnknownAuthorityIsRefusedNamingTheKey() {
    IOException none = assertThrows(IOException.class,
        () -> ClientSettings.zooKeeper(URI.create("pfs:///x"), empty()));
    assertTrue(none.getMessage().contains("names no cluster"), none.getMessage());
    IOException unknown = assertThrows(IOException.class,
        () -> ClientSettings.zooKeeper(URI.create("pfs://prod/x"), empty()));
    assertTrue(unknown.getMessage().contains("fs.pfs.cluster.prod.zookeeper"),
        unknown.getMessage());
    Configuration c = empty();
    c.set("fs.pfs.cluster.bad.zookeeper", "zk1:2181");
    c.set("fs.pfs.cluster.bad.chroot", "relative");
    IOException bad = assertThrows(IOException.class,
        () -> ClientSettings.zooKeeper(URI.create("pfs://bad/"), c));
    assertTrue(bad.getMessage().contains("chroot (relative)"), bad.getMessage());
  }

  @Test
  void typedKeysWithDefaultsAndUnits() throws IOException {
    Configuration c = empty();
    c.set("fs.pfs.cluster.t.zookeeper", "zk:1");
    ClientConfig d = ClientSettings.clientConfig(URI.create("pfs://t/"), c);
    assertEquals(64L << 20, d.writeBufferBytes());
    assertEquals(32L << 20, d.readAheadBytes());
    assertEquals("/parityfs/ns", d.namespace().root());
    c.set("fs.pfs.write.buffer.size", "16m");
    c.set("fs.pfs.read.ahead", "0");
    c.set("fs.pfs.read.request.size", "1m");
    c.set("fs.pfs.transfer.threads", "4");
    c.set("fs.pfs.namespace.root", "/other");
    c.set("fs.pfs.permissions.superuser", "hdfs");
    ClientConfig s = ClientSettings.clientConfig(URI.create("pfs://t/"), c);
    assertEquals(16L << 20, s.writeBufferBytes());
    assertEquals(0, s.readAheadBytes());
    assertEquals(1 << 20, s.readRequestBytes());
    assertEquals(4, s.transferThreads());
    assertEquals("/other", s.namespace().root());
    assertEquals("hdfs", s.namespace().superuser());
    c.set("fs.pfs.permissions.enabled", "maybe");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ClientSettings.clientConfig(URI.create("pfs://t/"), c));
    assertTrue(e.getMessage().contains("fs.pfs.permissions.enabled (maybe)"), e.getMessage());
  }

  @Test
  void callerIsTheCurrentUgiWithTheUmask() throws Exception {
    Configuration c = empty();
    c.set("fs.permissions.umask-mode", "027");
    Caller caller = UserGroupInformation.createUserForTesting("bob", new String[] {"eng", "ops"})
        .doAs((PrivilegedExceptionAction<Caller>) () -> ClientSettings.caller(c));
    assertEquals(new Caller("bob", List.of("eng", "ops"), 027), caller);
  }

  @Test
  void everyKeyIsDocumented() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    for (PfsConfigKeys.Key<?> k : PfsConfigKeys.ALL) {
      assertTrue(doc.contains("`" + k.name() + "`"), k.name() + " is not in docs/configuration.md");
    }
    for (PfsConfigKeys.ClusterKey k : PfsConfigKeys.CLUSTER_KEYS) {
      assertTrue(doc.contains("`" + k.name("<name>") + "`"),
          k.name("<name>") + " is not in docs/configuration.md");
    }
  }
}
