package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writer fencing end to end (issue 15 item 2; audit D3 and D4) on the in-process cluster. Every
 * byte is keyed by (path, writer generation, offset), so bytes of the wrong writer are visible
 * even where they sit at the right offset of the right file.
 */
class FencingTest extends StripedClusterTest {

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/fence", CreateOptions.directory().withLayout(STRIPED));
  }

  /** The bytes writer generation {@code gen} writes at {@code offset..offset+n} of path. */
  static byte[] keyed(String path, long gen, long offset, int n) {
    long seed = path.hashCode() * 0x9E3779B97F4A7C15L + gen * 0xC2B2AE3D27D4EB4FL;
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      long x = seed + offset + i;
      x = (x ^ (x >>> 33)) * 0xFF51AFD7ED558CCDL;
      x ^= x >>> 29;
      b[i] = (byte) x;
    }
    return b;
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] all = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return all;
  }

  private static byte[] read(String path) throws IOException {
    try (PfsInputStream in = client.open(path)) {
      return readAll(in);
    }
  }

  /** Ends {@code c}'s ZooKeeper session on the server, as an expiry does (a twin closes it). */
  private static void expireSession(ParityClient c) throws Exception {
    ZooKeeper zk = c.curator().getZookeeperClient().getZooKeeper();
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper twin = new ZooKeeper(cluster.connectString(), 10_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    }, zk.getSessionId(), zk.getSessionPasswd());
    try {
      assertTrue(connected.await(20, TimeUnit.SECONDS), "the twin handle did not connect");
    } finally {
      twin.close();
    }
  }

  /**
   * D3, the zombie writer: A has hsynced 1.5 chunks and holds the upload of its full chunk 1
   * (its only transfer thread is blocked) when its session expires. The lease is recovered, B
   * appends and hsyncs; then A's held upload goes out. It must be refused (A fails with the
   * fenced error) and B's acknowledged bytes must stay.
   */
  @Test
  void aZombieWritersUploadIsRefusedAndTheNextWritersBytesStay() throws Exception {
    String path = "/fence/zombie";
    int half = CHUNK / 2;
    ClientConfig oneThread = cluster.clientConfig().transferThreads(1).build();
    CountDownLatch gate = new CountDownLatch(1);
    try (ParityClient a = ParityClient.connect(oneThread, Caller.of("root"))) {
      PfsOutputStream out = a.create(path, CreateOptions.file());
      long genA = out.file().generation();
      byte[] aHead = keyed(path, genA, 0, CHUNK + half);
      out.write(aHead);
      out.hsync();
      a.transfers().execute(() -> {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      out.write(keyed(path, genA, CHUNK + half, half)); // chunk 1 full: its upload waits
      expireSession(a);
      try {
        assertTrue(client.recoverLease(path));
        FileStatus recovered = client.namespace().getStatus(path);
        assertEquals(CHUNK + half, recovered.length());
        assertTrue(recovered.generation() > genA, "recovery bumps the generation");

        byte[] bTail;
        try (PfsOutputStream b = client.append(path)) {
          assertTrue(b.file().generation() > recovered.generation(), "append bumps it too");
          bTail = keyed(path, b.file().generation(), CHUNK + half, CHUNK);
          b.write(bTail);
          b.hsync();
        }
        byte[] expected = concat(aHead, bTail);
        assertArrayEquals(expected, read(path), "B's bytes after the recovered length");

        gate.countDown(); // A's held upload of chunk 1 goes out now
        IOException e = assertThrows(IOException.class, out::hflush, "A fails");
        assertArrayEquals(expected, read(path), "B's acknowledged bytes are intact");
        assertEquals(expected.length, client.namespace().getStatus(path).length());
        assertTrue(hasCause(e, FencedException.class), "A is fenced: " + e);
        assertTrue(e.getMessage().contains("fenced"), e.getMessage());
        assertThrows(IOException.class, out::close);
      } finally {
        gate.countDown();
      }
    }
  }

  /**
   * D4, two failures: A stores chunks 0, 2 and 3 while chunk 1's node is down (recovery: 1
   * chunk); B appends exactly chunk 1 and hsyncs, then dies. The second recovery must give 2
   * chunks (A's 0, B's 1), never A's stale chunks 2 and 3 after them.
   */
  @Test
  void recoveryNeverBringsBackAnEarlierWritersChunksPastTheEnd() throws Exception {
    String path = "/fence/resurrect";
    long genA;
    try (ParityClient a = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = a.create(path, CreateOptions.file());
      genA = out.file().generation();
      int victim = nodeOf(ChunkIo.targetOf(out.file().layout(), 1));
      cluster.stopNode(victim);
      try {
        out.write(keyed(path, genA, 0, 4 * CHUNK));
        assertThrows(IOException.class, out::hflush, "chunk 1's upload failed");
      } finally {
        cluster.restartNode(victim);
        cluster.awaitTargets(3);
      }
    }
    assertTrue(client.recoverLease(path));
    assertEquals(CHUNK, client.namespace().getStatus(path).length());

    long genB;
    try (ParityClient b = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = b.append(path);
      genB = out.file().generation();
      out.write(keyed(path, genB, CHUNK, CHUNK));
      out.hsync();
      // B dies: its client goes without closing the stream
    }
    assertTrue(client.recoverLease(path));
    FileStatus f = client.namespace().getStatus(path);
    assertFalse(f.isOpenForWrite());
    assertEquals(2L * CHUNK, f.length(), "A's stale chunks 2 and 3 are not the file's");
    assertArrayEquals(concat(keyed(path, genA, 0, CHUNK), keyed(path, genB, CHUNK, CHUNK)),
        read(path));
  }

  private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }
}
