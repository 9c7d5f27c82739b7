package io.parityfs.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.config.NodeConfigKeys.Key;
import io.parityfs.raid.array.format.ArrayConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's keys are declared once: the docs' table is generated from them, the sample file
 * shows each, the defaults are the builders' and {@link NodeProperties} writes what the parser
 * reads.
 */
class NodeConfigKeysTest {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).resolve("../..")
      .normalize();
  private static final String BEGIN = "<!-- node keys: generated from NodeConfigKeys."
      + "markdownTable(); NodeConfigKeysTest checks it (-Dparityfs.updateDocs=true rewrites it)"
      + " -->\n";
  private static final String END = "<!-- end of node keys -->\n";

  @TempDir Path dir;

  @Test
  void theDocsTableIsTheOneTheKeysGenerate() throws IOException {
    Path doc = REPO.resolve("docs/storage-node.md");
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int from = text.indexOf(BEGIN);
    int to = text.indexOf(END);
    assertTrue(from >= 0 && to > from, doc + " lacks the generated key table's markers");
    String table = text.substring(from + BEGIN.length(), to);
    String expected = NodeConfigKeys.markdownTable();
    if (!table.equals(expected) && Boolean.getBoolean("parityfs.updateDocs")) {
      Files.writeString(doc, text.substring(0, from + BEGIN.length()) + expected
          + text.substring(to), StandardCharsets.UTF_8);
      return;
    }
    assertEquals(expected, table, "docs/storage-node.md's key table differs from NodeConfigKeys:"
        + " rerun this test with -Dparityfs.updateDocs=true to regenerate it");
  }

  @Test
  void theSampleFileShowsEveryKey() throws IOException {
    String sample = Files.readString(REPO.resolve("conf/storage-node.properties"));
    Set<String> shown = new HashSet<>();
    for (String line : sample.split("\n")) {
      String l = line.startsWith("#") ? line.substring(1) : line;
      int eq = l.indexOf('=');
      if (eq > 0 && l.substring(0, eq).trim().matches("[\\w.]+")) {
        shown.add(l.substring(0, eq).trim());
      }
    }
    for (Key<?> k : NodeConfigKeys.NODE_KEYS) {
      assertTrue(shown.contains(k.name()), "conf/storage-node.properties lacks " + k.name());
    }
    for (Key<?> k : NodeConfigKeys.TARGET_KEYS) {
      assertTrue(shown.contains(k.property("t0")),
          "conf/storage-node.properties lacks " + k.property("t0"));
    }
  }

  @Test
  void defaultsAreTheBuildersDefaults() throws ConfigException {
    Properties p = NodeProperties.create().set("t", NodeConfigKeys.DRIVES, List.of("a", "b", "c"))
        .toProperties();
    NodeConfig c = NodeConfigParser.parse(p, "test", dir);
    NodeServerConfig d = NodeServerConfig.DEFAULT;
    assertEquals(d.workerThreads(), c.server().workerThreads());
    assertEquals(d.maxRequestsPerConnection(), c.server().maxRequestsPerConnection());
    assertEquals(d.maxBytesPerConnection(), c.server().maxBytesPerConnection());
    assertEquals(d.maxRequestsPerNode(), c.server().maxRequestsPerNode());
    assertEquals(d.maxBytesPerNode(), c.server().maxBytesPerNode());
    assertEquals(d.idleTimeout(), c.server().idleTimeout());
    assertEquals(d.drainTimeout(), c.server().drainTimeout());
    assertEquals(TargetConfig.DEFAULT_GC_INTERVAL, c.targets().get(0).gcInterval());
    assertEquals("8M", NodeConfigKeys.SERVER_MAX_BYTES_PER_CONNECTION.defaultText());
    assertEquals(ArrayConfig.DEFAULT.protection(),
        NodeConfigKeys.GEOMETRY.defaultValue().orElseThrow());
    assertEquals((long) ArrayConfig.DEFAULT.cellSize(),
        NodeConfigKeys.CELL_SIZE.defaultValue().orElseThrow());
  }

  @Test
  void everyKeySetToItsDefaultParsesAsTheDefaults() throws ConfigException {
    NodeProperties all = NodeProperties.create();
    NodeProperties none = NodeProperties.create();
    for (Key<?> k : NodeConfigKeys.NODE_KEYS) {
      if (!k.defaultText().isEmpty()) {
        all.setText(k, k.defaultText());
      }
    }
    for (Key<?> k : NodeConfigKeys.TARGET_KEYS) {
      if (!k.defaultText().isEmpty()) {
        all.setText("t", k, k.defaultText());
      }
    }
    all.set("t", NodeConfigKeys.DRIVES, List.of("a", "b", "c"));
    none.set("t", NodeConfigKeys.DRIVES, List.of("a", "b", "c"));
    assertEquals(NodeConfigParser.parse(none.toProperties(), "f", dir),
        NodeConfigParser.parse(all.toProperties(), "f", dir));
  }

  @Test
  void typedValuesAreWrittenInTheFormTheParserReads() throws ConfigException {
    Properties p = NodeProperties.create()
        .set(NodeConfigKeys.LISTEN_PORT, 0)
        .set(NodeConfigKeys.ZK_SESSION_TIMEOUT, Duration.ofMillis(4500))
        .set(NodeConfigKeys.SERVER_MAX_BYTES_PER_NODE, 3L << 30)
        .set(NodeConfigKeys.CLUSTER_MANAGER, false)
        .set("fast", NodeConfigKeys.DRIVES, List.of("d0", "d1", "d2", "d3"))
        .set("fast", NodeConfigKeys.CREATE, true)
        .setText("fast", NodeConfigKeys.GEOMETRY, "raid5:3+1")
        .set("fast", NodeConfigKeys.CELL_SIZE, 4096L)
        .set("fast", NodeConfigKeys.REBUILD_BUSY_RATE, 12_500_000L)
        .set("small", NodeConfigKeys.DRIVES, List.of("e0", "e1", "e2"))
        .toProperties();
    assertEquals("fast,small", p.getProperty("targets"));
    assertEquals("4500ms", p.getProperty("zookeeper.sessionTimeout"));
    assertEquals("3G", p.getProperty("server.maxBytesPerNode"));
    assertEquals("4K", p.getProperty("target.fast.cellSize"));
    NodeConfig c = NodeConfigParser.parse(p, "f", dir);
    assertEquals(0, c.listenPort());
    assertEquals(Duration.ofMillis(4500), c.zooKeeper().sessionTimeout());
    assertEquals(3L << 30, c.server().maxBytesPerNode());
    assertEquals(false, c.clusterManager());
    assertEquals(2, c.targets().size());
    TargetConfig fast = c.targets().get(0);
    assertEquals(4096, fast.create().orElseThrow().cellSize());
    assertEquals("raid5:3+1", fast.create().orElseThrow().protection().toString());
    assertEquals(12_500_000, fast.rebuildBusyBytesPerSecond());
  }

  @Test
  void aBadValueOrAMisplacedKeyFailsWhenSetNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NodeProperties.create().setText("t", NodeConfigKeys.CELL_SIZE, "lots"));
    assertTrue(e.getMessage().startsWith("target.t.cellSize: value (lots)"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> NodeProperties.create().set(NodeConfigKeys.DRIVES, List.of("x")));
    assertThrows(IllegalArgumentException.class,
        () -> NodeProperties.create().set("t", NodeConfigKeys.LISTEN_PORT, 1));
    assertThrows(IllegalArgumentException.class,
        () -> NodeProperties.create().set("bad name", NodeConfigKeys.CREATE, true));
  }

  @Test
  void formatsRoundTrip() {
    assertEquals("8M", ValueType.sizeText(8L << 20));
    assertEquals("65537", ValueType.sizeText(65537));
    assertEquals("0", ValueType.sizeText(0));
    assertEquals("1h", ValueType.durationText(Duration.ofHours(1)));
    assertEquals("90s", ValueType.durationText(Duration.ofSeconds(90)));
    assertEquals("0", ValueType.durationText(Duration.ZERO));
    assertEquals("7d", ValueType.durationText(Duration.ofDays(7)));
    assertEquals(Duration.ofMillis(1500),
        ValueType.duration(false).parse(ValueType.durationText(Duration.ofMillis(1500))));
    assertEquals(12_500_000L, ValueType.RATE.parse(ValueType.RATE.format(12_500_000L)));
    assertEquals(256_000_000L, ValueType.RATE.parse(ValueType.RATE.format(256_000_000L)));
  }
}
