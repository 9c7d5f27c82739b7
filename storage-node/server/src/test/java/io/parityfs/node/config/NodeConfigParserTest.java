package io.parityfs.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.select.CodecBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeConfigParserTest {
  @TempDir Path dir;

  private static Properties minimal() {
    Properties p = new Properties();
    p.setProperty("targets", "a");
    p.setProperty("target.a.drives", "d0, d1, d2, d3, d4, d5");
    return p;
  }

  @Test
  void theSampleParsesWithItsDocumentedValues() throws Exception {
    Path sample = Path.of("../../conf/storage-node.properties");
    Properties p = new Properties();
    try (var in = Files.newInputStream(sample)) {
      p.load(in);
    }
    // the sample is secure (issue 18): a digest file and TLS files the operator makes first
    assertEquals("/etc/parityfs/zk.digest", p.getProperty("zookeeper.digestFile"));
    assertEquals("true", p.getProperty("security.tls"));
    Path digest = dir.resolve("zk.digest");
    Files.writeString(digest, "parityfs:sample-secret\n");
    p.setProperty("zookeeper.digestFile", digest.toString());
    NodeConfig c = NodeConfigParser.parse(p, sample.toString(), sample.getParent());
    assertEquals("parityfs:sample-secret", c.zooKeeper().digest());
    assertTrue(c.server().tls().enabled());
    assertEquals(Path.of("/etc/parityfs/pki/node1.key"), c.server().tls().key());
    assertEquals(Path.of("/etc/parityfs/pki/ca.crl"), c.server().tls().crl());
    assertEquals(Path.of("/var/lib/parityfs/storage-node/node.id"), c.idFile());
    assertEquals(7110, c.listenPort());
    assertEquals(7111, c.metricsPort());
    assertEquals("localhost:2181", c.zooKeeper().connect());
    assertEquals("", c.zooKeeper().chroot());
    assertEquals(Duration.ofSeconds(30), c.zooKeeper().sessionTimeout());
    assertEquals(Duration.ofSeconds(10), c.refreshInterval());
    assertEquals(1, c.targets().size());
    TargetConfig t = c.targets().get(0);
    assertEquals("t0", t.name());
    assertEquals(6, t.drives().size());
    assertEquals(Path.of("/mnt/nvme0/pfs"), t.drives().get(0));
    assertTrue(t.create().isEmpty(), "create = false");
    assertEquals(CodecBackend.AUTO, t.codec());
    assertEquals(Duration.ofDays(7), t.scrubInterval());
    assertEquals(Duration.ofHours(1), t.gcInterval(), "garbage collected every hour");
    assertEquals(0, t.rebuildIdleBytesPerSecond());
    assertEquals(256_000_000, t.rebuildBusyBytesPerSecond());
    assertEquals("default", t.pool());
    assertEquals(32, c.server().workerThreads());
    assertEquals(8L << 20, c.server().maxBytesPerConnection());
    assertEquals(Duration.ofSeconds(60), c.server().idleTimeout());
  }

  @Test
  void defaultsAndTypedValues() throws Exception {
    Properties p = minimal();
    p.setProperty("target.a.create", "true");
    p.setProperty("target.a.geometry", "rs:3+2");
    p.setProperty("target.a.cellSize", "4K");
    p.setProperty("target.a.maxChunkSize", "1MiB");
    p.setProperty("target.a.hotSpares", "1");
    p.setProperty("target.a.codec", "cpu");
    p.setProperty("target.a.scrubInterval", "0");
    p.setProperty("target.a.gcInterval", "0");
    p.setProperty("target.a.rebuild.busyRate", "12.5");
    p.setProperty("zookeeper.chroot", "/prod");
    p.setProperty("node.name", "n1");
    NodeConfig c = NodeConfigParser.parse(p, "test.properties", dir);
    assertEquals("n1", c.name());
    assertEquals("", c.domain(), "no failure domain by default");
    p.setProperty("node.domain", "rack-07.zone_b");
    assertEquals("rack-07.zone_b", NodeConfigParser.parse(p, "test.properties", dir).domain());
    p.remove("node.domain");
    assertEquals(dir.resolve("node.id"), c.idFile(), "relative to the file's folder");
    assertEquals("/prod", c.zooKeeper().chroot());
    TargetConfig t = c.targets().get(0);
    assertEquals(dir.resolve("d3"), t.drives().get(3));
    ArrayConfig a = t.create().orElseThrow();
    assertEquals(ArrayConfig.builder().geometry(CodecGeometry.parse("rs:3+2")).cellSize(4096)
        .maxObjectSize(1 << 20).hotSpares(1).build(), a);
    assertEquals(CodecBackend.CPU, t.codec());
    assertEquals(Duration.ZERO, t.scrubInterval());
    assertEquals(Duration.ZERO, t.gcInterval(), "0: garbage collected only at open");
    assertEquals(12_500_000, t.rebuildBusyBytesPerSecond());
    assertEquals("default", t.pool(), "the default pool");
    p.setProperty("target.a.pool", "nvme-fast_1.a");
    assertEquals("nvme-fast_1.a",
        NodeConfigParser.parse(p, "test.properties", dir).targets().get(0).pool());
  }

  private ConfigException bad(String key, String value) {
    Properties p = minimal();
    p.setProperty(key, value);
    return assertThrows(ConfigException.class,
        () -> NodeConfigParser.parse(p, "bad.properties", dir));
  }

  @Test
  void metricsTlsNeedsTheNodesCertificateAndBasicAuthAFile() throws Exception {
    Properties p = minimal();
    p.setProperty("metrics.tls", "true");
    p.setProperty("metrics.basicAuthFile", "missing.auth");
    ConfigException e = assertThrows(ConfigException.class,
        () -> NodeConfigParser.parse(p, "test.properties", dir));
    assertTrue(e.problems().stream().anyMatch(m -> m.startsWith("metrics.tls:")
        && m.contains("security.tls")), e.problems().toString());
    assertTrue(e.problems().stream().anyMatch(m -> m.startsWith("metrics.basicAuthFile:")),
        e.problems().toString());
    java.nio.file.Files.writeString(dir.resolve("metrics.auth"), "prometheus:s3cret\n");
    p.setProperty("metrics.basicAuthFile", "metrics.auth");
    p.setProperty("security.tls", "true");
    p.setProperty("security.tls.key", "pki/n.key");
    p.setProperty("security.tls.cert", "pki/n.crt");
    p.setProperty("security.tls.ca", "pki/ca.crt");
    NodeConfig c = NodeConfigParser.parse(p, "test.properties", dir);
    assertTrue(c.metricsAccess().tls());
    assertEquals("prometheus:s3cret", c.metricsAccess().basicAuth());
    assertFalse(NodeConfigParser.parse(minimal(), "test.properties", dir).metricsAccess().tls());
  }

  @Test
  void tlsNamesItsFilesAgainstTheFilesFolder() throws Exception {
    assertFalse(NodeConfigParser.parse(minimal(), "test.properties", dir).server().tls()
        .enabled(), "off unless asked for");
    Properties p = minimal();
    p.setProperty("security.tls", "true");
    ConfigException e = assertThrows(ConfigException.class,
        () -> NodeConfigParser.parse(p, "test.properties", dir));
    assertTrue(e.problems().stream().anyMatch(m -> m.startsWith("security.tls.key:")),
        e.problems().toString());
    assertTrue(e.problems().stream().anyMatch(m -> m.startsWith("security.tls.ca:")),
        e.problems().toString());
    p.setProperty("security.tls.key", "pki/n.key");
    p.setProperty("security.tls.cert", "pki/n.crt");
    p.setProperty("security.tls.ca", "/etc/pki/ca.crt");
    var tls = NodeConfigParser.parse(p, "test.properties", dir).server().tls();
    assertTrue(tls.enabled());
    assertEquals(dir.resolve("pki/n.key"), tls.key());
    assertEquals(Path.of("/etc/pki/ca.crt"), tls.ca());
    assertNull(tls.crl());
  }

  @Test
  void zooKeeperTlsIsOnWithATrustStoreAndNeedsOneForAKeyStore() throws Exception {
    assertNull(NodeConfigParser.parse(minimal(), "test.properties", dir).zooKeeper().tls(),
        "plaintext to ZooKeeper unless asked for");
    Properties p = minimal();
    p.setProperty("zookeeper.tls.keyStore", "pki/n.pem");
    ConfigException e = assertThrows(ConfigException.class,
        () -> NodeConfigParser.parse(p, "test.properties", dir));
    assertTrue(e.problems().stream().anyMatch(m -> m.startsWith("zookeeper.tls.keyStore:")
        && m.contains("zookeeper.tls.trustStore")), e.problems().toString());
    p.setProperty("zookeeper.tls.trustStore", "/etc/pki/ca.crt");
    var tls = NodeConfigParser.parse(p, "test.properties", dir).zooKeeper().tls();
    assertEquals(Path.of("/etc/pki/ca.crt"), tls.trustStore());
    assertEquals(dir.resolve("pki/n.pem"), tls.keyStore());
  }

  @Test
  void eachBadKeyIsReportedByNameWithTheFileAndValue() {
    String[][] cases = {
        {"node.listen.port", "70000"},
        {"node.listen.port", "x"},
        {"metrics.port", "-2"},
        {"zookeeper.sessionTimeout", "soon"},
        {"zookeeper.sessionTimeout", "0"},
        {"zookeeper.chroot", "prod/"},
        {"registry.refreshInterval", "10 weeks"},
        {"codec", "tpu"},
        {"target.a.codec", "fpga"},
        {"target.a.create", "yes"},
        {"target.a.cellSize", "lots"},
        {"target.a.geometry", "raid7:4+3"},
        {"target.a.hotSpares", "-1"},
        {"target.a.scrubInterval", "weekly"},
        {"target.a.gcInterval", "hourly"},
        {"target.a.rebuild.idleRate", "-5"},
        {"target.a.pool", "has space"},
        {"target.a.pool", "x".repeat(65)},
        {"target.a.pool", "a/b"},
        {"node.domain", "rack 7"},
        {"node.domain", "z".repeat(65)},
        {"server.workerThreads", "0"},
        {"server.idleTimeout", "soon"},
        {"server.idleTimeout", "99999999999999999999"}, // more digits than a long: was a crash
        {"zookeeper.sessionTimeout", "9223372036854775807d"}, // overflows a Duration
        {"target.a.scrubInterval", "36501d"},
        {"server.drainTimeout", "9223372036854775807ms"},
        {"target.a.drvies", "/x"},
        {"zookeeper.conect", "h:1"},
    };
    for (String[] c : cases) {
      ConfigException e = bad(c[0], c[1]);
      assertTrue(e.getMessage().startsWith("bad.properties:"), e.getMessage());
      assertTrue(e.problems().stream().anyMatch(p -> p.startsWith(c[0] + ":")),
          c[0] + "=" + c[1] + " -> " + e.problems());
      if (!c[0].endsWith("drvies") && !c[0].endsWith("conect")) {
        assertTrue(e.getMessage().contains(c[1]), "value in " + e.getMessage());
      } else {
        assertTrue(e.getMessage().contains("unknown key"), e.getMessage());
      }
    }
  }

  @Test
  void creationProblemsAndTargetListProblems() {
    Properties p = minimal();
    p.setProperty("target.a.create", "true");
    p.setProperty("target.a.cellSize", "3000");
    ConfigException e = assertThrows(ConfigException.class,
        () -> NodeConfigParser.parse(p, "f", dir));
    assertTrue(e.getMessage().contains("cellSize") && e.getMessage().contains("3000"),
        e.getMessage());

    Properties few = minimal();
    few.setProperty("target.a.create", "true");
    few.setProperty("target.a.drives", "d0, d1");
    e = assertThrows(ConfigException.class, () -> NodeConfigParser.parse(few, "f", dir));
    assertTrue(e.problems().get(0).startsWith("target.a.drives:"), e.problems().toString());

    Properties none = new Properties();
    e = assertThrows(ConfigException.class, () -> NodeConfigParser.parse(none, "f", dir));
    assertTrue(e.problems().get(0).startsWith("targets:"), e.problems().toString());

    Properties twice = minimal();
    twice.setProperty("targets", "a, b");
    twice.setProperty("target.b.drives", "d5, e1");
    e = assertThrows(ConfigException.class, () -> NodeConfigParser.parse(twice, "f", dir));
    assertTrue(e.getMessage().contains("d5") && e.getMessage().contains("twice"),
        e.getMessage());

    Properties manyProblems = minimal();
    manyProblems.setProperty("node.listen.port", "-3");
    manyProblems.setProperty("codec", "x");
    e = assertThrows(ConfigException.class, () -> NodeConfigParser.parse(manyProblems, "f", dir));
    assertEquals(2, e.problems().size(), "all problems reported at once: " + e.problems());
  }

  @Test
  void aMissingFileIsAnIoError() {
    assertThrows(IOException.class, () -> NodeConfigParser.parse(dir.resolve("nope")));
  }

  @Test
  void aFileOnDiskResolvesPathsAgainstItsFolder() throws Exception {
    Path f = dir.resolve("node.properties");
    Files.writeString(f, "targets = a\ntarget.a.drives = x/d0\nnode.idFile = id/node.id\n");
    NodeConfig c = NodeConfigParser.parse(f);
    assertEquals(dir.resolve("x/d0").toAbsolutePath(), c.targets().get(0).drives().get(0));
    assertEquals(dir.resolve("id/node.id").toAbsolutePath(), c.idFile());
  }
}
