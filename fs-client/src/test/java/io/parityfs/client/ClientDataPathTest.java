package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The striped data path against a live in-process cluster of three RAID-6 nodes. */
class ClientDataPathTest extends StripedClusterTest {

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/d", CreateOptions.directory().withLayout(STRIPED));
  }

  /**
   * A chunk shorter than the file's committed length says (bytes lost on the node) fails the
   * read as DATA_LOST, which the mount answers EIO (not EINVAL: the caller's arguments were
   * fine), wherever in the lost range the read starts.
   */
  @Test
  void aChunkShorterThanTheFileSaysIsLostDataNotABadArgument() throws Exception {
    byte[] data = random(2 * CHUNK, 9);
    try (PfsOutputStream out = client.create("/d/short", CreateOptions.file())) {
      out.write(data);
    }
    FileStatus f = client.namespace().getStatus("/d/short");
    TargetInfo t = client.registry().target(f.layout().targets().get(0)).orElseThrow();
    // chunk 0 made 1000 bytes long behind the namespace's back (a newer generation: past the
    // closed writer's fence)
    client.nodes().writeChunk(t.socketAddress(), TargetId.of(t.id()), new ChunkId(f.id(), 0), 0,
        WriteMode.REPLACE, WriteRequest.SYNC, Long.MAX_VALUE / 2,
        ByteBuffer.wrap(java.util.Arrays.copyOf(data, 1000)));
    byte[] b = new byte[4096];
    try (PfsInputStream in = client.open("/d/short")) {
      // past the short chunk's end
      ClientException e = assertThrows(ClientException.class,
          () -> in.read(CHUNK / 2, b, 0, b.length));
      assertEquals(ClientStatus.DATA_LOST, e.status(), e.getMessage());
      assertTrue(e.getMessage().contains("ends before the file's length"), e.getMessage());
    }
    try (PfsInputStream in = client.open("/d/short")) {
      // from its start: the chunk answers fewer bytes than the length covers
      ClientException e = assertThrows(ClientException.class, () -> in.read(0, b, 0, b.length));
      assertEquals(ClientStatus.DATA_LOST, e.status(), e.getMessage());
    }
  }

  @Test
  void writeThenReadAcrossChunksAndTargets() throws Exception {
    byte[] data = random(5 * CHUNK + 12345, 1);
    try (PfsOutputStream out = client.create("/d/big", CreateOptions.file())) {
      for (int off = 0; off < data.length; off += 77_777) {
        out.write(data, off, Math.min(77_777, data.length - off));
      }
    }
    FileStatus f = client.namespace().getStatus("/d/big");
    assertEquals(data.length, f.length());
    assertFalse(f.isOpenForWrite());
    assertEquals(3, new HashSet<>(f.layout().targets()).size(), "three distinct targets");
    try (PfsInputStream in = client.open("/d/big")) {
      assertArrayEquals(data, readAll(in));
      assertEquals(-1, in.read());
      // positional reads across a chunk boundary leave the position alone
      byte[] b = new byte[3000];
      assertEquals(3000, in.read(CHUNK - 1000, b, 0, 3000));
      assertArrayEquals(java.util.Arrays.copyOfRange(data, CHUNK - 1000, CHUNK + 2000), b);
      assertEquals(data.length, in.getPos());
      in.seek(2 * CHUNK + 5);
      assertEquals(data[2 * CHUNK + 5] & 0xff, in.read());
      ByteBuffer all = ByteBuffer.allocate(data.length);
      in.readFully(0, all);
      assertArrayEquals(data, all.array());
      assertThrows(java.io.EOFException.class, () -> in.readFully(data.length - 1,
          ByteBuffer.allocate(2)));
    }
  }

  /**
   * A long sequential read recycles its window buffers: 24 one-chunk windows with three read
   * ahead allocate a handful of buffers, not 24, and the bytes are still the file's (a recycled
   * buffer refilled too early or twice would show another window's bytes).
   */
  @Test
  void aSequentialReadReusesItsWindowBuffers() throws Exception {
    byte[] data = random(24 * CHUNK, 11);
    try (PfsOutputStream out = client.create("/d/reuse", CreateOptions.file())) {
      out.write(data);
    }
    try (PfsInputStream in = client.open("/d/reuse", 3L * CHUNK)) {
      assertArrayEquals(data, readAll(in));
      long allocated = in.windowBuffersAllocated();
      assertTrue(allocated <= 6, allocated + " buffers allocated for 24 windows");
      in.seek(5L * CHUNK + 7); // a seek drops the read-ahead; the reread is still right
      byte[] b = new byte[2 * CHUNK];
      assertEquals(b.length, in.readNBytes(b, 0, b.length));
      assertArrayEquals(java.util.Arrays.copyOfRange(data, 5 * CHUNK + 7, 7 * CHUNK + 7), b);
      in.unbuffer();
      assertArrayEquals(java.util.Arrays.copyOfRange(data, 7 * CHUNK + 7, 7 * CHUNK + 100),
          in.readNBytes(93));
    }
  }

  /**
   * A request that arrives late or early (the mount's concurrent read-ahead requests) is served
   * from what the stream holds: the two windows it was told to keep after passing them, the
   * window and the read-ahead, across window boundaries, without moving the position. A range
   * with any byte elsewhere is refused with nothing copied, and so is a passed window when the
   * stream keeps none.
   */
  @Test
  void lateAndEarlyRequestsAreServedFromTheWindowsTheStreamHolds() throws Exception {
    byte[] data = random(12 * CHUNK, 12);
    try (PfsOutputStream out = client.create("/d/late", CreateOptions.file())) {
      out.write(data);
    }
    try (PfsInputStream in = client.open("/d/late", 3L * CHUNK)) {
      in.keepPassedWindows(2);
      // one-chunk windows: passed [3C, 5C), the window [5C, 6C), read ahead [6C, 9C)
      in.readNBytes(5 * CHUNK + 100);
      ByteBuffer late = ByteBuffer.allocateDirect(2 * CHUNK);
      assertEquals(2 * CHUNK, in.readBuffered(3L * CHUNK + 10, late));
      assertEquals(ByteBuffer.wrap(data, 3 * CHUNK + 10, 2 * CHUNK), late.flip());
      ByteBuffer early = ByteBuffer.allocate(100);
      assertEquals(100, in.readBuffered(7L * CHUNK - 5, early));
      assertArrayEquals(java.util.Arrays.copyOfRange(data, 7 * CHUNK - 5, 7 * CHUNK + 95),
          early.array());
      ByteBuffer untouched = ByteBuffer.allocate(2 * CHUNK);
      assertEquals(-1, in.readBuffered(3L * CHUNK - 1, untouched), "one byte before the kept");
      assertEquals(-1, in.readBuffered(9L * CHUNK - 10, untouched), "past the read-ahead");
      assertEquals(-1, in.readBuffered(data.length, untouched), "at the end");
      assertEquals(0, untouched.position());
      assertEquals(5L * CHUNK + 100, in.getPos());
      assertArrayEquals(java.util.Arrays.copyOfRange(data, 5 * CHUNK + 100, data.length),
          in.readAllBytes());
      in.keepPassedWindows(0);
      assertEquals(-1, in.readBuffered(data.length - CHUNK - 1, ByteBuffer.allocate(10)),
          "no passed window kept");
      ByteBuffer tail = ByteBuffer.allocate(2 * CHUNK);
      assertEquals(CHUNK - 1, in.readBuffered(data.length - CHUNK + 1, tail),
          "the last window, up to the end");
      assertEquals(ByteBuffer.wrap(data, data.length - CHUNK + 1, CHUNK - 1), tail.flip());
    }
  }

  @Test
  void hflushMakesBytesVisibleAndCloseIsFinal() throws Exception {
    byte[] data = random(CHUNK + 500, 2);
    PfsOutputStream out = client.create("/d/log", CreateOptions.file());
    out.write(data, 0, 1000);
    assertEquals(0, client.namespace().getStatus("/d/log").length());
    out.hflush();
    assertEquals(1000, client.namespace().getStatus("/d/log").length());
    try (PfsInputStream in = client.open("/d/log")) {
      assertArrayEquals(java.util.Arrays.copyOf(data, 1000), readAll(in));
    }
    out.write(data, 1000, data.length - 1000);
    out.hsync();
    out.close();
    try (PfsInputStream in = client.open("/d/log")) {
      assertArrayEquals(data, readAll(in));
    }
    assertThrows(IOException.class, () -> out.write(1));
  }

  @Test
  void appendKeepsThePartialLastChunk() throws Exception {
    byte[] a = random(CHUNK + 100, 3);
    byte[] b = random(2 * CHUNK, 4);
    try (PfsOutputStream out = client.create("/d/app", CreateOptions.file())) {
      out.write(a);
    }
    try (PfsOutputStream out = client.append("/d/app")) {
      assertEquals(a.length, out.position());
      out.write(b);
    }
    byte[] both = new byte[a.length + b.length];
    System.arraycopy(a, 0, both, 0, a.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    try (PfsInputStream in = client.open("/d/app")) {
      assertArrayEquals(both, readAll(in));
    }
  }

  @Test
  void concurrentReadersAndWriters() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> jobs = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int id = w;
        jobs.add(pool.submit(() -> {
          byte[] data = random(2 * CHUNK + id, 100 + id);
          try (PfsOutputStream out = client.create("/d/c" + id, CreateOptions.file())) {
            out.write(data);
          }
          for (int r = 0; r < 2; r++) {
            try (PfsInputStream in = client.open("/d/c" + id)) {
              assertArrayEquals(data, readAll(in));
            }
          }
          return null;
        }));
      }
      for (Future<?> j : jobs) {
        j.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aDeadWritersFileIsRecoveredToWhatTheTargetsHold() throws Exception {
    byte[] data = random(2 * CHUNK + 10, 5);
    ParityClient writer = cluster.client(Caller.of("root"));
    PfsOutputStream out = writer.create("/d/crashed", CreateOptions.file());
    out.write(data);
    out.hflush();
    writer.close(); // the process dies without closing: its session ends, the lease with it
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> client.append("/d/crashed"));
    assertEquals(NamespaceStatus.LEASE_CONFLICT, e.status());
    assertTrue(client.recoverLease("/d/crashed"));
    FileStatus f = client.namespace().getStatus("/d/crashed");
    assertEquals(data.length, f.length());
    assertFalse(f.isOpenForWrite());
    try (PfsInputStream in = client.open("/d/crashed")) {
      assertArrayEquals(data, readAll(in));
    }
  }

  @Test
  void readPermissionIsChecked() throws Exception {
    try (PfsOutputStream out = client.create("/d/secret", CreateOptions.file()
        .withPermission(0600))) {
      out.write(1);
    }
    try (ParityClient eve = cluster.client(Caller.of("eve"))) {
      NamespaceException e = assertThrows(NamespaceException.class, () -> eve.open("/d/secret"));
      assertEquals(NamespaceStatus.PERMISSION_DENIED, e.status());
    }
  }
}
