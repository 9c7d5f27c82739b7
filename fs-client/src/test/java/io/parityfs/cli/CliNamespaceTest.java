package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.testing.SharedMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace and data commands against the shared cluster (two nodes, 256 KiB chunks over
 * both targets at the root): output, {@code --json}, and the exit code of each error class.
 */
class CliNamespaceTest {
  static final String BASE = "/cli-" + Long.toHexString(System.nanoTime());
  static CliRunner cli;

  @TempDir
  static Path local;

  @BeforeAll
  static void setUp() {
    cli = new CliRunner(SharedMiniCluster.get().connectString());
    cli.ok("mkdir", "-p", BASE);
  }

  @Test
  void lnReadlinkAndLinksInListings() throws Exception {
    String dir = BASE + "/links";
    cli.ok("mkdir", "-p", dir + "/ckpt-1000");
    cli.ok("ln", "-s", "ckpt-1000", dir + "/latest");
    assertEquals("ckpt-1000\n", cli.ok("readlink", dir + "/latest").out());
    assertEquals("ckpt-1000", cli.ok("readlink", "--json", dir + "/latest").json()
        .get("target").asText());
    String line = cli.ok("ls", "-l", dir).out().lines()
        .filter(l -> l.contains("latest")).findFirst().orElseThrow();
    assertTrue(line.startsWith("lrwxrwxrwx") && line.endsWith(dir + "/latest -> ckpt-1000"),
        line);
    JsonNode st = cli.ok("stat", "--json", dir + "/latest").json();
    assertEquals("SYMLINK", st.get("type").asText());
    assertEquals("ckpt-1000", st.get("target").asText());
    assertTrue(cli.ok("stat", dir + "/latest").out().contains("target:      ckpt-1000"));
    // -p makes parents; a taken name is exit 4; readlink of a directory is a usage error (2)
    cli.ok("ln", "-s", "-p", "../../ckpt-1000", dir + "/a/b/up");
    assertEquals("../../ckpt-1000\n", cli.ok("readlink", dir + "/a/b/up").out());
    cli.fails(4, "ln", "-s", "x", dir + "/latest");
    cli.fails(2, "readlink", dir + "/ckpt-1000");
    cli.fails(2, "ln", "x", dir + "/hard"); // -s is required: no hard links
    // a path through a link is refused with the link named (the CLI does not follow links)
    CliRunner.Run through = cli.fails(1, "ls", dir + "/latest/x");
    assertTrue(through.err().contains("UNRESOLVED_LINK") && through.err().contains(dir
        + "/latest"), through.err());
    cli.ok("rm", dir + "/latest");
    cli.ok("ls", "-d", dir + "/ckpt-1000");
  }

