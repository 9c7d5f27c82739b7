package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ec:2+1} across nodes on three RAID-6 nodes (docs/across-nodes.md §3–4): each group of
 * two data chunks gets a parity chunk, the three on three nodes, all with one group tag per
 * round; a reader decodes a chunk whose node is down from the other two; hflush of a partial
 * group and append resume a group; and a writer that died between a group's data and its parity
 * never makes a degraded reader combine members of two rounds: it reads the committed bytes or
 * fails DATA_LOST, never other bytes. Content is keyed by the writer generation.
 */
class ErasureCodedTest extends StripedClusterTest {
  static final Layout CODED = STRIPED.withAcross(Across.ec(2, 1));

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/e", CreateOptions.directory().withLayout(CODED));
  }

  private static byte[] content(int n, FileStatus f, long seed) {
    return random(n, seed * 1_000_003L + f.generation());
  }

  private static byte[] readWhole(String path) throws IOException {
    try (PfsInputStream in = client.open(path)) {
      return readAll(in);
    }
  }

  @Test
  void groupsAreStoredWithOneTagAndEveryNodeCanBeLost() throws Exception {
    String path = "/e/ckpt";
    byte[] data;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      data = content(6 * CHUNK + 4321, out.file(), 1);
      out.write(data, 0, 3 * CHUNK + 10);
      out.hflush(); // group 1 partial: chunk 2 full, chunk 3 with 10 bytes
      out.write(data, 3 * CHUNK + 10, data.length - 3 * CHUNK - 10);
    }
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(data.length, f.length());
    assertTrue(client.open(path).file().layout().across().isErasureCoded());
    for (long g = 0; g < 4; g++) {
      Set<String> nodes = new HashSet<>();
      ChunkStat first = null;
      int members = g == 3 ? 1 : 2; // chunk 6 alone in the last group
      for (int j : g == 3 ? new int[] {0, 2} : new int[] {0, 1, 2}) {
        nodes.add(client.registry().target(memberTarget(f, g, j)).orElseThrow().nodeId());
        ChunkStat s = memberStat(f, g, j);
        assertTrue(s.tagged(), "member " + j + " of group " + g + ": " + s);
        if (first == null) {
          first = s;
        }
        assertEquals(first.sequence(), s.sequence(), "group " + g + " is one round");
        assertEquals(f.generation(), s.generation());
        assertEquals(members, GroupReads.count(s.sequence()), "data chunks in the round");
      }
      assertEquals(g == 3 ? 2 : 3, nodes.size(), "group " + g + " on distinct nodes");
    }
    assertArrayEquals(data, readWhole(path), "healthy");
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(data, readWhole(path), "with target " + victim + "'s node down");
      try (PfsInputStream in = client.open(path, 0)) {
        byte[] part = new byte[CHUNK + 2000];
        in.readFully(5 * CHUNK - 1000, ByteBuffer.wrap(part));
        assertArrayEquals(Arrays.copyOfRange(data, 5 * CHUNK - 1000, 6 * CHUNK + 1000), part,
            "a positional read across chunks 4, 5 and 6, target " + victim + " down");
      }
      restart();
    }
  }

  /**
   * Audit H9: an hflush, hsync or close with nothing written since the last round stores no new
   * round (the same bytes again under a newer tag only widen the window of a torn round).
   */
  @Test
  void aFlushOfAnUnchangedGroupStoresNoNewRound() throws Exception {
    String path = "/e/unchanged";
    long first;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      out.write(content(CHUNK + 10, out.file(), 5));
      out.hflush();
      FileStatus f = client.namespace().getStatus(path);
      first = memberStat(f, 0, 0).sequence();
      out.hflush();
      out.hsync();
      assertEquals(first, memberStat(f, 0, 0).sequence(), "no new round");
      assertEquals(first, memberStat(f, 0, 2).sequence(), "no new round");
      out.write(new byte[] {1});
      out.hflush();
      assertTrue(memberStat(f, 0, 0).sequence() > first, "a changed group: a new round");
      first = memberStat(f, 0, 0).sequence();
    }
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(first, memberStat(f, 0, 0).sequence(), "close of an unchanged group");
    assertEquals(CHUNK + 11, f.length());
  }

  /**
   * Audit H8: with chunk 0's node down, a reader of the committed bytes of a file being written
   * meets the group's next round in flight (its parity landed, its data member not yet): no
   * round has two members then. The reader waits for the round instead of failing. The data
   * member's write is held until the reader has waited once, so the order is the same every run.
   */
  @Test
  void aReadOfCommittedBytesWaitsForARoundInFlight() throws Exception {
    String path = "/e/inflight";
    java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch waited = new java.util.concurrent.CountDownLatch(1);
    PfsOutputStream out = client.create(path, CreateOptions.file());
    try {
      FileStatus f = out.file();
      byte[] data = content(2 * CHUNK, f, 21);
      out.write(data, 0, 300);
      out.hflush(); // round 1: chunk 0 (300 bytes) and the parity
      String d1 = memberTarget(f, 0, 1);
      int d1Index = io.parityfs.meta.ChunkMap.of(f.layout()).memberIndex(0, 1);
      long first = memberStat(f, 0, 2).sequence();
      ChunkIo.MEMBER_WRITE_HOOK = (target, index) -> {
        if (target.equals(d1) && index == d1Index) {
          try {
            hold.await(60, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      };
      PfsInputStream.ROUND_WAIT_HOOK = waited::countDown;
      stopNodeOf(memberTarget(f, 0, 0));
      out.write(data, 300, 2 * CHUNK - 300); // fills the group: round 2, chunk 1 held
      io.parityfs.testkit.Eventually.until("round 2's parity stored",
          java.time.Duration.ofSeconds(30), () -> {
            try {
              return memberStat(f, 0, 2).sequence() != first;
            } catch (IOException e) {
              return false;
            }
          });
      java.util.concurrent.CompletableFuture<byte[]> read =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (PfsInputStream in = client.open(path)) {
              byte[] b = new byte[300];
              in.readFully(0, java.nio.ByteBuffer.wrap(b));
              return b;
            } catch (IOException e) {
              throw new java.util.concurrent.CompletionException(e);
            }
          });
      assertTrue(waited.await(30, java.util.concurrent.TimeUnit.SECONDS),
          "the reader met the round in flight and waited");
      hold.countDown();
      assertArrayEquals(Arrays.copyOf(data, 300), read.get(30,
          java.util.concurrent.TimeUnit.SECONDS));
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      PfsInputStream.ROUND_WAIT_HOOK = null;
      hold.countDown();
      out.close();
    }
  }

  @Test
  void appendResumesTheOpenGroup() throws Exception {
    String path = "/e/appended";
    byte[] first;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      first = content(2 * CHUNK + 777, out.file(), 2); // group 1 holds 777 bytes of chunk 2
      out.write(first);
    }
    byte[] second;
    try (PfsOutputStream out = client.append(path)) {
      second = content(CHUNK + 5, out.file(), 3); // fills chunk 2, starts chunk 4 (group 2)
      out.write(second);
    }
    byte[] all = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, all, first.length, second.length);
    assertArrayEquals(all, readWhole(path));
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(f.generation(), memberStat(f, 1, 0).generation(), "group 1 rewritten whole");
    assertEquals(memberStat(f, 1, 0).sequence(), memberStat(f, 1, 2).sequence());
    stopNodeOf(memberTarget(f, 1, 0)); // chunk 2: decoded from chunk 3 and the parity
    assertArrayEquals(all, readWhole(path));
  }

  /**
   * A writer that died between a group's data and its parity: chunk 1 of group 0 was stored
   * again under a newer round (other bytes), its parity was not. Chunk 1's node down: chunk 1 is
   * decoded from chunk 0 and the parity of the committed round. Chunk 0's node down instead: the
   * only members left are of two rounds, so the read fails (UNAVAILABLE: chunk 0 comes back with
   * its node); it never combines them.
   */
  @Test
  void aWriterDeadBetweenDataAndParityNeverMixesRounds() throws Exception {
    String path = "/e/torn";
    byte[] data;
    FileStatus f;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      data = content(2 * CHUNK, out.file(), 4);
      out.write(data);
      f = out.file();
    }
    ChunkStat committed = memberStat(f, 0, 1);
    // the torn round: chunk 1 alone, newer sequence, other bytes
    String target1 = memberTarget(f, 0, 1);
    TargetInfo t1 = client.registry().target(target1).orElseThrow();
    byte[] newer = content(CHUNK, f, 5);
    client.nodes().writeChunk(t1.socketAddress(), TargetId.of(target1), new ChunkId(f.id(), 1),
        0, WriteMode.REPLACE, 0, f.generation(),
        GroupReads.sequence((committed.sequence() >>> GroupReads.COUNT_BITS) + 1, 2),
        ByteBuffer.wrap(newer));

    stopNodeOf(target1);
    try (PfsInputStream in = client.open(path, 0)) {
      byte[] chunk1 = new byte[CHUNK];
      in.readFully(CHUNK, ByteBuffer.wrap(chunk1));
      assertArrayEquals(Arrays.copyOfRange(data, CHUNK, 2 * CHUNK), chunk1,
          "chunk 1 decoded from the committed round, not the torn one");
    }
    restart();

    stopNodeOf(memberTarget(f, 0, 0));
    try (PfsInputStream in = client.open(path, 0)) {
      IOException e = assertThrows(IOException.class,
          () -> in.readFully(0, ByteBuffer.allocate(CHUNK)));
      // chunk 0's node may come back: UNAVAILABLE, and never the torn round's bytes
      assertEquals(ClientStatus.UNAVAILABLE, ClientStatus.of(e), e.toString());
      assertTrue(e.getMessage().contains("no 2 members of one tag"), e.getMessage());
    }
  }

  /**
   * Audit H3: catch-up of a member of a torn group (two rounds, neither with all members)
   * writes nothing and reports the group. Before, it stored the whole group again as a new
   * round, replacing the members of the committed round while it went.
   */
  @Test
  void catchUpOfATornGroupWritesNothingAndReportsIt() throws Exception {
    String path = "/e/torn-repair";
    FileStatus f;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      out.write(content(2 * CHUNK, out.file(), 6));
      f = out.file();
    }
    ChunkStat committed = memberStat(f, 0, 1);
    String target1 = memberTarget(f, 0, 1);
    TargetInfo t1 = client.registry().target(target1).orElseThrow();
    client.nodes().writeChunk(t1.socketAddress(), TargetId.of(target1), new ChunkId(f.id(), 1),
        0, WriteMode.REPLACE, 0, f.generation(),
        GroupReads.sequence((committed.sequence() >>> GroupReads.COUNT_BITS) + 1, 2),
        ByteBuffer.wrap(content(CHUNK, f, 7)));
    FileStatus now = client.namespace().getStatus(path);
    now = client.namespace().damaged(path, f.id(), now.version(), now.generation(),
        io.parityfs.meta.Repairs.of(memberTarget(f, 0, 2), 0)); // the parity: in the record
    ChunkStat[] before = {memberStat(f, 0, 0), memberStat(f, 0, 1), memberStat(f, 0, 2)};
    Repairer.Outcome o = client.repair(path);
    assertEquals(0, o.repaired(), o.toString());
    assertEquals(1, o.waiting(), o.toString());
    assertTrue(o.skipped() != null && o.skipped().contains("groups [0] are torn"), o.toString());
    for (int j = 0; j < 3; j++) {
      assertEquals(before[j], memberStat(f, 0, j), "member " + j + " untouched");
    }
    assertEquals(GroupCheck.State.UNRECOVERABLE, new GroupCheck(client).check(
        client.namespace().getStatus(path)).worst());
  }

  /**
   * A random-access writer (the mount's) rewrites whole groups in rounds: an overwrite across a
   * group boundary, a truncate inside a group and one to a group's start; every byte reads back
   * healthy and with each node down, and the parity of the groups past the end is gone.
   */
  @Test
  void randomWritesAndTruncateRewriteWholeGroups() throws Exception {
    String path = "/e/random";
    byte[] want;
    FileStatus f;
    try (PfsFileWriter w = client.createWriter(path, CreateOptions.file())) {
      f = w.file();
      byte[] base = content(7 * CHUNK + 500, f, 6); // groups 0..3
      w.write(0, base, 0, base.length);
      w.flush();
      byte[] patch = content(CHUNK, f, 7);
      w.write(2 * CHUNK - CHUNK / 2, patch, 0, patch.length); // chunks 1 and 2: groups 0 and 1
      System.arraycopy(patch, 0, base, 2 * CHUNK - CHUNK / 2, patch.length);
      w.flush();
      w.truncate(5 * CHUNK + 123); // inside chunk 5: group 2 keeps chunk 4 and a bit of 5
      w.truncate(4 * CHUNK); // group 2's start: group 2 is gone
      want = Arrays.copyOf(base, 4 * CHUNK);
    }
    assertArrayEquals(want, readWhole(path));
    for (long g = 0; g < 2; g++) {
      assertEquals(memberStat(f, g, 0).sequence(), memberStat(f, g, 2).sequence(),
          "group " + g + "'s data and parity are of one round");
    }
    for (long g = 2; g < 4; g++) {
      long group = g;
      IOException gone = assertThrows(IOException.class, () -> memberStat(f, group, 2));
      assertTrue(gone.getMessage().contains("NOT_FOUND"), gone.getMessage());
    }
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(want, readWhole(path), "with target " + victim + "'s node down");
      restart();
    }
  }
}
