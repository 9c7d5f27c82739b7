package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A storage node dying under a writer or a reader, on a live cluster of three RAID-6 nodes with
 * 1 MiB chunks striped over all three (so every file has chunks on the node that dies, and each
 * chunk is on exactly one target). What must hold: a write whose target died fails with an
 * IOException naming the target, and no length covering unstored bytes is ever committed, also
 * not by lease recovery afterwards; a read of a chunk on the dead target fails naming it, reads
 * of the other targets' chunks go on, and the same stream reads again once the node is back.
 */
class TargetFailureTest extends StripedClusterTest {

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/f", CreateOptions.directory().withLayout(STRIPED));
  }

  /**
   * After the writer failed: the namespace still shows the last hflush's length (the file open),
   * and once the node is back, lease recovery closes it at a length whose every byte reads back
   * as written.
   */
  private void assertNothingUnstoredCommitted(String path, byte[] data, long hflushed)
      throws Exception {
    FileStatus after = client.namespace().getStatus(path);
    assertEquals(hflushed, after.length(), "the committed length is the last hflush's");
    assertTrue(after.isOpenForWrite(), "a failed close does not close the file");
    restart();
    assertTrue(client.recoverLease(path), "recovery closes the file");
    FileStatus recovered = client.namespace().getStatus(path);
    assertFalse(recovered.isOpenForWrite());
    assertTrue(recovered.length() >= hflushed && recovered.length() <= data.length,
        "recovered length " + recovered.length() + " within [" + hflushed + ", " + data.length
            + "]");
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(Arrays.copyOf(data, (int) recovered.length()), readAll(in),
          "every byte of the recovered length is the written byte");
    }
  }

  @Test
  void aTargetDyingMidWriteFailsTheWriteAndCommitsNothingUnstored() throws Exception {
    byte[] data = random(12 * CHUNK + 777, 11);
    String path = "/f/midwrite";
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      out.write(data, 0, 3 * CHUNK);
      out.hflush();
      String victim = ChunkIo.targetOf(out.file().layout(), 4);
      IOException failed = null;
      int step = 256 << 10;
      try {
        for (int off = 3 * CHUNK; off < data.length; off += step) {
          if (off == 4 * CHUNK + step) {
            stopNodeOf(victim); // chunk 4's upload is in flight or about to be
          }
          out.write(data, off, Math.min(step, data.length - off));
        }
        out.hflush();
      } catch (IOException e) {
        failed = e;
      }
      IOException atClose = assertThrows(IOException.class, out::close,
          "close after a failed upload throws");
      failed = failed == null ? atClose : failed;
      assertTrue(failed.getMessage().contains(victim),
          "the error names the dead target " + victim + ": " + failed.getMessage());
      assertTrue(failed.getMessage().contains(path), failed.getMessage());
      assertThrows(IOException.class, () -> out.write(1), "the stream stays failed");
      assertNothingUnstoredCommitted(path, data, 3 * CHUNK);
    }
  }

  @Test
  void aTargetDyingBeforeCloseFailsTheClose() throws Exception {
    byte[] data = random(2 * CHUNK + 4321, 12);
    String path = "/f/atclose";
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      out.write(data);
      // chunks 0 and 1 are uploading or stored; the 4321-byte tail (chunk 2) waits for close
      String victim = ChunkIo.targetOf(out.file().layout(), 2);
      stopNodeOf(victim);
      IOException e = assertThrows(IOException.class, out::close);
      assertTrue(e.getMessage().contains(victim), e.getMessage());
      assertNothingUnstoredCommitted(path, data, 0);
    }
  }

  @Test
  void aTargetDyingMidReadFailsNamingItAndTheStreamReadsAgainAfterItsReturn() throws Exception {
    byte[] data = random(6 * CHUNK, 13);
    String path = "/f/midread";
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      out.write(data);
    }
    Layout layout = client.namespace().getStatus(path).layout();
    String victim = ChunkIo.targetOf(layout, 1);
    try (PfsInputStream in = client.open(path, 0);
        PfsInputStream ahead = client.open(path)) {
      byte[] first = new byte[CHUNK];
      assertEquals(CHUNK, in.read(first, 0, CHUNK));
      assertArrayEquals(Arrays.copyOf(data, CHUNK), first);
      stopNodeOf(victim);
      IOException e = assertThrows(IOException.class, () -> in.read(new byte[10], 0, 10));
      assertTrue(e.getMessage().contains(victim), "names the target: " + e.getMessage());
      assertTrue(e.getMessage().contains("chunk 1"), e.getMessage());
      IOException p = assertThrows(IOException.class,
          () -> in.read(CHUNK - 10, new byte[20], 0, 20), "a pread across chunk 1 fails too");
      assertTrue(p.getMessage().contains(victim), p.getMessage());
      // chunks on the live targets still read
      byte[] third = new byte[1000];
      assertEquals(1000, in.read(2 * CHUNK + 5, third, 0, 1000));
      assertArrayEquals(Arrays.copyOfRange(data, 2 * CHUNK + 5, 2 * CHUNK + 1005), third);
      // a read-ahead stream either fails the same way or already holds the bytes: never wrong
      try {
        assertArrayEquals(data, readAll(ahead));
      } catch (IOException readAheadFailure) {
        assertNotNull(readAheadFailure.getMessage());
        assertTrue(readAheadFailure.getMessage().contains(victim),
            readAheadFailure.getMessage());
      }
      restart();
      in.seek(CHUNK);
      byte[] rest = readAll(in);
      assertArrayEquals(Arrays.copyOfRange(data, CHUNK, data.length), rest,
          "the same stream reads again once the node is back");
    }
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(data, readAll(in));
    }
  }

  /**
   * While a node is down, a new file of a layout striped over all three targets is placed on
   * the two that are up (its stripe count lowered), written and read back in full; before,
   * every create failed.
   */
  @Test
  void aFileCreatedWhileANodeIsDownIsPlacedOnTheOthers() throws Exception {
    String victim = client.registry().targets().get(0).id();
    stopNodeOf(victim);
    Eventually.until("target " + victim + " not online", () -> client.registry()
        .target(victim).orElseThrow().reachability() != Reachability.ONLINE);
    byte[] data = random(5 * CHUNK + 99, 15);
    String path = "/f/while-down";
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      out.write(data);
    }
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(2, f.layout().stripeCount(), f.layout().toString());
    assertFalse(f.layout().targets().contains(victim), f.layout().toString());
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(data, readAll(in));
    }
    restart();
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(data, readAll(in), "the same after the node's return");
    }
  }

  @Test
  void aWriteWhoseTargetReturnsBeforeTheNextChunkCompletes() throws Exception {
    // the node is away between two hflushes only: the failed upload fails the stream (no
    // silent retry that could reorder chunk versions), and a new writer (append) goes on
    byte[] data = random(3 * CHUNK, 14);
    String path = "/f/bounce";
    try (ParityClient writer = cluster.client(Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      out.write(data, 0, CHUNK);
      out.hflush();
      stopNodeOf(ChunkIo.targetOf(out.file().layout(), 1));
      out.write(data, CHUNK, CHUNK);
      assertThrows(IOException.class, out::hflush);
      restart();
      assertThrows(IOException.class, out::close, "a failed stream stays failed");
    }
    // the writer's client is gone: its lease went with its session; recovery, then append
    assertTrue(client.recoverLease(path));
    long recovered = client.namespace().getStatus(path).length();
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(Arrays.copyOf(data, (int) recovered), readAll(in));
    }
    try (PfsOutputStream out = client.append(path)) {
      out.write(data, (int) recovered, data.length - (int) recovered);
    }
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(data, readAll(in));
    }
  }
}