  @Test
  void putListStatCatGetMoveDuRemove() throws Exception {
    byte[] data = new byte[700_000]; // three 256 KiB chunks over two targets
    new Random(5).nextBytes(data);
    Path big = local.resolve("big.bin");
    Files.write(big, data);
    String dir = BASE + "/data";
    cli.ok("mkdir", "-p", dir + "/sub");
    cli.ok("put", big.toString(), dir + "/big.bin");
    cli.ok("put", big.toString(), dir + "/sub"); // into the directory, under its own name

    CliRunner.Run ls = cli.ok("ls", dir);
    assertEquals(List.of(dir + "/big.bin", dir + "/sub"), ls.out().lines().toList());
    CliRunner.Run ll = cli.ok("ls", "-l", "-R", dir);
    List<String> lines = ll.out().lines().toList();
    assertEquals(3, lines.size(), ll.out());
    assertTrue(lines.get(0).matches("-rw-r--r--\\s+root\\s+supergroup\\s+700000\\s+\\d{4}-\\d\\d-\\d\\d"
        + " \\d\\d:\\d\\d\\s+" + dir + "/big.bin"), lines.get(0));
    assertTrue(lines.get(1).startsWith("drwxr-xr-x") && lines.get(1).endsWith(dir + "/sub"));
    assertTrue(lines.get(2).endsWith(dir + "/sub/big.bin"), lines.get(2));

    JsonNode arr = cli.ok("ls", "-R", "--json", dir).json();
    assertEquals(3, arr.size());
    JsonNode f = arr.get(0);
    assertEquals(dir + "/big.bin", f.get("path").asText());
    assertEquals("FILE", f.get("type").asText());
    assertEquals(700_000, f.get("length").asLong());
    assertEquals("0644", f.get("permission").asText());
    assertEquals(262144, f.get("layout").get("chunkSize").asLong());
    assertEquals(2, f.get("layout").get("targets").size());
    assertTrue(f.get("writer").isNull());
    assertEquals("DIRECTORY", arr.get(1).get("type").asText());

    JsonNode st = cli.ok("stat", "--json", dir + "/big.bin").json();
    assertEquals(f.get("id").asLong(), st.get("id").asLong());
    assertTrue(st.get("version").asLong() >= 1, st.toString());
    for (String field : List.of("path", "type", "id", "length", "version", "modificationTime",
        "accessTime", "owner", "group", "permission", "layout", "writer")) {
      assertTrue(st.has(field), field);
    }
    String stat = cli.ok("stat", dir + "/big.bin").out();
    assertTrue(stat.contains("length:      700000 (683.6 KiB)"), stat);
    assertTrue(stat.contains("raid6:4+2") && stat.contains("writer:      - (closed)"), stat);

    assertArrayEquals(data, cli.ok("cat", dir + "/big.bin").outBytes());
    Path back = local.resolve("back.bin");
    cli.ok("get", dir + "/big.bin", back.toString());
    assertArrayEquals(data, Files.readAllBytes(back));
    Path into = Files.createDirectories(local.resolve("into"));
    cli.ok("get", dir + "/sub/big.bin", into.toString());
    assertArrayEquals(data, Files.readAllBytes(into.resolve("big.bin")));

    CliRunner.Run du = cli.ok("du", "-s", "--json", dir);
    assertEquals(1_400_000, du.json().get(0).get("length").asLong());
    assertEquals(2, du.json().get(0).get("files").asLong());
    List<String> duLines = cli.ok("du", dir).out().lines().toList();
    assertEquals(List.of("700000  " + dir + "/big.bin", "700000  " + dir + "/sub"), duLines);

    cli.ok("mv", dir + "/big.bin", dir + "/moved.bin");
    cli.fails(3, "stat", dir + "/big.bin");
    cli.ok("mv", dir + "/moved.bin", dir + "/sub"); // into the directory
    assertEquals(700_000, cli.ok("stat", "--json", dir + "/sub/moved.bin").json()
        .get("length").asLong());

    cli.fails(1, "rm", dir + "/sub");
    cli.ok("rm", "-r", dir + "/sub");
    cli.fails(3, "ls", dir + "/sub");
    cli.ok("rm", "-f", dir + "/sub");
  }

