package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No hflush, hsync or close of a {@link PfsOutputStream} is acknowledged (returns, commits a
 * length) after an upload below it failed or was never sent (audit D1 and D2).
 */
class AcknowledgedWriteTest extends StripedClusterTest {

  @BeforeAll
  static void makeDirectories() throws Exception {
    client.namespace().mkdirs("/ack", CreateOptions.directory().withLayout(STRIPED));
  }

  @SuppressWarnings("unchecked")
  private static List<CompletableFuture<Void>> inflight(PfsOutputStream out) throws Exception {
    Field f = PfsOutputStream.class.getDeclaredField("inflight");
    f.setAccessible(true);
    return (List<CompletableFuture<Void>>) f.get(out);
  }

  private static int nodeOf(ParityClient c, String targetId) throws IOException {
    String nodeId = c.registry().target(targetId).orElseThrow().nodeId();
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).nodeId().equals(nodeId)) {
        return i;
      }
    }
    throw new IllegalStateException("no node serves " + targetId);
  }

  /**
   * D1, the audit's deterministic reproduction: the upload of chunk 0 fails (its node is
   * stopped) and a callback registered after the stream's own (so run before it: LIFO) stalls
   * the completing thread, as a preemption right after completion would. hflush must throw and
   * commit nothing, although the stream's callback has not run yet.
   */
  @Test
  void hflushThrowsWhenAnUploadFailedEvenIfItsCallbackHasNotRun() throws Exception {
    String path = "/ack/d1";
    byte[] data = random(CHUNK, 101);
    ClientConfig oneThread = cluster.clientConfig().transferThreads(1).build();
    CountDownLatch stall = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    int stopped = -1;
    try (ParityClient writer = ParityClient.connect(oneThread, Caller.of("root"))) {
      PfsOutputStream out = writer.create(path, CreateOptions.file());
      // the single transfer thread waits on the gate: chunk 0's upload is queued, not run
      writer.transfers().execute(() -> {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      out.write(data);
      CompletableFuture<Void> f0 = inflight(out).get(0);
      f0.whenComplete((v, e) -> {
        try {
          stall.await();
        } catch (InterruptedException x) {
          Thread.currentThread().interrupt();
        }
      });
      stopped = nodeOf(writer, ChunkIo.targetOf(out.file().layout(), 0));
      cluster.stopNode(stopped);
      gate.countDown();
      try {
        while (!f0.isDone()) {
          Thread.onSpinWait();
        }
        assertTrue(f0.isCompletedExceptionally(), "the upload to the stopped node failed");
        IOException e = assertThrows(IOException.class, out::hflush,
            "hflush after a failed upload throws");
        assertTrue(e.getMessage().contains(path), e.getMessage());
        assertEquals(0, client.namespace().getStatus(path).length(), "nothing committed");
        assertThrows(IOException.class, out::close, "close of a failed stream throws");
      } finally {
        stall.countDown();
      }
      assertEquals(0, client.namespace().getStatus(path).length(), "nothing committed");
    } finally {
      if (stopped >= 0) {
        cluster.restartNode(stopped);
        cluster.awaitTargets(3);
      }
    }
  }

  /**
   * D2: the writer is interrupted while its full chunk waits to be uploaded (the chunk is
   * already counted in the position but never sent). The caller catches, clears the interrupt
   * and closes: close must throw (nothing committed past what is stored).
   */
  @Test
  void anInterruptedUploadPoisonsTheStream() throws Exception {
    String path = "/ack/d2";
    byte[] data = random(CHUNK + 1000, 102);
    PfsOutputStream out = client.create(path, CreateOptions.file());
    out.write(data, 0, CHUNK - 1); // chunk 0's buffer is taken, one byte short of full
    Thread.currentThread().interrupt();
    try {
      assertThrows(InterruptedIOException.class, () -> out.write(data, CHUNK - 1, 1),
          "the full chunk's upload waits interruptibly");
    } finally {
      Thread.interrupted(); // as a caller that catches the InterruptedIOException does
    }
    assertThrows(IOException.class, () -> out.write(data, CHUNK, 1000),
        "the stream stays failed");
    assertThrows(IOException.class, out::close, "close does not commit the unsent chunk");
    FileStatus f = client.namespace().getStatus(path);
    assertEquals(0, f.length(), "nothing committed");
    assertTrue(f.isOpenForWrite(), "the file stays open for lease recovery");
    assertTrue(client.recoverLease(path));
    long recovered = client.namespace().getStatus(path).length();
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(Arrays.copyOf(data, (int) recovered), readAll(in),
          "every recovered byte reads back as written");
    }
  }

  /** The same file written without faults reads back (the test's setup itself is sound). */
  @Test
  void aStreamWithoutFaultsCommitsEverything() throws Exception {
    String path = "/ack/ok";
    byte[] data = random(2 * CHUNK + 5, 103);
    try (PfsOutputStream out = client.create(path, CreateOptions.file())) {
      out.write(data);
      out.hflush();
      assertEquals(data.length, client.namespace().getStatus(path).length());
    }
    try (PfsInputStream in = client.open(path)) {
      assertArrayEquals(data, readAll(in));
    }
  }
}
