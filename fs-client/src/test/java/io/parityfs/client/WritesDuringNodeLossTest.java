package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.AcrossKeeper;
import io.parityfs.keeper.GroupCheck;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.RoundTag;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes while a node is down (docs/across-nodes.md §3): a group whose member's target is down
 * is stored without it while enough members remain, the member goes in the file's repair
 * record with the commit, and no reader ever uses it, even once its node is back holding the
 * bytes of before. Every file's content is keyed by a seed per write, so the stale member's old
 * bytes would not compare equal; each test checks that the stale member does hold them.
 */
class WritesDuringNodeLossTest extends StripedClusterTest {
  static final Layout MIRRORED = STRIPED.withAcross(Across.mirror(2));
  static final Layout CODED = STRIPED.withAcross(Across.ec(2, 1));

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/m", CreateOptions.directory().withLayout(MIRRORED));
    client.namespace().mkdirs("/e", CreateOptions.directory().withLayout(CODED));
  }

  private static byte[] content(int n, FileStatus f, long seed) {
    return random(n, seed * 1_000_003L + f.generation());
  }

  /** Chunk {@code index} as stored on {@code target}, read from the target directly. */
  private static byte[] onTarget(FileStatus f, String target, int index) throws IOException {
    TargetInfo t = client.registry().target(target).orElseThrow();
    ByteBuffer dst = ByteBuffer.allocate(CHUNK);
    client.nodes().readChunk(t.socketAddress(), TargetId.of(target), new ChunkId(f.id(), index),
        0, dst);
    return Arrays.copyOf(dst.array(), dst.position());
  }

  private static byte[] readWhole(String path) throws IOException {
    try (PfsInputStream in = client.open(path)) {
      return readAll(in);
    }
  }

  /**
   * Overwrites chunk 1 of a mirrored file while the node of its first copy is down: the write
   * is acknowledged with one copy, the record names the other, and once the node is back (its
   * copy, the one readers try first, still the old bytes) every read returns the new bytes.
   */
  @Test
  void aMirrorCopyLeftOutIsRecordedAndNeverReadAfterItsNodeReturns() throws Exception {
    String path = "/m/overwritten";
    byte[] base;
    byte[] patch;
    String stale;
    try (PfsFileWriter w = client.createWriter(path, CreateOptions.file())) {
      base = content(3 * CHUNK, w.file(), 1);
      w.write(0, base, 0, base.length);
      w.flush();
      stale = ChunkIo.copyTargets(w.file().layout(), 1).get(0);
      stopNodeOf(stale);
      patch = content(CHUNK, w.file(), 2);
      w.write(CHUNK, patch, 0, CHUNK);
      w.flush();
      byte[] tail = content(CHUNK + 5, w.file(), 3);
      w.write(3 * CHUNK, tail, 0, tail.length); // chunks 3 and 4, some copies on the down node
      base = Arrays.copyOf(base, 4 * CHUNK + 5);
      System.arraycopy(tail, 0, base, 3 * CHUNK, tail.length);
    }
    System.arraycopy(patch, 0, base, CHUNK, CHUNK);
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(base.length, f.length());
    assertFalse(f.isOpenForWrite(), "closed: no writer saw an error");
    assertTrue(f.repairs().stale(stale, 1), "chunk 1's copy on " + stale + ": " + f.repairs());
    assertEquals(java.util.Set.of(stale), f.repairs().targets(), f.repairs().toString());
    assertArrayEquals(base, readWhole(path), "with the node down");
    Repairer.Outcome early = new Repairer(client).repair(path);
    assertEquals(0, early.repaired(), "nothing to store while the node is down");
    assertEquals(f.repairs().members(), early.waiting());
    assertEquals(f.repairs(), client.namespace().getStatus(path).repairs());

    restart();
    assertArrayEquals(Arrays.copyOfRange(base, 0, CHUNK), onTarget(f, stale, 0),
        "chunk 0 was stored before the node went down");
    assertFalse(Arrays.equals(patch, onTarget(f, stale, 1)),
        "the returned node's copy of chunk 1 is the old one (what a reader must not see)");
    try (ParityClient fresh = cluster.client(Caller.of("root"))) {
      try (PfsInputStream in = fresh.open(path)) {
        assertArrayEquals(base, readAll(in), "with the node back: the record steers reads");
      }
    }

    // catch-up: the copies left out are stored again, the record empties, and the copies
    // written then carry the file's bytes when the other copies' node is lost
    Repairer.Outcome done = new Repairer(client).repair(path);
    assertEquals(f.repairs().members(), done.repaired(), done.toString());
    assertEquals(0, done.waiting());
    FileStatus after = client.namespace().getStatus(path);
    assertTrue(after.repairs().isEmpty(), after.repairs().toString());
    assertEquals(f.version(), after.version(), "a repair changes no byte of the file");
    assertArrayEquals(patch, onTarget(f, stale, 1), "chunk 1's copy caught up");
    String other = ChunkIo.copyTargets(f.layout(), 1).get(1);
    stopNodeOf(other);
    assertArrayEquals(base, readWhole(path), "from the repaired copies, " + other + " down");
  }

  /**
   * The same for ec:2+1: a random write into group 0 while data chunk 0's node is down stores
   * the group from chunk 1 and the parity; with the node back (holding chunk 0's old bytes) a
   * reader decodes chunk 0 instead of reading it.
   */
  @Test
  void anEcMemberLeftOutIsDecodedNotReadAfterItsNodeReturns() throws Exception {
    String path = "/e/overwritten";
    byte[] base;
    String stale;
    try (PfsFileWriter w = client.createWriter(path, CreateOptions.file())) {
      base = content(4 * CHUNK, w.file(), 4);
      w.write(0, base, 0, base.length);
      w.flush();
      ChunkMap map = ChunkMap.of(w.file().layout());
      stale = w.file().layout().targets().get(map.memberPosition(0, 0));
      stopNodeOf(stale);
      byte[] patch = content(100_000, w.file(), 5);
      w.write(CHUNK / 2, patch, 0, patch.length); // inside data chunk 0, on the down node
      System.arraycopy(patch, 0, base, CHUNK / 2, patch.length);
    }
    FileStatus f = client.namespace().getStatus(path);
    assertTrue(f.repairs().stale(stale, 0), f.repairs().toString());
    assertArrayEquals(base, readWhole(path), "with the node down");

    restart();
    assertFalse(Arrays.equals(Arrays.copyOf(base, CHUNK), onTarget(f, stale, 0)),
        "the returned node's chunk 0 is the old one");
    try (ParityClient fresh = cluster.client(Caller.of("root"))) {
      try (PfsInputStream in = fresh.open(path)) {
        assertArrayEquals(base, readAll(in), "decoded from chunk 1 and the parity");
      }
      try (PfsInputStream in = fresh.open(path, 0)) {
        byte[] part = new byte[200_000];
        in.readFully(CHUNK / 2 - 50_000, ByteBuffer.wrap(part));
        assertArrayEquals(Arrays.copyOfRange(base, CHUNK / 2 - 50_000, CHUNK / 2 + 150_000),
            part, "a positional read of the patched range");
      }
    }

    // catch-up joins the member to its group's round; then chunk 1's node is lost and chunk 0,
    // read directly from the repaired member, and chunk 1, decoded with it, are the file's
    Repairer.Outcome done = new Repairer(client).repair(path);
    assertEquals(1, done.repaired(), done.toString());
    FileStatus after = client.namespace().getStatus(path);
    assertTrue(after.repairs().isEmpty(), after.repairs().toString());
    assertArrayEquals(Arrays.copyOf(base, CHUNK), onTarget(f, stale, 0), "chunk 0 caught up");
    ChunkMap map = ChunkMap.of(f.layout());
    String first = f.layout().targets().get(map.memberPosition(0, 1));
    stopNodeOf(first);
    assertArrayEquals(base, readWhole(path), "chunk 1 decoded with the repaired chunk 0");
  }

  /**
   * Catch-up of a group whose members carry an older writer generation (the file was appended
   * to since, its fence raised): the member joins that round with its exact tag (generation 0),
   * fenced as the file's generation 1 (audit N1). Before, the group was stored again whole as a
   * new round, replacing members of the only complete round while it went (audit H3).
   */
  @Test
  void catchUpAfterAnAppendJoinsTheOlderRoundWithItsTag() throws Exception {
    String path = "/e/appended";
    byte[] base;
    String stale;
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      base = content(3 * CHUNK, out.file(), 9);
      out.write(base, 0, CHUNK);
      out.hflush();
      ChunkMap map = ChunkMap.of(out.file().layout());
      stale = out.file().layout().targets().get(map.memberPosition(0, 1));
      stopNodeOf(stale);
      out.write(base, CHUNK, 2 * CHUNK); // group 0 whole without chunk 1, and chunk 2
    }
    restart();
    byte[] more;
    try (PfsOutputStream out = client.append(path)) {
      more = content(CHUNK + 3, out.file(), 10);
      out.write(more); // group 1 only: group 0 keeps generation 0's round
    }
    byte[] all = Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(1, f.generation());
    assertTrue(f.repairs().stale(stale, 0), f.repairs().toString());
    Repairer.Outcome done = new Repairer(client).repair(path);
    assertEquals(0, done.waiting(), done.toString());
    assertTrue(client.namespace().getStatus(path).repairs().isEmpty());
    ChunkMap map = ChunkMap.of(f.layout());
    RoundTag tag = null;
    for (int j = 0; j < 3; j++) {
      String t = f.layout().targets().get(map.memberPosition(0, j));
      TargetInfo info = client.registry().target(t).orElseThrow();
      io.parityfs.node.protocol.ChunkStat st = client.nodes().stat(info.socketAddress(),
          TargetId.of(t), new ChunkId(f.id(), map.memberIndex(0, j)));
      assertEquals(0, st.generation(), "member " + j + " of group 0 in its round: " + st);
      tag = tag == null ? st.tag() : tag;
      assertEquals(tag, st.tag(), "one round, member " + j);
    }
    assertArrayEquals(Arrays.copyOfRange(base, CHUNK, 2 * CHUNK), onTarget(f, stale, 1));
    stopNodeOf(f.layout().targets().get(map.memberPosition(0, 0)));
    assertArrayEquals(all, readWhole(path), "chunk 0 decoded with the repaired chunk 1");
  }

  /**
   * Sequential writers of both policies go on through a node's loss, hflush included; then a
   * writer that left members out dies, and lease recovery (its node back) closes the file at
   * least at the committed length, every byte as written.
   */
  @Test
  void streamsGoOnThroughANodeLossAndLeaseRecoveryKeepsEveryCommittedByte() throws Exception {
    for (String dirName : new String[] {"/m", "/e"}) {
      String path = dirName + "/stream";
      PfsOutputStream out = client.create(path, CreateOptions.file());
      byte[] data = content(9 * CHUNK + 777, out.file(), 6);
      out.write(data, 0, 2 * CHUNK);
      out.hflush();
      String victim = out.file().layout().targets().get(1);
      stopNodeOf(victim);
      out.write(data, 2 * CHUNK, 3 * CHUNK + 5);
      out.hflush();
      assertTrue(client.namespace().getStatus(path).repairs().targets().contains(victim),
          "the hflush committed the record with the length");
      out.write(data, 5 * CHUNK + 5, data.length - 5 * CHUNK - 5);
      out.close();
      FileStatus f = client.namespace().getStatus(path);
      assertEquals(data.length, f.length());
      assertArrayEquals(data, readWhole(path), path + " with the node down");
      restart();
      assertArrayEquals(data, readWhole(path), path + " with the node back");

      String crashed = dirName + "/crashed";
      long committed;
      byte[] more;
      try (ParityClient writer = cluster.client(Caller.of("root"))) {
        PfsOutputStream w = writer.create(crashed, CreateOptions.file());
        more = content(5 * CHUNK + 99, w.file(), 7);
        w.write(more, 0, CHUNK + 10);
        w.hflush();
        stopNodeOf(w.file().layout().targets().get(0));
        w.write(more, CHUNK + 10, 3 * CHUNK);
        w.hflush();
        committed = 4 * CHUNK + 10;
        w.write(more, 4 * CHUNK + 10, CHUNK + 89); // never flushed: the writer dies
      }
      restart();
      assertTrue(client.recoverLease(crashed));
      FileStatus r = client.namespace().getStatus(crashed);
      assertTrue(r.length() >= committed, crashed + ": recovered " + r.length()
          + " bytes, committed " + committed);
      try (PfsInputStream in = client.open(crashed)) {
        assertArrayEquals(Arrays.copyOf(more, (int) r.length()), readAll(in), crashed);
      }
    }
  }

  /**
   * A writer dies while one of its file's nodes is down: lease recovery closes the file without
   * waiting for the node (its members recorded for catch-up), every committed byte reads with
   * the node down, and once it is back a repair stores its members so that the file then reads
   * with another node down. For both policies.
   */
  @Test
  void leaseRecoveryClosesAFileWhileOneOfItsNodesIsDown() throws Exception {
    for (String dirName : new String[] {"/m", "/e"}) {
      String path = dirName + "/orphan";
      byte[] data;
      long committed;
      String victim;
      try (ParityClient writer = cluster.client(Caller.of("root"))) {
        PfsOutputStream w = writer.create(path, CreateOptions.file());
        data = content(4 * CHUNK + 300, w.file(), 11);
        w.write(data, 0, 2 * CHUNK + 300);
        w.hflush();
        committed = 2 * CHUNK + 300;
        // ec: the node of chunk 2, which holds 300 acknowledged bytes that only group 1's
        // new round (chunk 3 and parity) will decode while it is down
        victim = dirName.equals("/e") ? memberTarget(w.file(), 1, 0)
            : w.file().layout().targets().get(2);
        stopNodeOf(victim);
        w.write(data, (int) committed, 2 * CHUNK); // stored around the node, never committed
        if (dirName.equals("/e")) {
          awaitRoundAround(w.file(), 1, 2);
        }
      } // the writer's session ends: its lease is dead
      assertTrue(client.recoverLease(path), path + " recovered with " + victim + " down");
      FileStatus r = client.namespace().getStatus(path);
      assertFalse(r.isOpenForWrite());
      assertTrue(r.length() >= committed, path + ": " + r.length());
      assertTrue(r.repairs().targets().contains(victim), r.repairs().toString());
      byte[] want = Arrays.copyOf(data, (int) r.length());
      assertArrayEquals(want, readWhole(path), path + " with the node down");
      GroupCheck.Report down = new GroupCheck(client).check(r);
      assertEquals(dirName.equals("/e") ? GroupCheck.State.TORN
          : GroupCheck.State.UNDER_PROTECTED, down.worst(), down.toString());
      restart();
      if (dirName.equals("/e")) {
        // group 1, cut by the recovery inside its newest round (chunk 3 and the parity of 2
        // data chunks; chunk 2 never stored there), is torn: catch-up seals it at the length,
        // chunk 2 first (it takes nothing from that round), then the parity, then chunk 3 goes
        try (AcrossKeeper keeper = new AcrossKeeper(client, Duration.ofHours(1), 0)) {
          AcrossKeeper.Round round = keeper.runOnce(() -> true);
          assertEquals(0, round.filesNotCaughtUp(), round.toString());
          assertTrue(round.membersCaughtUp() >= 2, round.toString());
        }
      }
      Repairer.Outcome o = new Repairer(client).repair(path);
      assertEquals(0, o.waiting(), o.toString());
      assertTrue(client.namespace().getStatus(path).repairs().isEmpty());
      GroupCheck.Report caught = new GroupCheck(client).check(
          client.namespace().getStatus(path));
      assertEquals(GroupCheck.State.PROTECTED, caught.worst(), caught.toString());
      stopNodeOf(r.layout().targets().get(0));
      assertArrayEquals(want, readWhole(path), path + " after catch-up, another node down");
      restart();
    }
  }

  /**
   * Waits until members 1 and 2 (chunk 3 and the parity, for ec:2+1) of group {@code g} hold
   * one round of {@code f}'s writer with {@code count} data chunks: the group stored around
   * member 0's node, which is down.
   */
  private static void awaitRoundAround(FileStatus f, long g, int count) {
    Eventually.until("group " + g + " stored around member 0", Duration.ofSeconds(30), () -> {
      try {
        ChunkStat a = memberStat(f, g, 1);
        ChunkStat p = memberStat(f, g, 2);
        return a.tagged() && p.tagged() && a.generation() == f.generation()
            && p.generation() == f.generation() && a.sequence() == p.sequence()
            && a.tag().count() == count;
      } catch (IOException e) {
        return false;
      }
    });
  }

  /**
   * The cut group after lease recovery (docs/across-nodes.md §3): the writer stored group 1
   * around chunk 2's node and died uncommitted, so recovery's end falls inside group 1, whose
   * last round holds the acknowledged bytes of chunk 2 only through chunk 3 and the parity.
   * Recovery keeps chunk 3; the next writer, with the node still down, stores the group again
   * cut at the end, deletes chunk 3 and appends; every byte is read with the node down, after
   * it comes back and catches up, and with another node down.
   */
  @Test
  void aWriterAfterLeaseRecoveryStoresTheCutGroupAgainAroundTheDownNode() throws Exception {
    String path = "/e/cut";
    byte[] first;
    String victim;
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream w = writer.create(path, CreateOptions.file());
      first = content(4 * CHUNK + 300, w.file(), 12);
      w.write(first, 0, 2 * CHUNK + 300);
      w.hflush();
      victim = memberTarget(w.file(), 1, 0);
      stopNodeOf(victim);
      w.write(first, 2 * CHUNK + 300, 2 * CHUNK);
      awaitRoundAround(w.file(), 1, 2);
    }
    assertTrue(client.recoverLease(path));
    FileStatus r = client.namespace().getStatus(path);
    assertEquals(2 * CHUNK + 300, r.length(), "chunk 2 down: the end is the committed length");
    assertEquals(r.generation() - 1, memberStat(r, 1, 1).generation(),
        "chunk 3, past the end, kept: the last round of group 1 needs it");
    byte[] want = Arrays.copyOf(first, (int) r.length());
    assertArrayEquals(want, readWhole(path), "recovered, chunk 2's node down");

    PfsOutputStream out = client.append(path);
    FileStatus a = out.file();
    byte[] more = content(CHUNK / 2, a, 13); // keyed by the appender's generation
    ChunkStat recut = memberStat(a, 1, 2);
    assertEquals(a.generation(), recut.generation(), "group 1's parity stored again: " + recut);
    assertEquals(1, recut.tag().count(), "one data chunk in the cut round");
    NodeException gone = assertThrows(NodeException.class, () -> memberStat(a, 1, 1));
    assertEquals(Status.NOT_FOUND, gone.status(), "chunk 3 deleted: " + gone.getMessage());
    out.write(more);
    out.close();
    byte[] whole = Arrays.copyOf(want, want.length + more.length);
    System.arraycopy(more, 0, whole, want.length, more.length);
    assertArrayEquals(whole, readWhole(path), "appended, chunk 2's node still down");
    restart();
    Repairer.Outcome o = new Repairer(client).repair(path);
    assertEquals(0, o.waiting(), o.toString());
    FileStatus done = client.namespace().getStatus(path);
    assertTrue(done.repairs().isEmpty(), done.repairs().toString());
    stopNodeOf(memberTarget(done, 1, 2));
    assertArrayEquals(whole, readWhole(path), "after catch-up, the parity's node down");
  }

  /** With fewer members than a group needs (ec:2+1 with two nodes down), the write fails. */
  @Test
  void tooFewMembersFailTheWriteAndCommitNothing() throws Exception {
    String path = "/e/too-few";
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      byte[] data = content(4 * CHUNK, out.file(), 8);
      out.write(data, 0, 2 * CHUNK);
      out.hflush();
      cluster.stopNode(1);
      cluster.stopNode(2);
      try {
        out.write(data, 2 * CHUNK, 2 * CHUNK);
        IOException e = assertThrows(IOException.class, out::hflush);
        assertTrue(e.getMessage().contains("fewer than the 2 a write needs"), e.getMessage());
        assertEquals(2 * CHUNK, writer.namespace().getStatus(path).length(),
            "the committed length is the last hflush's");
      } finally {
        cluster.restartNode(1);
        cluster.restartNode(2);
        cluster.awaitTargets(3);
      }
    }
  }
}