  @Test
  void exitCodesAndErrorLines() throws Exception {
    String dir = BASE + "/errors";
    cli.ok("mkdir", dir);
    // 3: not found, with the one-line error form
    CliRunner.Run r = cli.fails(3, "stat", dir + "/nope");
    assertTrue(r.err().startsWith("parityfs: stat: " + dir + "/nope: NOT_FOUND: "), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    cli.fails(3, "mkdir", dir + "/a/b");            // parent missing without -p
    cli.fails(3, "put", local.resolve("missing").toString(), dir + "/x");
    cli.fails(3, "rm", dir + "/nope");
    // 4: already exists
    cli.fails(4, "mkdir", dir);
    Path small = Files.writeString(local.resolve("small.txt"), "hello\n");
    cli.ok("put", small.toString(), dir + "/small.txt");
    r = cli.fails(4, "put", small.toString(), dir + "/small.txt");
    assertTrue(r.err().startsWith("parityfs: put: " + dir + "/small.txt: ALREADY_EXISTS"),
        r.err());
    cli.ok("put", "-f", small.toString(), dir + "/small.txt");
    cli.fails(4, "get", dir + "/small.txt", small.toString());
    // 5: permission denied, as another user
    r = cli.fails(5, "--user", "alice", "--groups", "staff", "mkdir", dir + "/alice");
    assertTrue(r.err().contains("PERMISSION_DENIED"), r.err());
    cli.fails(5, "--user", "alice", "--groups", "staff", "rm", dir + "/small.txt");
    // 2: usage
    r = cli.fails(2, "ls", "--bogus");
    assertTrue(r.err().startsWith("parityfs: ls: Unknown option: '--bogus'"), r.err());
    cli.fails(2, "mv", dir);
    cli.fails(2, "setstripe", "--chunk-size", "5000", dir);
    cli.fails(2, "stat", "relative/path");
    cli.fails(2, "nosuchcommand");
    // 7: conflict, a file open for writing by another client
    try (ParityClient other = ParityClient.connect(SharedMiniCluster.get().clientConfig()
        .build(), Caller.of("root"))) {
      PfsOutputStream open = other.create(dir + "/open.bin", CreateOptions.file());
      r = cli.fails(7, "put", "-f", small.toString(), dir + "/open.bin");
      assertTrue(r.err().contains("LEASE_CONFLICT"), r.err());
      String writer = cli.ok("stat", "--json", dir + "/open.bin").json().get("writer").asText();
      assertFalse(writer.isEmpty());
      open.close();
    }
    // 1: other failures
    cli.fails(1, "cat", dir);
    cli.fails(1, "rm", dir);
    // several arguments: each reported, the first failure's code
    r = cli.fails(3, "stat", dir + "/nope1", dir + "/small.txt", dir + "/nope2");
    assertEquals(2, r.err().lines().count(), r.err());
    assertTrue(r.out().contains(dir + "/small.txt"));
  }

  @Test
  void namesWithControlCharactersArePrintedEscapedOneLineEachAndExactInJson() throws Exception {
    String dir = BASE + "/hostile";
    List<String> names = List.of("a\nfake-entry", "esc\u001b[31mred", "tab\there",
        "rtl\u202eexe.txt", "back\\slash");
    try (ParityClient c = ParityClient.connect(SharedMiniCluster.get().clientConfig().build(),
        Caller.of("root"))) {
      c.namespace().mkdirs(dir);
      for (String n : names) {
        c.namespace().create(dir + "/" + n, CreateOptions.file().withLease(false));
      }
    }
    List<String> expected = List.of(dir + "/a\\nfake-entry", dir + "/back\\\\slash",
        dir + "/esc\\033[31mred", dir + "/rtl\\342\\200\\256exe.txt", dir + "/tab\\there");
    assertEquals(expected, cli.ok("ls", dir).out().lines().toList());
    List<String> long_ = cli.ok("ls", "-l", dir).out().lines().toList();
    assertEquals(names.size(), long_.size(), String.join("|", long_));
    for (int i = 0; i < expected.size(); i++) {
      assertTrue(long_.get(i).endsWith(expected.get(i)), long_.get(i));
    }
    String stat = cli.ok("stat", dir + "/a\nfake-entry").out();
    assertTrue(stat.contains("path:        " + dir + "/a\\nfake-entry\n"), stat);
    CliRunner.Run missing = cli.fails(3, "stat", dir + "/no\nsuch");
    assertEquals(1, missing.err().lines().count(), missing.err());
    assertTrue(missing.err().startsWith("parityfs: stat: " + dir + "/no\\nsuch: NOT_FOUND"),
        missing.err());
    assertTrue(cli.ok("du", dir).out().lines().allMatch(l -> !l.contains("\u001b")));
    // JSON stays exact: the names come back as they are
    List<String> fromJson = new ArrayList<>();
    cli.ok("ls", "--json", dir).json().forEach(f -> fromJson.add(f.get("path").asText()));
    List<String> exact = new ArrayList<>();
    names.stream().sorted().forEach(n -> exact.add(dir + "/" + n));
    assertEquals(exact, fromJson);
  }

  @Test
  void recoverLeaseReleasesAFileALiveWriterStillHolds() throws Exception {
    String dir = BASE + "/leases";
    cli.ok("mkdir", dir);
    String path = dir + "/held.bin";
    byte[] acked = new byte[300_000]; // more than a chunk, acknowledged by hflush
    new Random(7).nextBytes(acked);
    try (ParityClient writer = ParityClient.connect(SharedMiniCluster.get().clientConfig()
        .build(), Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      out.write(acked);
      out.hflush();
      // a writer whose write failed holds the file like this: nothing else can take it
      Path small = Files.writeString(local.resolve("lease.txt"), "x");
      cli.fails(7, "put", "-f", small.toString(), path);

      CliRunner.Run r = cli.ok("recover-lease", path);
      assertTrue(r.out().startsWith(path + ": lease of "), r.out());
      assertTrue(r.out().contains("recovered; closed at"), r.out());
      JsonNode st = cli.ok("stat", "--json", path).json();
      assertTrue(st.get("writer").isNull(), st.toString());
      assertTrue(st.get("length").asLong() >= acked.length, st.toString());
      Path got = local.resolve("held.got");
      cli.ok("get", path, got.toString());
      byte[] back = Files.readAllBytes(got);
      assertArrayEquals(acked, java.util.Arrays.copyOf(back, acked.length), "acknowledged bytes");
      out.write(1);
      assertRevoked(out);
    }
    CliRunner.Run again = cli.ok("recover-lease", "--json", path);
    assertFalse(again.json().get("recovered").asBoolean(), again.out());
    assertTrue(again.json().get("closed").asBoolean(), again.out());
    assertTrue(cli.ok("recover-lease", path).out().contains("not open for writing"));
    cli.ok("put", "-f", local.resolve("lease.txt").toString(), path); // free to replace
    cli.fails(1, "recover-lease", dir); // IS_A_DIRECTORY
    cli.fails(3, "recover-lease", dir + "/missing");
  }

  /**
   * The revoked writer's close fails: the node refuses its last upload (writer fencing: its
   * generation is older than the recovery's), or, had it nothing left to upload, the namespace
   * refuses its commit (LEASE_EXPIRED).
   */
  private static void assertRevoked(PfsOutputStream out) {
    java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(
        java.io.IOException.class, out::close, "the revoked writer's close succeeded");
    boolean fenced = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      fenced |= t instanceof io.parityfs.client.FencedException;
    }
    assertTrue(fenced || String.valueOf(e.getMessage()).contains("LEASE_EXPIRED"), e.toString());
  }

  @Test
  void unreachableClusterIsSix() {
    CliRunner unreachable = new CliRunner("127.0.0.1:1");
    CliRunner.Run r = unreachable.fails(6, "--connect-timeout", "0.5", "ls", "/");
    assertTrue(r.err().startsWith("parityfs: ls: 127.0.0.1:1: UNAVAILABLE"), r.err());
  }

  @Test
  void helpListsTheExitCodes() {
    CliRunner.Run r = cli.ok("--help");
    assertTrue(r.out().contains("Exit codes:"), r.out());
    for (ExitStatus s : ExitStatus.values()) {
      String start = s.meaning().substring(0, Math.min(10, s.meaning().length()));
      assertTrue(r.out().contains(s.code() + "   " + start), s + ": " + r.out());
    }
    for (String c : List.of("ls", "stat", "put", "get", "cat", "mkdir", "rm", "mv", "du", "df",
        "setstripe", "getstripe", "nodes", "targets", "drives", "fail-drive", "replace-drive",
        "recover-lease",
        "rebuild", "scrub")) {
      assertTrue(r.out().contains("  " + c + " "), c);
    }
    cli.fails(2); // no command: usage, exit 2
  }

  @Test
  void setStripeGetStripeRoundTrip() {
    String dir = BASE + "/striped";
    cli.ok("mkdir", dir);
    cli.ok("setstripe", "--chunk-size", "1M", "--stripe-count", "1", "--protection", "raid6:4+2",
        "--pool", "default", dir);
    JsonNode d = cli.ok("getstripe", "--json", dir).json();
    assertEquals("DIRECTORY", d.get("type").asText());
    assertEquals(1 << 20, d.get("chunkSize").asLong());
    assertEquals(1, d.get("stripeCount").asInt());
    assertEquals("raid6:4+2", d.get("protection").asText());
    assertEquals("default", d.get("pool").asText());
    assertEquals(0, d.get("targets").size());

    // a new file inherits it
    cli.ok("put", "-", dir + "/empty"); // stdin: empty in tests
    JsonNode inherited = cli.ok("getstripe", "--json", dir + "/empty").json();
    assertEquals(1 << 20, inherited.get("chunkSize").asLong());
    assertEquals(1, inherited.get("targets").size());

    // setstripe of a missing path makes an empty file with that layout
    cli.ok("setstripe", "-S", "512K", "-c", "2", dir + "/wide");
    JsonNode wide = cli.ok("getstripe", "--json", dir + "/wide").json();
    assertEquals("FILE", wide.get("type").asText());
    assertEquals(512 << 10, wide.get("chunkSize").asLong());
    assertEquals(2, wide.get("targets").size());
    String text = cli.ok("getstripe", dir + "/wide").out();
    assertTrue(text.contains("chunk_size:   524288 (512.0 KiB)"), text);
    assertTrue(text.contains("ONLINE/GOOD"), text);
    // only the options given change
    cli.ok("setstripe", "--stripe-count", "2", dir);
    assertEquals(1 << 20, cli.ok("getstripe", "--json", dir).json().get("chunkSize").asLong());
    cli.fails(2, "setstripe", "--protection", "raid7:1+1", dir);
  }

  /**
   * {@code setstripe --across}: checked against the nodes the pool's targets are on, shown by
   * getstripe, placed on distinct nodes; mirror and ec files are written and read back.
   */
  @Test
  void setStripeAcrossNodes() throws Exception {
    String dir = BASE + "/across";
    cli.ok("mkdir", dir);
    CliRunner.Run r = cli.fails(2, "setstripe", "--across", "ec:2+1", dir);
    assertTrue(r.err().contains("ec:2+1 across nodes needs targets on 3 distinct nodes; pool"
        + " 'default' has targets on 2 nodes (2 targets)"), r.err());
    r = cli.fails(2, "setstripe", "--across", "ec:1+1", "--stripe-count", "1", dir);
    assertTrue(r.err().contains("stripe count (1) must be at least 2 for ec:1+1"), r.err());
    r = cli.fails(2, "setstripe", "--across", "raid6:4+2", dir);
    assertTrue(r.err().contains("must be none, mirror:N"), r.err());

    cli.ok("setstripe", "--across", "mirror:2", dir);
    JsonNode d = cli.ok("getstripe", "--json", dir).json();
    assertEquals("mirror:2", d.get("across").asText());
    assertEquals(2, d.get("stripeCount").asInt());
    assertTrue(cli.ok("getstripe", dir).out().contains("across:       mirror:2 (survives 1 node"
        + " lost; 2.00x the data across nodes)"));

    // an empty file made by setstripe is placed on distinct nodes
    cli.ok("setstripe", dir + "/empty");
    JsonNode f = cli.ok("getstripe", "--json", dir + "/empty").json();
    assertEquals("mirror:2", f.get("across").asText());
    Map<String, String> nodeOf = new HashMap<>();
    cli.ok("targets", "--json").json().forEach(t -> nodeOf.put(t.get("id").asText(),
        t.get("nodeId").asText()));
    assertEquals(2, f.get("targets").size());
    assertNotEquals(nodeOf.get(f.get("targets").get(0).asText()),
        nodeOf.get(f.get("targets").get(1).asText()));

    // mirror:2 is written (two copies), ec:1+1 too (a data and a parity chunk per group)
    Path src = local.resolve("across.bin");
    byte[] bytes = new byte[1000];
    new java.util.Random(17).nextBytes(bytes);
    Files.write(src, bytes);
    cli.ok("put", src.toString(), dir + "/m");
    Path back = local.resolve("across.back");
    cli.ok("get", dir + "/m", back.toString());
    assertArrayEquals(bytes, Files.readAllBytes(back));
    cli.ok("setstripe", "--across", "ec:1+1", dir);
    cli.ok("put", src.toString(), dir + "/e"); // a sequential writer: data and parity
    cli.ok("get", "-f", dir + "/e", back.toString());
    assertArrayEquals(bytes, Files.readAllBytes(back));
    assertEquals("ec:1+1", cli.ok("getstripe", "--json", dir + "/e").json().get("across")
        .asText());
    cli.ok("setstripe", "--across", "none", dir);
    cli.ok("put", src.toString(), dir + "/f");
    assertEquals("none", cli.ok("getstripe", "--json", dir + "/f").json().get("across")
        .asText());
  }

  @Test
  void setStripeRefusesWhatTheClusterDoesNotHaveNamingTheValue() {
    String dir = BASE + "/refused";
    cli.ok("mkdir", dir);
    String before = cli.ok("getstripe", "--json", dir).out();
    CliRunner.Run r = cli.fails(2, "setstripe", "--stripe-count", "1000", dir);
    assertTrue(r.err().contains("stripe count (1000) is more than the 2 targets of pool"
        + " 'default'"), r.err());
    r = cli.fails(3, "setstripe", "--pool", "nosuchpool", dir);
    assertTrue(r.err().contains("pool 'nosuchpool' has no targets (pools known: default)"),
        r.err());
    r = cli.fails(3, "setstripe", "--stripe-count", "1", "--targets", "no-such-target", dir);
    assertTrue(r.err().contains("layout names target no-such-target, which the target registry"
        + " does not know"), r.err());
    // issue 39 item 5: a protection no target of the pool has was accepted, and getstripe then
    // showed a protection the data did not have
    r = cli.fails(2, "setstripe", "--protection", "raid6:8+2", dir);
    assertTrue(r.err().contains("INVALID_ARGUMENT: protection (raid6:8+2) is not offered by any"
        + " target of pool 'default': its 2 targets offer raid6:4+2"), r.err());
    assertEquals(before, cli.ok("getstripe", "--json", dir).out(), "nothing was set");
    // a missing path: the same checks, and nothing is created
    cli.fails(2, "setstripe", "-c", "1000", dir + "/new");
    cli.fails(2, "setstripe", "-p", "mirror:3", dir + "/new");
    cli.fails(3, "setstripe", "--pool", "nosuchpool", dir + "/new");
    cli.fails(3, "stat", dir + "/new");
    // one target pinned, the rest placed: a new file and an existing empty one are writable
    String pinned = cli.ok("targets", "--json").json().get(1).get("id").asText();
    cli.ok("setstripe", "-c", "2", "--targets", pinned, dir + "/new");
    cli.ok("setstripe", "-c", "1", dir + "/empty"); // an empty file, never written
    cli.ok("setstripe", "-c", "2", "--targets", pinned, dir + "/empty");
    for (String f : List.of(dir + "/new", dir + "/empty")) {
      JsonNode l = cli.ok("getstripe", "--json", f).json();
      assertEquals(2, l.get("targets").size(), l.toString());
      assertEquals(pinned, l.get("targets").get(0).asText());
    }
  }

  @Test
  void clusterListings() {
    JsonNode df = cli.ok("df", "--json").json();
    assertEquals(2, df.get("total").get("targets").asInt());
    assertEquals(2, df.get("total").get("online").asInt());
    assertTrue(df.get("total").get("capacityBytes").asLong() > 0);
    assertEquals("default", df.get("pools").get(0).get("pool").asText());
    // the two nodes keep their drives on one disk (the test's temporary folder): it counts once
    long largest = 0;
    for (JsonNode t : cli.ok("targets", "--json").json()) {
      largest = Math.max(largest, t.get("capacityBytes").asLong());
    }
    assertEquals(largest, df.get("total").get("capacityBytes").asLong(), df.toString());
    assertEquals(largest, df.get("pools").get(0).get("capacityBytes").asLong(), df.toString());
    // raid6:4+2 inside: the drives hold 1.5 bytes per byte of size
    long size = df.get("total").get("capacityBytes").asLong();
    assertEquals(size * 1.5, df.get("total").get("rawBytes").asLong(), 2.0, df.toString());
    JsonNode root = df.get("root");
    assertEquals(root.get("across").asText(), cli.ok("getstripe", "--json", "/").json()
        .get("across").asText());
    double factor = root.get("acrossMediaFactor").asDouble();
    assertEquals((long) (df.get("pools").get(0).get("freeBytes").asLong() / factor),
        root.get("usableBytes").asLong(), df.toString());
    String dfText = cli.ok("df", "-h").out();
    assertTrue(dfText.startsWith("POOL") && dfText.contains("total") && dfText.contains("RAW")
        && dfText.contains("New files under / ("), dfText);

    JsonNode nodes = cli.ok("nodes", "--json").json();
    assertEquals(2, nodes.size());
    for (JsonNode n : nodes) {
      assertEquals("ONLINE", n.get("state").asText());
      assertTrue(n.get("address").asText().startsWith("127.0.0.1:"));
      assertNotNull(n.get("version").textValue(), n.toString());
    }
    assertEquals(3, cli.ok("nodes").out().lines().count());

    JsonNode targets = cli.ok("targets", "--json").json();
    assertEquals(2, targets.size());
    List<String> ids = new ArrayList<>();
    for (JsonNode t : targets) {
      assertEquals("ONLINE", t.get("reachability").asText());
      assertEquals("GOOD", t.get("consistency").asText());
      assertEquals("raid6:4+2", t.get("protection").asText());
      ids.add(t.get("id").asText());
    }
    String tt = cli.ok("targets").out();
    assertTrue(tt.startsWith("TARGET") && tt.contains(ids.get(0)), tt);

    JsonNode drives = cli.ok("drives", "--json", ids.get(0)).json();
    assertEquals("OPTIMAL", drives.get("state").asText());
    assertEquals(6, drives.get("drives").size());
    String dt = cli.ok("drives", ids.get(1).substring(0, 8)).out(); // a prefix will do
    assertTrue(dt.contains("OPTIMAL") && dt.contains("SLOT  STATE"), dt);
    cli.fails(3, "drives", "ffffffff-0000-0000-0000-000000000000");
    cli.fails(2, "drives", ""); // every id starts with "": ambiguous

    // something to scrub on both targets: three chunks over the root's two targets
    cli.stdin(new byte[600_000]).ok("put", "-", BASE + "/scrubbed.bin");
    cli.stdin(new byte[0]);
    CliRunner.Run scrub = cli.ok("scrub", ids.get(0), "--watch", "--interval", "0.2");
    assertTrue(scrub.out().contains("scrub: DONE"), scrub.out());
    JsonNode status = cli.ok("scrub", "--status", "--json", ids.get(0)).json();
    assertEquals("DONE", status.get("tasks").get(0).get("state").asText());
  }
}
