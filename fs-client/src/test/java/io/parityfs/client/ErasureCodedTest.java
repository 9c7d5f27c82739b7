package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.GroupCheck;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.RoundTag;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  /**
   * A writer of its own creates {@code path}, writes {@code n} bytes (content by {@code seed}),
   * hflushes and dies (its session ends, its lease with it); lease recovery closes the file.
   * Returns the bytes acknowledged.
   */
  private static byte[] hflushedByADeadWriter(String path, int n, long seed) throws Exception {
    byte[] data;
    try (ParityClient writer = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      PfsOutputStream w = writer.create(path, CreateOptions.file());
      data = content(n, w.file(), seed);
      w.write(data);
      w.hflush();
    } // the writer's session ends: its lease is dead
    assertTrue(client.recoverLease(path));
    return data;
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
        assertEquals(members, s.tag().count(), "data chunks in the round");
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
   * Audit C1 and H9: an hflush of a partial group stores copies of its changed chunks (on the
   * chunk's own target and the group's parity target, a copy tag) and never its parity; an
   * hflush or hsync with nothing written since stores nothing; close seals the group in one
   * round and deletes the copies.
   */
  @Test
  void anHflushStoresCopiesOfTheChangedChunksAndCloseSealsTheGroup() throws Exception {
    String path = "/e/unchanged";
    long first;
    FileStatus f;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      out.write(content(CHUNK + 10, out.file(), 5));
      out.hflush();
      f = client.namespace().getStatus(path);
      first = memberStat(f, 0, 0).sequence();
      assertTrue(memberStat(f, 0, 0).tag().isCopy(), "chunk 0 stored as a copy");
      assertEquals(first, copyStat(f, 0, 0).sequence(), "and copied to the parity target");
      assertEquals(first, copyStat(f, 0, 1).sequence(), "chunk 1 too, with the same tag");
      assertTrue(missing(() -> memberStat(f, 0, 2)), "no parity at hflush");
      out.hflush();
      out.hsync();
      assertEquals(first, memberStat(f, 0, 0).sequence(), "nothing stored again");
      assertEquals(first, copyStat(f, 0, 1).sequence(), "nothing stored again");
      out.write(new byte[] {1});
      out.hflush();
      assertEquals(first, memberStat(f, 0, 0).sequence(), "chunk 0 unchanged: not copied");
      assertTrue(copyStat(f, 0, 1).sequence() > first, "chunk 1 changed: copied again");
    }
    ChunkStat sealed = memberStat(f, 0, 0);
    assertEquals(2, sealed.tag().count(), "close sealed the group");
    assertEquals(sealed.sequence(), memberStat(f, 0, 1).sequence());
    assertEquals(sealed.sequence(), memberStat(f, 0, 2).sequence());
    assertTrue(missing(() -> copyStat(f, 0, 0)), "copies deleted after the seal");
    assertTrue(missing(() -> copyStat(f, 0, 1)), "copies deleted after the seal");
    assertEquals(CHUNK + 11, client.namespace().getStatus(path).length());
  }

  /** The stat of group {@code g}'s data chunk {@code j}'s copy on its (first) parity target. */
  static ChunkStat copyStat(FileStatus f, long g, int j) throws IOException {
    String target = memberTarget(f, g, 2);
    TargetInfo t = client.registry().target(target).orElseThrow();
    return client.nodes().stat(t.socketAddress(), TargetId.of(target),
        new ChunkId(f.id(), io.parityfs.meta.ChunkMap.of(f.layout()).memberIndex(g, j)));
  }

  interface Stat {
    ChunkStat get() throws IOException;
  }

  static boolean missing(Stat s) {
    try {
      s.get();
      return false;
    } catch (IOException e) {
      assertTrue(e.getMessage().contains("NOT_FOUND"), e.getMessage());
      return true;
    }
  }

  /**
   * Blocks the write of group {@code g}'s member {@code j} until {@code hold} opens (tests:
   * a round that cannot finish, as when the writer dies before that member lands).
   */
  private static void hold(FileStatus f, long g, int j, CountDownLatch hold) {
    String target = memberTarget(f, g, j);
    int index = io.parityfs.meta.ChunkMap.of(f.layout()).memberIndex(g, j);
    ChunkIo.MEMBER_WRITE_HOOK = (t, i) -> {
      if (t.equals(target) && i == index) {
        try {
          hold.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  /** Waits until group {@code g}'s parity carries a round of writer generation {@code gen}. */
  private static void awaitParity(FileStatus f, long g, long gen) {
    io.parityfs.testkit.Eventually.until("group " + g + "'s parity stored",
        java.time.Duration.ofSeconds(30), () -> {
          try {
            return memberStat(f, g, 2).generation() == gen;
          } catch (IOException e) {
            return false;
          }
        });
  }

  /** Reads {@code want.length} bytes from 0 with a new stream; fails the test if they differ. */
  private static void assertReads(String path, byte[] want, String what) throws IOException {
    try (PfsInputStream in = client.open(path, 0)) {
      byte[] b = new byte[want.length];
      in.readFully(0, ByteBuffer.wrap(b));
      assertArrayEquals(want, b, what);
    }
  }

  /**
   * Audit H1, as the audit states it: 300 bytes hflushed, then the next round of the group
   * torn after its parity landed (written here directly: the landed part of that round). With
   * chunk 0's node down no round of the group decodes, and the acknowledged bytes are read from
   * their copy on the parity target. Before copies, this read failed UNAVAILABLE, and the bytes
   * were lost with the node.
   */
  @Test
  void aTornRoundAfterAnHflushLeavesTheAcknowledgedBytesReadable() throws Exception {
    String path = "/e/h1";
    PfsOutputStream out = client.create(path, CreateOptions.file());
    try {
      FileStatus f = out.file();
      byte[] data = content(300, f, 31);
      out.write(data);
      out.hflush();
      String parity = memberTarget(f, 0, 2);
      TargetInfo t = client.registry().target(parity).orElseThrow();
      long round = memberStat(f, 0, 0).tag().round();
      client.nodes().writeChunk(t.socketAddress(), TargetId.of(parity), new ChunkId(f.id(),
          io.parityfs.meta.ChunkMap.of(f.layout()).memberIndex(0, 2)), 0, WriteMode.REPLACE, 0,
          f.generation(), new RoundTag(f.generation(), round + 1, 2).sequence(), ByteBuffer.wrap(content(CHUNK, f,
              32)));
      stopNodeOf(memberTarget(f, 0, 0));
      assertReads(path, data, "the acknowledged bytes, from their copy");
    } finally {
      restart();
      out.close();
    }
  }

  /**
   * Audit H1 (b) and H8: the round that stores a group once it fills, after an hflush of 300
   * bytes, cannot finish (chunk 1's write held) while its parity has landed; chunk 0's node
   * stops. The committed bytes are read from their copy at once: the reader neither fails nor
   * waits for the round.
   */
  @Test
  void aRoundInFlightAfterAnHflushNeverHidesTheCommittedBytes() throws Exception {
    String path = "/e/inflight";
    CountDownLatch release = new CountDownLatch(1);
    PfsOutputStream out = client.create(path, CreateOptions.file());
    try {
      FileStatus f = out.file();
      byte[] data = content(2 * CHUNK, f, 21);
      out.write(data, 0, 300);
      out.hflush(); // copies of chunk 0 (300 bytes) on its target and the parity target
      hold(f, 0, 1, release);
      PfsInputStream.ROUND_WAIT_HOOK = () -> {
        throw new AssertionError("the reader waited for a round");
      };
      out.write(data, 300, 2 * CHUNK - 300); // fills the group: its round, chunk 1 held
      awaitParity(f, 0, f.generation());
      stopNodeOf(memberTarget(f, 0, 0));
      assertReads(path, Arrays.copyOf(data, 300), "the committed bytes, round in flight");
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      PfsInputStream.ROUND_WAIT_HOOK = null;
      release.countDown();
      restart();
      out.close();
    }
  }

  /**
   * Audit H1 (c): close seals a group an hflush left in copies; the sealing round cannot
   * finish (chunk 1's write held) after its parity landed. With chunk 0's node down every
   * committed byte reads back, chunk 0 from its copy.
   */
  @Test
  void aTornSealAtCloseLeavesTheHflushedBytesReadable() throws Exception {
    String path = "/e/close-torn";
    CountDownLatch release = new CountDownLatch(1);
    PfsOutputStream out = client.create(path, CreateOptions.file());
    CompletableFuture<Void> closing = null;
    try {
      FileStatus f = out.file();
      byte[] data = content(CHUNK + 300, f, 41);
      out.write(data);
      out.hflush();
      hold(f, 0, 1, release);
      closing = CompletableFuture.runAsync(() -> {
        try {
          out.close();
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      awaitParity(f, 0, f.generation());
      stopNodeOf(memberTarget(f, 0, 0));
      assertReads(path, data, "every committed byte, the seal torn");
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      release.countDown();
      restart();
      if (closing != null) {
        closing.get(60, TimeUnit.SECONDS);
      } else {
        out.close();
      }
    }
  }

  /**
   * Audit H1 (d) and C4: an append into a closed file whose last group is partial copies the
   * group's committed content to the parity target first; its round then cannot finish. With
   * chunk 0's node down, the bytes closed long before still read back.
   */
  @Test
  void aTornRoundOfAnAppendLeavesTheClosedBytesReadable() throws Exception {
    String path = "/e/append-torn";
    byte[] closed;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      closed = content(300, out.file(), 51);
      out.write(closed);
    }
    CountDownLatch release = new CountDownLatch(1);
    PfsOutputStream out = client.append(path);
    try {
      FileStatus f = out.file();
      assertTrue(copyStat(f, 0, 0).tag().isCopy(), "copied before");
      assertEquals(f.generation(), copyStat(f, 0, 0).generation());
      hold(f, 0, 1, release);
      out.write(content(2 * CHUNK - 300, f, 52)); // fills the group: its round, chunk 1 held
      awaitParity(f, 0, f.generation());
      stopNodeOf(memberTarget(f, 0, 0));
      assertReads(path, closed, "the closed bytes");
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      release.countDown();
      restart();
      out.close();
    }
  }

  /**
   * Audit H8, the reader's last resort: a round in flight over a committed group without
   * copies (no writer of ours stores one now; written here directly): with chunk 0's node down
   * its parity has landed under a newer round, chunk 1 not yet, so no round has two members
   * and no copy exists. A reader of the committed bytes of the file, open for writing, waits
   * for the round instead of failing, and reads the bytes once chunk 1 lands.
   */
  @Test
  void aReadOfCommittedBytesWaitsForARoundInFlight() throws Exception {
    String path = "/e/inflight-direct";
    CountDownLatch waited = new CountDownLatch(1);
    byte[] data;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      data = content(2 * CHUNK, out.file(), 22);
      out.write(data);
    }
    PfsFileWriter w = client.openWriter(path); // holds the file open for writing
    try {
      FileStatus f = w.file();
      byte[] chunk1 = content(CHUNK, f, 23);
      ByteBuffer[] round = {ByteBuffer.wrap(data, 0, CHUNK), ByteBuffer.wrap(chunk1), null};
      ByteBuffer parity = client.chunks().groupCodec(f.layout().across())
          .encode(Arrays.copyOf(round, 2))[0];
      long sequence = new RoundTag(f.generation(), memberStat(f, 0, 0).tag().round() + 1000, 2)
          .sequence();
      writeDirect(f, 0, 2, sequence, parity);
      PfsInputStream.ROUND_WAIT_HOOK = waited::countDown;
      stopNodeOf(memberTarget(f, 0, 0));
      CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
        try (PfsInputStream in = client.open(path, 0)) {
          byte[] b = new byte[300];
          in.readFully(0, ByteBuffer.wrap(b));
          return b;
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      assertTrue(waited.await(30, TimeUnit.SECONDS), "the reader met the round and waited");
      writeDirect(f, 0, 1, sequence, ByteBuffer.wrap(chunk1)); // the round lands
      assertArrayEquals(Arrays.copyOf(data, 300), read.get(30, TimeUnit.SECONDS));
    } finally {
      PfsInputStream.ROUND_WAIT_HOOK = null;
      restart();
      w.close();
    }
  }

  /** Writes group {@code g}'s member {@code j} directly, as {@code f}'s writer, with a tag. */
  private static void writeDirect(FileStatus f, long g, int j, long sequence, ByteBuffer bytes)
      throws IOException {
    String target = memberTarget(f, g, j);
    TargetInfo t = client.registry().target(target).orElseThrow();
    client.nodes().writeChunk(t.socketAddress(), TargetId.of(target), new ChunkId(f.id(),
        io.parityfs.meta.ChunkMap.of(f.layout()).memberIndex(g, j)), 0, WriteMode.REPLACE, 0,
        f.generation(), sequence, bytes);
  }

  /**
   * A writer dies after an hflush: lease recovery closes the file with its last group in
   * copies (no round stored it). fsck finds it TAIL; the hand-off (fsck --repair, the keeper) seals it
   * from the copies (one round, a deterministic tag), and deletes the copies; every byte reads
   * back with any one node down.
   */
  @Test
  void aRecoveredFilesTailGroupIsSealedFromItsCopies() throws Exception {
    String path = "/e/tail";
    byte[] data = hflushedByADeadWriter(path, CHUNK + 300, 61);
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(data.length, f.length());
    GroupCheck.Report r = new GroupCheck(client).check(f);
    assertEquals(GroupCheck.State.TAIL, r.worst(), r.toString());
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(data, readWhole(path), "in copies, target " + victim + " down");
      restart();
    }
    assertTrue(r.findings().get(0).inCopies() && r.findings().get(0).unrecorded().isEmpty(),
        "sealed, never handed over through the record: " + r);
    Repairer.Outcome o = new Repairer(client).handOff(f, r).outcome(); // fsck --repair, the keeper's check
    assertEquals(1, o.repaired(), o.toString());
    FileStatus sealed = client.namespace().getStatus(path);
    assertTrue(sealed.repairs().isEmpty(), sealed.repairs().toString());
    assertEquals(GroupCheck.State.PROTECTED, new GroupCheck(client).check(sealed).worst());
    assertEquals(2, memberStat(f, 0, 2).tag().count(), "one round of 2 chunks");
    assertTrue(missing(() -> copyStat(sealed, 0, 0)), "copies deleted after the seal");
    assertTrue(missing(() -> copyStat(sealed, 0, 1)), "copies deleted after the seal");
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(data, readWhole(path), "sealed, target " + victim + " down");
      restart();
    }
  }

  /**
   * Found by the model test's 50-seed run (seed 4014): the mount's writer overwrites bytes
   * inside the length while chunk 0's node is down and flushes: its round is stored around
   * that node, but flush committed only when the length or the holes changed, so the member
   * left out never reached the file's repair record. With the node back, every other client
   * read chunk 0 from its own, stale member: the flushed bytes read as the old ones. A flush
   * commits whenever the record grew.
   */
  @Test
  void aFlushedOverwriteAroundADownNodeIsReadBackOnceItReturns() throws Exception {
    String path = "/e/overwrite-around";
    byte[] data;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      data = content(CHUNK + 100, out.file(), 99);
      out.write(data);
    }
    FileStatus f = client.namespace().getStatus(path);
    byte[] patch = content(100, f, 98);
    try (ParityClient writer = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      PfsFileWriter w = writer.openWriter(path);
      stopNodeOf(memberTarget(f, 0, 0));
      try {
        w.write(5000, patch, 0, patch.length);
        w.flush(); // acknowledged: the round around the stopped node, and its record
        System.arraycopy(patch, 0, data, 5000, patch.length);
        assertArrayEquals(data, readWhole(path), "flushed, chunk 0's node down");
      } finally {
        restart();
      }
      assertArrayEquals(data, readWhole(path), "flushed, chunk 0's node back, writer open");
      w.close();
    }
    assertArrayEquals(data, readWhole(path), "closed");
  }

  /**
   * Audit L2: lease recovery of an ec file marks it (its seal mark), and the keeper's next
   * round seals the groups the dead writer left in copies, without the hourly check; the mark
   * is cleared then. A mark on a file a new writer has taken is cleared without a seal (the
   * writer's own writes seal its groups).
   */
  @Test
  void leaseRecoveryMarksTheFileAndTheKeepersNextRoundSealsIt() throws Exception {
    String path = "/e/marked";
    byte[] data = hflushedByADeadWriter(path, 2 * CHUNK + 300, 97);
    FileStatus f = client.namespace().getStatus(path);
    assertTrue(client.namespace().filesToSeal().contains(
        new io.parityfs.meta.Namespace.ToSeal(f.id(), path, 1)),
        "marked from group 1 (group 0 filled: its round sealed it): "
        + client.namespace().filesToSeal());
    assertEquals(GroupCheck.State.TAIL, new GroupCheck(client).check(f).worst());
    try (io.parityfs.keeper.AcrossKeeper keeper = new io.parityfs.keeper.AcrossKeeper(client,
        java.time.Duration.ofHours(1), 0)) {
      keeper.runOnce(() -> true); // no group check configured: the mark alone leads to the seal
    }
    GroupCheck.Report r = new GroupCheck(client).check(client.namespace().getStatus(path));
    assertEquals(GroupCheck.State.PROTECTED, r.worst(), r.toString());
    assertTrue(client.namespace().filesToSeal().stream().noneMatch(m -> m.fileId() == f.id()),
        "mark cleared");
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(data, readWhole(path), "sealed by the keeper, target " + victim
          + " down");
      restart();
    }

    // a marked file a new writer took meanwhile: its mark goes, nothing is sealed under it
    String taken = "/e/marked-taken";
    try (ParityClient writer = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      PfsOutputStream w = writer.create(taken, CreateOptions.file());
      w.write(data, 0, 300);
      w.hflush();
    }
    assertTrue(client.recoverLease(taken));
    long id = client.namespace().getStatus(taken).id();
    try (PfsOutputStream appender = client.append(taken);
        io.parityfs.keeper.AcrossKeeper keeper = new io.parityfs.keeper.AcrossKeeper(client,
            java.time.Duration.ofHours(1), 0)) {
      keeper.runOnce(() -> true);
      assertTrue(client.namespace().filesToSeal().stream().noneMatch(m -> m.fileId() == id),
          "taken by a writer: mark cleared");
      appender.write(data, 300, 100);
    }
    assertArrayEquals(java.util.Arrays.copyOf(data, 400), readWhole(taken));
  }

  /**
   * Two keepers seal one group at once (issue 40 item 4): a dead writer's tail group is in
   * copies; keeper A's seal stops after its first member write, keeper B seals the whole group
   * and deletes the copies, then A goes on. Both write the same members under the same
   * deterministic tag, so the group ends as one complete round, every byte read with each node
   * down. Then a third keeper whose check predates an appender's round is fenced, never
   * writing its stale seal over the appender's group.
   */
  @Test
  void twoKeepersSealingOneGroupAtOnceLeaveOneRound() throws Exception {
    String path = "/e/two-sealers";
    byte[] data = hflushedByADeadWriter(path, CHUNK + 300, 95);
    FileStatus f = client.namespace().getStatus(path);
    GroupCheck.Report seen = new GroupCheck(client).check(f);
    assertEquals(GroupCheck.State.TAIL, seen.worst(), seen.toString());
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicReference<Thread> a = new java.util.concurrent.atomic
        .AtomicReference<>();
    java.util.concurrent.atomic.AtomicInteger aWrites = new java.util.concurrent.atomic
        .AtomicInteger();
    ChunkIo.MEMBER_WRITE_HOOK = (t, i) -> {
      if (Thread.currentThread() == a.get() && aWrites.incrementAndGet() == 2) {
        held.countDown();
        try {
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (ParityClient keeperA = cluster.client(io.parityfs.meta.Caller.of("root"));
        ParityClient keeperB = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      CompletableFuture<Repairer.HandOff> sealA = CompletableFuture.supplyAsync(() -> {
        a.set(Thread.currentThread());
        try {
          return new Repairer(keeperA).handOff(f, seen);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      assertTrue(held.await(30, TimeUnit.SECONDS), "keeper A wrote its first member");
      FileStatus now = client.namespace().getStatus(path);
      Repairer.HandOff b = new Repairer(keeperB).handOff(now, new GroupCheck(keeperB).check(now));
      assertEquals(1, b.outcome().repaired(), b.toString());
      release.countDown();
      Repairer.HandOff done = sealA.get(60, TimeUnit.SECONDS);
      assertEquals(1, done.outcome().repaired(), done.toString());
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      release.countDown();
    }
    FileStatus sealed = client.namespace().getStatus(path);
    GroupCheck.Report after = new GroupCheck(client).check(sealed);
    assertEquals(GroupCheck.State.PROTECTED, after.worst(), after.toString());
    assertTrue(missing(() -> copyStat(sealed, 0, 0)), "no copy left");
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(data, readWhole(path), "sealed twice, target " + victim + " down");
      restart();
    }

    // a keeper that checked the file before an appender took it: its seal is refused
    try (PfsOutputStream out = client.create(path + "-2", CreateOptions.file())) {
      out.write(data, 0, 300);
      out.hflush();
    }
    try (ParityClient writer = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      PfsOutputStream w = writer.append(path + "-2");
      w.write(data, 300, 200);
      w.hflush();
    }
    assertTrue(client.recoverLease(path + "-2"));
    FileStatus old = client.namespace().getStatus(path + "-2");
    GroupCheck.Report stale = new GroupCheck(client).check(old);
    assertEquals(GroupCheck.State.TAIL, stale.worst(), stale.toString());
    byte[] appended = content(700, old, 96);
    try (PfsOutputStream w = client.append(path + "-2")) {
      w.write(appended);
    }
    try (ParityClient late = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      Repairer.HandOff h = null;
      try {
        h = new Repairer(late).handOff(old, stale);
      } catch (IOException e) {
        // fenced or refused: the appender's round stands
      }
      assertTrue(h == null || h.outcome().repaired() == 0, String.valueOf(h));
    }
    byte[] want = java.util.Arrays.copyOf(data, 500 + appended.length);
    System.arraycopy(appended, 0, want, 500, appended.length);
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(want, readWhole(path + "-2"), "appended, target " + victim + " down");
      restart();
    }
  }

  /**
   * A cut never undone (audit D4's class, found by the model test, seed 4018): 300 bytes
   * hflushed, then the seal at close lands chunk 0's own member with 500 bytes but not the
   * parity, and the writer dies. Lease recovery ends the file at 300 (the copy on the parity
   * target holds 300). An appender takes the file, writes nothing and dies too, and the parity
   * target's node stops: the second recovery cannot ask the copy, and counting the own member's
   * 500 bytes gave the first writer's 200 cut bytes back. Bytes of a chunk past the committed
   * length count only where every copy of them can be asked.
   */
  @Test
  void aLaterLeaseRecoveryNeverCountsBytesAnEarlierOneCut() throws Exception {
    String path = "/e/cut-twice";
    byte[] acknowledged;
    try (ParityClient writer = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      PfsOutputStream w = writer.create(path, CreateOptions.file());
      FileStatus f = w.file();
      acknowledged = content(300, f, 91);
      w.write(acknowledged);
      w.hflush();
      w.write(content(200, f, 92));
      int parity = io.parityfs.meta.ChunkMap.of(f.layout()).memberIndex(0, 2);
      ChunkIo.MEMBER_WRITE_HOOK = (t, i) -> {
        if (i == parity) {
          throw new IllegalStateException("the writer died before the parity (test)");
        }
      };
      assertThrows(IOException.class, w::close, "the seal is torn");
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
    }
    assertTrue(client.recoverLease(path));
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(300, f.length(), "the copy holds 300");
    assertEquals(500, memberStat(f, 0, 0).length(), "the own member holds the torn seal's 500");
    try (ParityClient appender = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      appender.append(path); // takes the lease, writes nothing, dies
    }
    stopNodeOf(memberTarget(f, 0, 2));
    assertTrue(client.recoverLease(path));
    assertEquals(300, client.namespace().getStatus(path).length(), "the cut bytes stay cut");
    assertArrayEquals(acknowledged, readWhole(path), "parity node down");
    restart();
    assertArrayEquals(acknowledged, readWhole(path), "every node up");
  }

  /**
   * A round that holds more than the recovered length (audit P1): 300 bytes of chunk 1
   * hflushed, then the group's round lands chunk 0 and the parity but not chunk 1 (its write
   * fails), and the writer dies. Lease recovery ends the file inside chunk 1 (its own target
   * holds the 300 hflushed bytes), and the round's parity covers the whole chunk 1. Catch-up
   * of chunk 1 joins the round with the round's own bytes, not the 300 the length covers: with
   * chunk 0's node down, chunk 0 decodes from them and reads right (cut at 300 bytes, it read
   * wrong past its 300th byte).
   */
  @Test
  void catchUpJoinsARoundWithTheRoundsOwnBytes() throws Exception {
    String path = "/e/longer-round";
    byte[] data;
    FileStatus f;
    try (ParityClient writer = cluster.client(io.parityfs.meta.Caller.of("root"))) {
      PfsOutputStream w = writer.create(path, CreateOptions.file());
      f = w.file();
      data = content(2 * CHUNK, f, 91);
      w.write(data, 0, CHUNK + 300);
      w.hflush();
      String d1 = memberTarget(f, 0, 1);
      ChunkIo.MEMBER_WRITE_HOOK = (t, i) -> {
        if (t.equals(d1) && i == 1) {
          throw new IllegalStateException("chunk 1's write does not land (test)");
        }
      };
      w.write(data, CHUNK + 300, CHUNK - 300); // fills the group: its round, chunk 1 fails
      awaitRound(f, 0, 2, f.generation());
      awaitRound(f, 0, 0, f.generation());
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
    } // the writer's session ends: its lease is dead
    assertTrue(client.recoverLease(path));
    FileStatus r = client.namespace().getStatus(path);
    assertEquals(CHUNK + 300, r.length(), "ended inside chunk 1, at the hflushed bytes");
    GroupCheck.Report found = new GroupCheck(client).check(r);
    assertEquals(GroupCheck.State.UNDER_PROTECTED, found.worst(), found.toString());
    Repairer.HandOff h = new Repairer(client).handOff(r, found);
    assertEquals(1, h.outcome().repaired(), h.toString());
    assertEquals(GroupCheck.State.PROTECTED, new GroupCheck(client).check(
        client.namespace().getStatus(path)).worst());
    byte[] want = Arrays.copyOf(data, CHUNK + 300);
    for (int victim = 0; victim < 3; victim++) {
      stopNodeOf(f.layout().targets().get(victim));
      assertArrayEquals(want, readWhole(path), "target " + victim + " down");
      restart();
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
        new RoundTag(f.generation(), committed.tag().round() + 1, 2).sequence(),
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
        new RoundTag(f.generation(), committed.tag().round() + 1, 2).sequence(),
        ByteBuffer.wrap(content(CHUNK, f, 7)));
    FileStatus now = client.namespace().getStatus(path);
    now = client.namespace().damaged(path, f.id(), now.version(), now.generation(),
        io.parityfs.meta.Repairs.of(memberTarget(f, 0, 2), 0)); // the parity: in the record
    ChunkStat[] before = {memberStat(f, 0, 0), memberStat(f, 0, 1), memberStat(f, 0, 2)};
    Repairer.Outcome o = new Repairer(client).repair(path);
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
   * Audit H6 (the classic RAID write hole), and C5: the mount's writer rewrites chunk 1 of a
   * sealed group; the round that stores the group again lands its data but not its parity
   * (held). With chunk 0's node down, chunk 0's committed bytes, which the write did not
   * touch, read back from their copy (before, no round had two members: UNAVAILABLE), and
   * chunk 1 reads the same new bytes healthy and degraded.
   */
  @Test
  void aTornRoundOfARandomWriteLeavesTheUntouchedChunksReadable() throws Exception {
    String path = "/e/h6";
    byte[] data;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      data = content(2 * CHUNK, out.file(), 71);
      out.write(data);
    }
    CountDownLatch release = new CountDownLatch(1);
    PfsFileWriter w = client.openWriter(path);
    CompletableFuture<Void> flush = null;
    try {
      FileStatus f = w.file();
      byte[] patch = content(1000, f, 72);
      w.write(CHUNK + 5, patch, 0, patch.length);
      hold(f, 0, 2, release);
      flush = CompletableFuture.runAsync(() -> {
        try {
          w.flush();
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      awaitRound(f, 0, 1, f.generation());
      byte[] want = data.clone();
      System.arraycopy(patch, 0, want, CHUNK + 5, patch.length);
      byte[] healthy = new byte[CHUNK];
      try (PfsInputStream in = client.open(path, 0)) {
        in.readFully(CHUNK, ByteBuffer.wrap(healthy));
      }
      assertArrayEquals(Arrays.copyOfRange(want, CHUNK, 2 * CHUNK), healthy, "chunk 1, healthy");
      stopNodeOf(memberTarget(f, 0, 0));
      assertReads(path, want, "chunk 0 from its copy, chunk 1 as healthy");
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      release.countDown();
      restart();
      if (flush != null) {
        flush.get(60, TimeUnit.SECONDS);
      }
      w.close();
    }
  }

  /**
   * Audit H5: a truncate inside a sealed group; its cut round lands its data but not its
   * parity (held). With chunk 0's node down, the bytes before the cut read back from their
   * copy; and chunk 1, cut at its start by the other truncate, is deleted only after the
   * round and the commit (before, it went first).
   */
  @Test
  void aTornCutRoundOfATruncateLeavesTheKeptBytesReadable() throws Exception {
    String path = "/e/h5";
    byte[] data;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      data = content(2 * CHUNK, out.file(), 81);
      out.write(data);
    }
    CountDownLatch release = new CountDownLatch(1);
    PfsFileWriter w = client.openWriter(path);
    CompletableFuture<Void> truncate = null;
    try {
      FileStatus f = w.file();
      hold(f, 0, 2, release);
      truncate = CompletableFuture.runAsync(() -> {
        try {
          w.truncate(CHUNK + 100);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      awaitRound(f, 0, 1, f.generation());
      stopNodeOf(memberTarget(f, 0, 0));
      assertReads(path, Arrays.copyOf(data, CHUNK + 100), "the kept bytes, cut round torn");
    } finally {
      ChunkIo.MEMBER_WRITE_HOOK = null;
      release.countDown();
      restart();
      if (truncate != null) {
        truncate.get(60, TimeUnit.SECONDS);
      }
    }
    try {
      w.truncate(CHUNK); // group 0's second chunk goes after the round of [chunk 0]
      FileStatus f = w.file();
      assertTrue(missing(() -> memberStat(f, 0, 1)), "chunk 1 deleted after the commit");
      assertEquals(1, memberStat(f, 0, 2).tag().count(), "a round of chunk 0");
    } finally {
      w.close();
    }
    assertArrayEquals(Arrays.copyOf(data, CHUNK), readWhole(path));
  }

  /** Waits until group {@code g}'s member {@code j} carries a round (not a copy) of {@code gen}. */
  private static void awaitRound(FileStatus f, long g, int j, long gen) {
    io.parityfs.testkit.Eventually.until("member " + j + " of group " + g + " in a round",
        java.time.Duration.ofSeconds(30), () -> {
          try {
            ChunkStat s = memberStat(f, g, j);
            return s.generation() == gen && s.tagged() && !s.tag().isCopy();
          } catch (IOException e) {
            return false;
          }
        });
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
