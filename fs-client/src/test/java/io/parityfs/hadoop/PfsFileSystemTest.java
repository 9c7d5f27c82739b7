package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Layout;
import io.parityfs.testing.HeldEventThread;
import io.parityfs.testing.SharedMiniCluster;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the contract suites do not cover: pfs-specific behaviour of {@link PfsFileSystem}. */
class PfsFileSystemTest {
  static final int CHUNK = (int) SharedMiniCluster.ROOT_LAYOUT.chunkSize();
  static Configuration conf;
  static FileSystem fs;

  @BeforeAll
  static void open() throws IOException {
    conf = SharedMiniCluster.configuration();
    fs = FileSystem.newInstance(URI.create("pfs://mini/"), conf);
    fs.mkdirs(new Path("/fst"));
  }

  @AfterAll
  static void close() throws IOException {
    if (fs != null) {
      fs.delete(new Path("/fst"), true);
      fs.close();
    }
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static void write(FileSystem f, Path p, byte[] data) throws IOException {
    try (FSDataOutputStream out = f.create(p, true)) {
      out.write(data);
    }
  }

  @Test
  void serviceLoaderFindsTheSchemeAndHostPortAuthorityIsOneServer() throws IOException {
    assertEquals(PfsFileSystem.class, FileSystem.getFileSystemClass("pfs", new Configuration()));
    write(fs, new Path("/fst/seen"), new byte[] {1, 2, 3});
    URI direct = URI.create("pfs://" + SharedMiniCluster.get().connectString() + "/");
    try (FileSystem other = FileSystem.newInstance(direct, new Configuration())) {
      assertEquals(3, other.getFileStatus(new Path("/fst/seen")).getLen());
      assertEquals(URI.create("pfs://" + SharedMiniCluster.get().connectString()),
          other.getUri());
    }
  }

  /**
   * Close-to-open across clients (D12): {@code open} is not served a stale length from the
   * entry cache (its invalidating watch held back) after another client closed the file longer.
   */
  @Test
  void openSeesWhatAnotherClientClosedEvenWithAStaleEntryCache() throws Exception {
    Path p = new Path("/fst/c2o");
    byte[] first = "generation 1 of the other client".getBytes(StandardCharsets.UTF_8);
    byte[] second = "generation 2 of the other client, longer".getBytes(StandardCharsets.UTF_8);
    try (FileSystem other = FileSystem.newInstance(URI.create("pfs://mini/"), conf)) {
      write(other, p, first);
      assertEquals(first.length, fs.getFileStatus(p).getLen()); // cached here
      try (HeldEventThread held = HeldEventThread.hold(((PfsFileSystem) fs).client().curator())) {
        write(other, p, second);
        assertEquals(first.length, fs.getFileStatus(p).getLen(), "stale, as intended");
        AtomicReference<Object> got = new AtomicReference<>();
        Thread reader = new Thread(() -> {
          try (FSDataInputStream in = fs.open(p)) {
            got.set(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          } catch (IOException | RuntimeException e) {
            got.set(e);
          }
        });
        reader.start();
        HeldEventThread.awaitEndedOrWaiting(reader);
        held.close();
        reader.join();
        assertEquals(new String(second, StandardCharsets.UTF_8), got.get());
      }
    }
  }

  /** A name holding U+FFFD (a decoded name that was not UTF-8) is refused, not stored. */
  @Test
  void aNameThatWasNotUtf8IsRefused() throws IOException {
    Path bad = new Path("/fst/\uFFFD\uFFFDa");
    assertThrows(org.apache.hadoop.fs.InvalidPathException.class, () -> fs.create(bad).close());
    assertThrows(org.apache.hadoop.fs.InvalidPathException.class, () -> fs.mkdirs(bad));
  }

  @Test
  void unknownClusterNamesTheKeyToSet() {
    IOException e = assertThrows(IOException.class,
        () -> FileSystem.newInstance(URI.create("pfs://nosuch/"), new Configuration()));
    assertTrue(e.getMessage().contains("fs.pfs.cluster.nosuch.zookeeper"), e.getMessage());
  }

  @Test
  void stripedFileReadsBackWithBlockLocationsPerChunk() throws IOException {
    byte[] data = random(5 * CHUNK + 1234, 1);
    Path p = new Path("/fst/striped");
    write(fs, p, data);
    FileStatus st = fs.getFileStatus(p);
    assertEquals(data.length, st.getLen());
    assertEquals(CHUNK, st.getBlockSize());
    assertEquals(1, st.getReplication());

    BlockLocation[] all = fs.getFileBlockLocations(st, 0, st.getLen());
    assertEquals(6, all.length);
    for (int i = 0; i < all.length; i++) {
      assertEquals((long) i * CHUNK, all[i].getOffset());
      assertEquals(i < 5 ? CHUNK : 1234, all[i].getLength());
      assertEquals("127.0.0.1", all[i].getHosts()[0]);
    }
    // chunks alternate between the two targets (nodes)
    assertNotEquals(all[0].getNames()[0], all[1].getNames()[0]);
    assertEquals(all[0].getNames()[0], all[2].getNames()[0]);
    assertEquals(2, fs.getFileBlockLocations(p, CHUNK + 1, CHUNK).length);
    assertEquals(0, fs.getFileBlockLocations(p, data.length, 10).length);

    RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it = fs.listLocatedStatus(
        new Path("/fst"));
    boolean found = false;
    while (it.hasNext()) {
      var s = it.next();
      if (s.getPath().getName().equals("striped")) {
        found = true;
        assertEquals(6, s.getBlockLocations().length);
        assertInstanceOf(EtagSource.class, s);
      }
    }
    assertTrue(found);

    try (FSDataInputStream in = fs.open(p)) {
      byte[] back = new byte[data.length];
      in.readFully(0, back);
      assertArrayEquals(data, back);
      ByteBuffer direct = ByteBuffer.allocateDirect(3 * CHUNK);
      assertEquals(3 * CHUNK, in.read(CHUNK / 2, direct));
      direct.flip();
      byte[] mid = new byte[3 * CHUNK];
      direct.get(mid);
      assertArrayEquals(java.util.Arrays.copyOfRange(data, CHUNK / 2, CHUNK / 2 + 3 * CHUNK),
          mid);
      assertTrue(in.hasCapability(StreamCapabilities.PREADBYTEBUFFER));
      assertTrue(in.hasCapability(StreamCapabilities.UNBUFFER));
    }
  }

  /**
   * A layout's protection across nodes shows in the Hadoop status (mirror:N as replication N,
   * ec:K+M as isErasureCoded), and a create under it is refused (its data path is not built)
   * before any entry is made.
   */
  @Test
  void protectionAcrossNodesShowsInTheStatusAndBothAreWritten() throws IOException {
    PfsFileSystem pfs = (PfsFileSystem) fs;
    Layout two = new Layout(64 << 10, 2, List.of(), "raid6:4+2");
    pfs.client().namespace().mkdirs("/fst/ec", io.parityfs.meta.CreateOptions.directory()
        .withLayout(two.withAcross(Across.ec(1, 1))));
    pfs.client().namespace().mkdirs("/fst/mirror", io.parityfs.meta.CreateOptions.directory()
        .withLayout(two.withAcross(Across.mirror(2))));
    // entries made through the namespace alone (no data): what a status shows
    pfs.client().namespace().create("/fst/ec/empty", io.parityfs.meta.CreateOptions.file());
    pfs.client().namespace().create("/fst/mirror/empty", io.parityfs.meta.CreateOptions.file());
    FileStatus ec = fs.getFileStatus(new Path("/fst/ec/empty"));
    assertTrue(ec.isErasureCoded());
    assertEquals(1, ec.getReplication());
    FileStatus mirror = fs.getFileStatus(new Path("/fst/mirror/empty"));
    assertEquals(2, mirror.getReplication());
    assertFalse(mirror.isErasureCoded());
    assertFalse(fs.getFileStatus(new Path("/fst")).isErasureCoded());

    // both are written by Hadoop's (sequential) streams and read back
    for (String dir : new String[] {"/fst/ec", "/fst/mirror"}) {
      byte[] data = random(3 * CHUNK + 333, dir.length());
      try (FSDataOutputStream out = fs.create(new Path(dir + "/f"), true)) {
        out.write(data, 0, CHUNK + 1);
        out.hflush();
        out.write(data, CHUNK + 1, data.length - CHUNK - 1);
      }
      try (FSDataInputStream in = fs.open(new Path(dir + "/f"))) {
        byte[] back = new byte[data.length];
        in.readFully(0, back);
        assertArrayEquals(data, back, dir);
      }
    }
    FileStatus mirrored = fs.getFileStatus(new Path("/fst/mirror/f"));
    assertEquals(2, mirrored.getReplication());
    assertTrue(fs.getFileStatus(new Path("/fst/ec/f")).isErasureCoded());
    // a mirrored chunk is located on both copies' nodes, as HDFS lists replicas
    for (BlockLocation b : fs.getFileBlockLocations(mirrored, 0, mirrored.getLen())) {
      assertEquals(2, b.getNames().length, java.util.Arrays.toString(b.getNames()));
      assertNotEquals(b.getNames()[0], b.getNames()[1]);
    }
    assertEquals(1, fs.getFileBlockLocations(fs.getFileStatus(new Path("/fst/ec/f")), 0, 1)[0]
        .getNames().length);
  }

  @Test
  void checksumIsCrc32cOfTheBytesWhateverTheLayout() throws IOException {
    byte[] data = random(3 * CHUNK + 77, 2);
    Path a = new Path("/fst/sum-a");
    write(fs, a, data);
    PfsFileSystem pfs = (PfsFileSystem) fs;
    pfs.client().namespace().mkdirs("/fst/other-layout", io.parityfs.meta.CreateOptions
        .directory().withLayout(new Layout(64 << 10, 1, List.of(), "raid6:4+2")));
    Path b = new Path("/fst/other-layout/sum-b");
    write(fs, b, data);
    assertEquals(64 << 10, fs.getFileStatus(b).getBlockSize());

    FileChecksum ca = fs.getFileChecksum(a);
    FileChecksum cb = fs.getFileChecksum(b);
    assertEquals("COMPOSITE-CRC32C", ca.getAlgorithmName());
    assertEquals(ca, cb);
    CRC32C crc = new CRC32C();
    crc.update(data);
    assertArrayEquals(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array(), ca.getBytes());

    CRC32C prefix = new CRC32C();
    prefix.update(data, 0, 1000);
    assertArrayEquals(ByteBuffer.allocate(4).putInt((int) prefix.getValue()).array(),
        fs.getFileChecksum(a, 1000).getBytes());
    assertThrows(FileNotFoundException.class, () -> fs.getFileChecksum(new Path("/fst")));

    Configuration none = new Configuration(conf);
    none.set(PfsConfigKeys.CHECKSUM_ALGORITHM.name(), "NONE");
    try (FileSystem noSums = FileSystem.newInstance(URI.create("pfs://mini/"), none)) {
      assertNull(noSums.getFileChecksum(a));
      assertFalse(noSums.hasPathCapability(a, CommonPathCapabilities.FS_CHECKSUMS));
    }
  }

  @Test
  void xattrsRoundTripWithHdfsFlags() throws IOException {
    Path p = new Path("/fst/x");
    write(fs, p, new byte[1]);
    byte[] v = "v1".getBytes(StandardCharsets.UTF_8);
    fs.setXAttr(p, "user.a", v, EnumSet.of(XAttrSetFlag.CREATE));
    assertThrows(FileAlreadyExistsException.class,
        () -> fs.setXAttr(p, "user.a", v, EnumSet.of(XAttrSetFlag.CREATE)));
    IOException noSuch = assertThrows(IOException.class,
        () -> fs.setXAttr(p, "user.b", v, EnumSet.of(XAttrSetFlag.REPLACE)));
    assertFalse(noSuch instanceof FileNotFoundException, noSuch.toString());
    fs.setXAttr(p, "user.b", "v2".getBytes(StandardCharsets.UTF_8));
    assertArrayEquals(v, fs.getXAttr(p, "user.a"));
    Map<String, byte[]> all = fs.getXAttrs(p);
    assertEquals(2, all.size());
    assertEquals(List.of("user.a"), List.copyOf(fs.getXAttrs(p, List.of("user.a")).keySet()));
    assertThrows(IOException.class, () -> fs.getXAttrs(p, List.of("user.zz")));
    assertEquals(2, fs.listXAttrs(p).size());
    fs.removeXAttr(p, "user.a");
    assertEquals(List.of("user.b"), fs.listXAttrs(p));
    IOException missing = assertThrows(IOException.class, () -> fs.getXAttr(p, "user.a"));
    assertFalse(missing instanceof FileNotFoundException, missing.toString());
    IOException gone = assertThrows(IOException.class, () -> fs.removeXAttr(p, "user.a"));
    assertFalse(gone instanceof FileNotFoundException, gone.toString());
    assertThrows(FileNotFoundException.class, () -> fs.getXAttr(new Path("/fst/no"), "user.a"));
    assertThrows(FileNotFoundException.class,
        () -> fs.removeXAttr(new Path("/fst/no"), "user.a"));
    assertTrue(fs.hasPathCapability(p, CommonPathCapabilities.FS_XATTRS));
  }

  @Test
  void callerIsTheHadoopUserWithItsUmask() throws Exception {
    fs.mkdirs(new Path("/fst/shared"), new FsPermission((short) 0777));
    fs.setPermission(new Path("/fst/shared"), new FsPermission((short) 0777));
    UserGroupInformation alice = UserGroupInformation.createUserForTesting("alice",
        new String[] {"staff"});
    Configuration c = new Configuration(conf);
    c.set(FsPermission.UMASK_LABEL, "077");
    alice.doAs((PrivilegedExceptionAction<Void>) () -> {
      try (FileSystem af = FileSystem.newInstance(URI.create("pfs://mini/"), c)) {
        Path f = new Path("/fst/shared/alice.txt");
        write(af, f, new byte[] {42});
        FileStatus st = af.getFileStatus(f);
        assertEquals("alice", st.getOwner());
        assertEquals(0600, st.getPermission().toShort());
        assertThrows(AccessControlException.class, () -> af.mkdirs(new Path("/fst/not-hers/d")));
        assertThrows(AccessControlException.class, () -> af.delete(new Path("/fst/shared"), true));
      }
      return null;
    });
    Path secret = new Path("/fst/secret");
    write(fs, secret, new byte[] {1});
    fs.setPermission(secret, new FsPermission((short) 0600));
    alice.doAs((PrivilegedExceptionAction<Void>) () -> {
      try (FileSystem af = FileSystem.newInstance(URI.create("pfs://mini/"), conf)) {
        assertThrows(AccessControlException.class, () -> af.open(secret));
        assertEquals("root", af.getFileStatus(secret).getOwner());
      }
      return null;
    });
  }

  @SuppressWarnings("deprecation") // StreamCapabilities.HFLUSH
  @Test
  void hflushMakesBytesVisibleAndLeasesBehaveAsHdfs() throws Exception {
    Path p = new Path("/fst/open");
    try (FSDataOutputStream out = fs.create(p, true)) {
      assertTrue(out.hasCapability(StreamCapabilities.HFLUSH));
      out.write(random(1000, 3));
      out.hflush();
      assertEquals(1000, fs.getFileStatus(p).getLen());
      assertFalse(((LeaseRecoverable) fs).isFileClosed(p));
      try (FileSystem other = FileSystem.newInstance(URI.create("pfs://mini/"), conf)) {
        assertThrows(FileAlreadyExistsException.class, () -> other.append(p));
        try (FSDataInputStream in = other.open(p)) {
          assertEquals(1000, in.readNBytes(5000).length);
          out.write(new byte[500]);
          out.hflush();
          in.seek(1400); // past the length at open: a reader follows the writer's hflush
          assertEquals(100, in.readNBytes(5000).length);
        }
      }
    }
    assertTrue(((LeaseRecoverable) fs).isFileClosed(p));
    try (FSDataOutputStream out = fs.append(p)) {
      assertEquals(1500, out.getPos());
      out.write(new byte[24]);
    }
    assertEquals(1524, fs.getFileStatus(p).getLen());
    assertThrows(FileAlreadyExistsException.class, () -> fs.createNonRecursive(p, false, 4096,
        (short) 1, CHUNK, null));
    assertThrows(FileNotFoundException.class, () -> fs.createNonRecursive(
        new Path("/fst/nope/f"), false, 4096, (short) 1, CHUNK, null));
    try (FSDataOutputStream out = fs.createNonRecursive(p, FsPermission.getFileDefault(),
        EnumSet.of(CreateFlag.APPEND), 4096, (short) 1, CHUNK, null)) {
      out.write(new byte[1]);
    }
    assertEquals(1525, fs.getFileStatus(p).getLen());
  }

  @SuppressWarnings("deprecation") // FileSystem.getStatistics(scheme, class)
  @Test
  void statisticsCountBytesAndOperations() throws IOException {
    FileSystem.Statistics before = new FileSystem.Statistics(
        FileSystem.getStatistics("pfs", PfsFileSystem.class));
    Path p = new Path("/fst/stats");
    write(fs, p, new byte[4096]);
    try (FSDataInputStream in = fs.open(p)) {
      in.readNBytes(10_000);
    }
    FileSystem.Statistics after = FileSystem.getStatistics("pfs", PfsFileSystem.class);
    assertTrue(after.getBytesWritten() - before.getBytesWritten() >= 4096);
    assertTrue(after.getBytesRead() - before.getBytesRead() >= 4096);
    assertTrue(after.getWriteOps() > before.getWriteOps());
    assertTrue(after.getReadOps() > before.getReadOps());
  }

  @Test
  void openFileReadPolicyPicksTheReadAhead() throws Exception {
    Path p = new Path("/fst/policy");
    write(fs, p, random(2 * CHUNK, 4));
    try (FSDataInputStream in = fs.openFile(p)
        .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, "random")
        .build().get()) {
      assertEquals(0, ((HadoopInputStream) in.getWrappedStream()).readAheadBytes());
      assertEquals(7, in.read(CHUNK, new byte[7], 0, 7));
    }
    try (FSDataInputStream in = fs.openFile(p)
        .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, "unknown, sequential")
        .build().get()) {
      assertEquals(PfsConfigKeys.READ_AHEAD.defaultValue(),
          ((HadoopInputStream) in.getWrappedStream()).readAheadBytes());
    }
    assertThrows(IllegalArgumentException.class, () -> fs.openFile(p).must("fs.pfs.nope", "1")
        .build());
  }

