package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * One writer per file, tied to its ZooKeeper session: leases granted by create and append,
 * kept across renames, dropped by delete and complete, lost with the session, recovered.
 */
class LeaseTest extends ZkFixture {
  NamespaceConfig config;
  Namespace ns;
  CuratorFramework writerClient;
  Namespace writer;

  @BeforeEach
  void open() throws Exception {
    config = config();
    ns = Namespace.open(client, config);
    // a short session, so that a killed session's ephemerals go within the test's patience
    writerClient = newClient(4_000);
    writer = Namespace.open(writerClient, config);
  }

  @AfterEach
  void close() {
    writer.close();
    writerClient.close();
  }

  static NamespaceStatus fails(Executable op) {
    return assertThrows(NamespaceException.class, op).status();
  }

  private int openRecords() throws Exception {
    int n = 0;
    ZNodes zn = new ZNodes(config.root());
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      n += client.getChildren().forPath(zn.leaseShard(i)).size();
    }
    return n;
  }

  @Test
  void createHoldsTheLeaseUntilComplete() throws Exception {
    FileStatus f = writer.create("/f", CreateOptions.file());
    assertTrue(f.isOpenForWrite());
    assertTrue(f.writer().contains("@"), f.writer());
    assertFalse(ns.isFileClosed("/f"));
    assertEquals(1, openRecords());
    // readers see the length as of the last hflush
    FileStatus s = writer.setLength("/f", f.id(), 0, 4096);
    assertEquals(4096, ns.getStatus("/f").length());
    // one writer per file
    assertEquals(NamespaceStatus.LEASE_CONFLICT, fails(() -> ns.append("/f")));
    assertEquals(NamespaceStatus.LEASE_CONFLICT,
        fails(() -> ns.create("/f", CreateOptions.file().withOverwrite(true))));
    assertEquals(NamespaceStatus.LEASE_EXPIRED, fails(() -> ns.setLength("/f", f.id(), -1, 1)));
    FileStatus done = writer.complete("/f", f.id(), s.version(), 8192);
    assertFalse(done.isOpenForWrite());
    assertEquals(8192, ns.getStatus("/f").length());
    assertTrue(ns.isFileClosed("/f"));
    assertEquals(0, openRecords());
    // a closed file takes no more commits, and reopens by append only
    assertEquals(NamespaceStatus.LEASE_EXPIRED,
        fails(() -> writer.setLength("/f", f.id(), -1, 1)));
    FileStatus a = ns.append("/f");
    assertEquals(8192, a.length());
    assertTrue(a.isOpenForWrite());
    assertEquals(NamespaceStatus.LEASE_CONFLICT, fails(() -> writer.append("/f")));
    ns.complete("/f", a.id(), -1, 9000);
    writer.sync(); // another session's write: visible after sync (see the consistency notes)
    assertEquals(9000, writer.getStatus("/f").length());
    assertEquals(0, openRecords());
  }

  /**
   * A commit whose entry is current but whose lease's session marker is gone fails at once
   * with LEASE_EXPIRED. Before, the refused check made the commit retry its optimistic loop
   * 200 times and report "CONFLICT: gave up after 200 attempts under contention" with one
   * writer and no contention (issue 39, item 6's message): a re-read of the entry cannot bring
   * a marker back.
   */
  @Test
  void aCommitWhoseSessionMarkerIsGoneFailsAtOnceAsExpired() throws Exception {
    FileStatus f = writer.create("/gone", CreateOptions.file());
    writer.setLength("/gone", f.id(), -1, 4096);
    ZNodes zn = new ZNodes(config.root());
    client.delete().forPath(zn.sessionMarker(writerClient.getZookeeperClient().getZooKeeper()
        .getSessionId()));
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> writer.setLength("/gone", f.id(), -1, 8192));
    assertEquals(NamespaceStatus.LEASE_EXPIRED, e.status(), e.getMessage());
    assertTrue(e.getMessage().contains("session"), e.getMessage());
    e = assertThrows(NamespaceException.class,
        () -> writer.complete("/gone", f.id(), -1, 8192));
    assertEquals(NamespaceStatus.LEASE_EXPIRED, e.status(), e.getMessage());
    assertEquals(4096, ns.getStatus("/gone").length(), "nothing committed without the lease");
  }

  /**
   * Issue 39, item 6 (PfsFileSystemTest.truncateShortensClosedFilesOnly: "CONFLICT: gave up
   * after 200 attempts under contention", one writer). A round of lease recovery (the cluster
   * manager's, every 30 s in a mini cluster) lists every open record first and reads each
   * file's entry afterwards. A file closed and opened again by another session in between (the
   * test's truncate through FileContext is a second client) looked stale: its listed record
   * named the first session, its entry the second's lease, and the round deleted the record at
   * that path, which was by then the new writer's. That writer's close could then never delete
   * its record: 200 attempts before 791d785, LEASE_EXPIRED "the lease was recovered" since,
   * and the file stayed open for good. The session marker was never gone.
   *
   * <p>The interleaving is made exactly: the round recovers a dead writer's file first (a
   * lower shard), and its length probe is where the other file is closed and opened again.
   */
  @Test
  void recoveryNeverDropsTheOpenRecordOfAFileReopenedSinceItsListing() throws Exception {
    // ids one at a time from the counter: the dead file's shard comes before the other's
    NamespaceConfig sequential = config.toBuilder().idBlock(1).build();
    CuratorFramework deadClient = newClient(4_000);
    CuratorFramework secondClient = newClient(4_000);
    try {
      Namespace dead = Namespace.open(deadClient, sequential);
      Namespace first = Namespace.open(writerClient, sequential);
      Namespace second = Namespace.open(secondClient, sequential);
      Namespace manager = Namespace.open(client, sequential);
      FileStatus d = dead.create("/dead", CreateOptions.file());
      FileStatus t = first.create("/t", CreateOptions.file());
      assertTrue((d.id() & 0xff) < (t.id() & 0xff), d.id() + " then " + t.id());
      ZNodes zn = new ZNodes(sequential.root());
      client.delete().forPath(zn.sessionMarker(deadClient.getZookeeperClient().getZooKeeper()
          .getSessionId())); // the dead writer's session ended: its lease is to be recovered
      AtomicInteger probed = new AtomicInteger();
      FileStatus[] reopened = new FileStatus[1];
      LengthProbe probe = file -> {
        assertEquals(d.id(), file.id(), "only the dead writer's file is recovered");
        if (probed.getAndIncrement() == 0) {
          // after the round listed /t's record (the first writer's), before it reads /t
          try {
            first.complete("/t", t.id(), -1, 10);
            reopened[0] = second.append("/t");
          } catch (NamespaceException e) {
            throw new java.io.IOException(e);
          }
        }
        return 0;
      };
      assertEquals(1, manager.recoverExpiredLeases(probe), "the dead writer's file");
      assertEquals(1, probed.get());
      assertTrue(manager.getStatus("/t").isOpenForWrite());
      assertEquals(1, openRecords(), "the second writer's record is still there");
      byte[] record = client.getData().forPath(zn.openRecord(t.id()));
      // the close that failed in the fs-client test: it deletes the record in its multi
      FileStatus closed = second.complete("/t", reopened[0].id(), -1, 7);
      assertFalse(closed.isOpenForWrite());
      assertEquals(7, manager.getStatus("/t").length());
      assertEquals(0, openRecords());
      // a record its file does not back (as older code left them) still goes
      client.create().forPath(zn.openRecord(t.id()), record);
      assertEquals(0, manager.recoverExpiredLeases(probe));
      assertEquals(0, openRecords(), "a stale record is dropped");
      assertEquals(1, probed.get());
      dead.close();
      first.close();
      second.close();
      manager.close();
    } finally {
      deadClient.close();
      secondClient.close();
    }
  }

  @Test
  void closedCreateTakesNoLease() throws Exception {
    FileStatus f = ns.create("/empty", CreateOptions.file().withLease(false));
    assertFalse(f.isOpenForWrite());
    assertEquals(0, openRecords());
    assertEquals(NamespaceStatus.LEASE_EXPIRED, fails(() -> ns.complete("/empty", f.id(), -1, 1)));
  }

  @Test
  void leaseFollowsRenamesAndGoesWithDelete() throws Exception {
    writer.mkdirs("/a/b");
    FileStatus f = writer.create("/a/b/f", CreateOptions.file());
    writer.rename("/a/b/f", "/a/b/g"); // the file itself: its open record moves in the multi
    ns.rename("/a", "/z");             // a directory above it: the record stays valid
    // the writer commits through the open record, whatever path it still believes in
    assertEquals(10, writer.setLength("/a/b/f", f.id(), -1, 10).length());
    assertEquals(10, ns.getStatus("/z/b/g").length());
    // recovery finds the file through its record, wherever it moved
    KillSession.kill(writerClient.getZookeeperClient().getZooKeeper());
    awaitDead();
    assertEquals(1, ns.recoverExpiredLeases(file -> 77));
    FileStatus g = ns.getStatus("/z/b/g");
    assertEquals(77, g.length());
    assertFalse(g.isOpenForWrite());
    assertEquals(0, openRecords());
    // a file deleted while open loses its record in the delete's multi; its writer is told
    FileStatus h = ns.create("/z/h", CreateOptions.file());
    assertEquals(1, openRecords());
    assertTrue(ns.delete("/z", true));
    assertEquals(0, openRecords());
    assertEquals(NamespaceStatus.NOT_FOUND, fails(() -> ns.complete("/z/h", h.id(), -1, 1)));
  }

  @Test
  void sessionExpiryDuringAWriteReleasesTheLease() throws Exception {
    FileStatus f = writer.create("/ckpt", CreateOptions.file());
    writer.setLength("/ckpt", f.id(), -1, 1 << 20);
    KillSession.kill(writerClient.getZookeeperClient().getZooKeeper());
    awaitDead();
    // the writer's next commit is refused: its new session does not hold the lease
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> retryUnavailable(() -> writer.setLength("/ckpt", f.id(), -1, 2 << 20)));
    assertEquals(NamespaceStatus.LEASE_EXPIRED, e.status(), e.getMessage());
    // nobody else may write until the lease is recovered
    assertEquals(NamespaceStatus.LEASE_CONFLICT, fails(() -> ns.append("/ckpt")));
    // recovery never hides a hole under the synced length (see the DATA_MISSING test)
    assertTrue(ns.recoverLease("/ckpt", file -> 1 << 20));
    FileStatus r = ns.getStatus("/ckpt");
    assertEquals(1 << 20, r.length());
    assertFalse(r.isOpenForWrite());
    assertTrue(ns.recoverLease("/ckpt", file -> 0)); // already closed
    assertTrue(ns.append("/ckpt").isOpenForWrite());
  }

  @Test
  void recoveryLeavesLiveWritersAloneButRecoverLeaseRevokes() throws Exception {
    FileStatus f = writer.create("/live", CreateOptions.file());
    assertEquals(0, ns.recoverExpiredLeases(file -> 5));
    assertTrue(ns.getStatus("/live").isOpenForWrite());
    AtomicInteger probed = new AtomicInteger();
    assertTrue(ns.recoverLease("/live", file -> {
      probed.incrementAndGet();
      assertEquals(f.id(), file.id());
      return 5;
    }));
    assertEquals(1, probed.get());
    assertEquals(5, ns.getStatus("/live").length());
    assertEquals(NamespaceStatus.LEASE_EXPIRED,
        fails(() -> writer.complete("/live", f.id(), -1, 10)));
    assertEquals(5, ns.getStatus("/live").length());
  }

  @Test
  void probeFailureLeavesTheFileOpen() throws Exception {
    writer.create("/p", CreateOptions.file());
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> ns.recoverLease("/p", file -> {
          throw new java.io.IOException("target t1 unreachable");
        }));
    assertEquals(NamespaceStatus.UNAVAILABLE, e.status());
    assertTrue(e.getMessage().contains("t1 unreachable"), e.getMessage());
    assertTrue(ns.getStatus("/p").isOpenForWrite());
    assertEquals(1, openRecords());
  }

  /**
   * Item 3 of issue 15: a committed length the targets do not hold (probe < committed) is
   * refused with DATA_MISSING, loudly, and the file stays open with its record, neither closed
   * at the committed length (a hole readers would trip on) nor at the stored one (acknowledged
   * bytes silently dropped). Once the chunks are back (a node returns) recovery succeeds.
   */
  @Test
  void recoveryRefusesACommittedLengthTheTargetsDoNotHold() throws Exception {
    FileStatus f = writer.create("/hole", CreateOptions.file());
    writer.setLength("/hole", f.id(), -1, 3 << 20);
    KillSession.kill(writerClient.getZookeeperClient().getZooKeeper());
    awaitDead();
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> ns.recoverLease("/hole", file -> 1 << 20));
    assertEquals(NamespaceStatus.DATA_MISSING, e.status(), e.getMessage());
    assertTrue(e.getMessage().contains(String.valueOf(1 << 20))
        && e.getMessage().contains(String.valueOf(3 << 20)), e.getMessage());
    assertEquals(0, ns.recoverExpiredLeases(file -> 1 << 20), "the chore refuses it too");
    FileStatus still = ns.getStatus("/hole");
    assertTrue(still.isOpenForWrite(), "the file stays open");
    assertEquals(3 << 20, still.length(), "the committed length is kept");
    assertEquals(1, openRecords());
    assertEquals(NamespaceStatus.LEASE_CONFLICT, fails(() -> ns.append("/hole")));
    assertTrue(ns.recoverLease("/hole", file -> 3 << 20), "recovers once the bytes are there");
    assertFalse(ns.getStatus("/hole").isOpenForWrite());
    assertEquals(3 << 20, ns.getStatus("/hole").length());
  }

  /**
   * D10: one dead writer's file whose targets cannot answer must not keep the others open; it
   * is skipped with a backoff (1 round, then 2) and recovered once its targets answer.
   */
  @Test
  void oneUnprobeableFileDoesNotStopTheRecoveryOfTheOthers() throws Exception {
    FileStatus stuck = writer.create("/stuck", CreateOptions.file());
    FileStatus fine = writer.create("/fine", CreateOptions.file());
    writer.setLength("/fine", fine.id(), -1, 7);
    KillSession.kill(writerClient.getZookeeperClient().getZooKeeper());
    awaitDead();
    AtomicInteger stuckProbes = new AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean down =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    LengthProbe probe = file -> {
      if (file.id() == stuck.id()) {
        stuckProbes.incrementAndGet();
        if (down.get()) {
          throw new java.io.IOException("target t9 unreachable");
        }
        return 0;
      }
      return 7;
    };
    assertEquals(1, ns.recoverExpiredLeases(probe), "the other file is recovered");
    assertFalse(ns.getStatus("/fine").isOpenForWrite());
    assertEquals(7, ns.getStatus("/fine").length());
    assertTrue(ns.getStatus("/stuck").isOpenForWrite());
    assertEquals(1, stuckProbes.get());
    assertEquals(0, ns.recoverExpiredLeases(probe), "backing off: round skipped");
    assertEquals(1, stuckProbes.get());
    assertEquals(0, ns.recoverExpiredLeases(probe), "tried again, fails again");
    assertEquals(2, stuckProbes.get());
    down.set(false);
    assertEquals(0, ns.recoverExpiredLeases(probe)); // skip 1 of 2
    assertEquals(0, ns.recoverExpiredLeases(probe)); // skip 2 of 2
    assertEquals(1, ns.recoverExpiredLeases(probe), "recovered once its targets answer");
    assertFalse(ns.getStatus("/stuck").isOpenForWrite());
  }

  /**
   * The writer generation (fencing, issue 15 item 2): 0 at create, +1 at every append and every
   * lease recovery, kept across length commits and close; an inode record of schema 1 (before
   * generations) reads as generation 0, and every record written is schema 2.
   */
  @Test
  void everyLeaseEpochHasItsOwnWriterGeneration() throws Exception {
    FileStatus f = writer.create("/gen", CreateOptions.file());
    assertEquals(0, f.generation());
    writer.setLength("/gen", f.id(), -1, 10);
    assertEquals(0, writer.complete("/gen", f.id(), -1, 10).generation());
    FileStatus a = writer.append("/gen");
    assertEquals(1, a.generation());
    assertEquals(1, ns.getStatus("/gen").generation());
    assertTrue(ns.recoverLease("/gen", file -> {
      assertEquals(1, file.generation(), "probed at the writer's generation");
      return 10;
    }));
    assertEquals(2, ns.getStatus("/gen").generation(), "recovery fences at a new one");
    assertEquals(3, ns.append("/gen").generation());

    Inode i = Inode.newFile(5, 1, CreateOptions.file(), new Layout(1 << 20, 1, java.util.List.of(
        "t1"), "raid6:4+2"), null).withNextGeneration();
    String json = new String(InodeCodec.encode(i), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"schema\":2,") && json.endsWith(",\"generation\":1}"), json);
    String old = json.replace("{\"schema\":2,", "{\"schema\":1,")
        .replace(",\"generation\":1}", "}");
    Inode read = InodeCodec.decode(old.getBytes(java.nio.charset.StandardCharsets.UTF_8), "/x");
    assertEquals(0, read.generation());
    assertEquals(1, read.schema());
    assertEquals(Inode.SCHEMA_PLAIN, read.withLength(3).schema(),
        "rewritten as the current schema (of a record without a repair record)");
    assertEquals(NamespaceStatus.CORRUPT, fails(() -> InodeCodec.decode(json.replace(
        "\"schema\":2", "\"schema\":" + (Inode.SCHEMA + 1))
        .getBytes(java.nio.charset.StandardCharsets.UTF_8), "/x")));
  }

  /** Waits until the writer's old session marker is gone (the server expired the session). */
  private void awaitDead() throws Exception {
    ZNodes zn = new ZNodes(config.root());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (client.getChildren().forPath(zn.sessions).isEmpty()) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("session marker still there");
  }

  /** Runs op, retrying while the client reconnects after the expiry (UNAVAILABLE). */
  private static void retryUnavailable(Executable op) throws Throwable {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        op.execute();
        return;
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.UNAVAILABLE || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  @Test
  void overwriteByTheHolderAndAfterTheWriterDied() throws Exception {
    FileStatus f = writer.create("/o", CreateOptions.file());
    FileStatus g = writer.create("/o", CreateOptions.file().withOverwrite(true));
    assertTrue(g.id() != f.id());
    assertEquals(1, openRecords()); // the replaced file's record went with it
    KillSession.kill(writerClient.getZookeeperClient().getZooKeeper());
    awaitDead();
    // a dead writer's file may be overwritten: the old file and its record go
    FileStatus h = ns.create("/o", CreateOptions.file().withOverwrite(true));
    assertTrue(h.isOpenForWrite());
    assertEquals(1, openRecords());
    assertEquals(0, ns.recoverExpiredLeases(file -> 0));
  }
}