  @Test
  void fileContextThroughPfs() throws IOException {
    FileContext fc = FileContext.getFileContext(URI.create("pfs://mini/"), conf);
    Path p = new Path("pfs://mini/fst/fc/file");
    try (FSDataOutputStream out = fc.create(p, EnumSet.of(CreateFlag.CREATE),
        Options.CreateOpts.createParent())) {
      out.write("fc".getBytes(StandardCharsets.UTF_8));
    }
    fc.rename(p, new Path("pfs://mini/fst/fc/renamed"));
    try (FSDataInputStream in = fc.open(new Path("pfs://mini/fst/fc/renamed"))) {
      assertEquals("fc", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    assertFalse(fc.util().exists(p));
  }

  @Test
  void serverDefaultsAndCapabilities() throws IOException {
    Path root = new Path("/");
    assertEquals(1, fs.getServerDefaults(root).getReplication());
    assertEquals(PfsConfigKeys.BLOCK_SIZE.defaultValue(), fs.getDefaultBlockSize(root));
    assertTrue(fs.hasPathCapability(root, CommonPathCapabilities.FS_APPEND));
    assertTrue(fs.hasPathCapability(root, CommonPathCapabilities.LEASE_RECOVERABLE));
    assertFalse(fs.hasPathCapability(root, CommonPathCapabilities.FS_CONCAT));
    assertTrue(fs.hasPathCapability(root, CommonPathCapabilities.FS_TRUNCATE));
    assertTrue(fs.getStatus().getCapacity() > 0);
    fs.msync();
    Path f = new Path("/fst/repl");
    write(fs, f, new byte[1]);
    assertTrue(fs.setReplication(f, (short) 3));
    assertEquals(1, fs.getFileStatus(f).getReplication());
    assertFalse(fs.setReplication(new Path("/fst"), (short) 3));
    assertThrows(FileNotFoundException.class, () -> fs.setReplication(new Path("/fst/no"),
        (short) 3));
  }

  /**
   * Issue 15 item 7: the shared cluster's nodes keep their drives on one disk (the test's
   * temporary folder), so {@code getStatus} counts it once, not once per node.
   */
  @Test
  void getStatusCountsADiskTheNodesShareOnce() throws IOException {
    java.util.List<io.parityfs.meta.targets.TargetInfo> targets =
        ((PfsFileSystem) fs).client().registry().targets();
    assertTrue(targets.size() >= 2, targets.toString());
    java.util.Set<java.util.Set<String>> disks = new java.util.HashSet<>();
    long largest = 0;
    for (io.parityfs.meta.targets.TargetInfo t : targets) {
      disks.add(t.fileSystems().keySet());
      largest = Math.max(largest, t.capacityBytes());
    }
    assertEquals(1, disks.size(), "every target on the one disk: " + targets);
    assertEquals(1, disks.iterator().next().size(), targets.toString());
    assertEquals(largest, fs.getStatus().getCapacity(), "the disk counted once");
  }

  @Test
  void truncateShortensClosedFilesOnly() throws Exception {
    Path f = new Path("/fst/trunc");
    byte[] data = random(2 * CHUNK + 99, 41);
    write(fs, f, data);
    assertTrue(fs.truncate(f, CHUNK + 5));
    assertEquals(CHUNK + 5, fs.getFileStatus(f).getLen());
    try (FSDataInputStream in = fs.open(f)) {
      assertArrayEquals(java.util.Arrays.copyOf(data, CHUNK + 5), in.readAllBytes());
    }
    // through FileContext (DelegateToFileSystem) too
    assertTrue(FileContext.getFileContext(URI.create("pfs://mini/"), conf).truncate(f, 3));
    assertEquals(3, fs.getFileStatus(f).getLen());
    assertThrows(org.apache.hadoop.HadoopIllegalArgumentException.class,
        () -> fs.truncate(f, 4));
    assertThrows(org.apache.hadoop.HadoopIllegalArgumentException.class,
        () -> fs.truncate(f, -1));
    assertThrows(FileNotFoundException.class, () -> fs.truncate(new Path("/fst/none"), 0));
    assertThrows(FileNotFoundException.class, () -> fs.truncate(new Path("/fst"), 0));
    try (FSDataOutputStream open = fs.append(f)) {
      IOException e = assertThrows(IOException.class, () -> fs.truncate(f, 0));
      assertTrue(e.getMessage().contains("LEASE_CONFLICT"), e.getMessage());
      open.write(7);
    }
    assertEquals(4, fs.getFileStatus(f).getLen());
  }
}
