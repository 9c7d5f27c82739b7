package io.parityfs.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storage node killed with SIGKILL while clients write and read. Files are striped over the
 * three nodes' targets with no redundancy across nodes, so while the node is down its chunks
 * cannot be stored or read: what must hold is that nothing wrong is ever acknowledged or
 * returned. A writer either completes or fails with an IOException naming the dead target, the
 * committed length stays that of its last acknowledged hsync, and once the node is back every
 * acknowledged byte reads back (after lease recovery for the failed writers); a reader either
 * gets the right bytes or an IOException naming the dead target, and reads again once the node
 * is back.
 */
class NodeKillTest {
  private static final long FILE = 24L << 20;
  /** Not a multiple of the chunk: hsyncs store partial chunks that later writes replace. */
  private static final long HSYNC = 1536L << 10;
  private static final int VICTIM = 1;

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), NodeKillTest.class);
    cluster.mkdirs("/kill");
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void everyNodeRuns() throws IOException {
    for (int i = 0; i < 3; i++) {
      cluster.local().startNode(i);
    }
    cluster.awaitHealthy(false, TestCluster.START);
  }

  /** One writer thread's file and how it ended. */
  private static final class Writer {
    final String path;
    final String key;
    final AtomicLong acked = new AtomicLong();
    volatile boolean closed;
    volatile IOException failure;
    final Thread thread;

    Writer(ParityClient c, String path) {
      this.path = path;
      this.key = ExpectedBytes.key(path, "writer");
      this.thread = new Thread(() -> {
        try {
          PfsOutputStream out = c.create(path, CreateOptions.file());
          try {
            TestFiles.writeTo(out, key, FILE, HSYNC, acked::set);
          } finally {
            out.close(); // throws when an upload failed; closes nothing then
          }
          acked.set(FILE);
          closed = true;
        } catch (IOException e) {
          failure = e;
        }
      }, "writer " + path);
    }
  }

  @Test
  void aNodeKilledUnderWritersLosesNothingAcknowledged() throws Exception {
    String victim = cluster.target(VICTIM).id();
    List<Writer> writers = new ArrayList<>();
    try (ParityClient c = cluster.client()) {
      for (int i = 0; i < 4; i++) {
        writers.add(new Writer(c, "/kill/w" + i));
      }
      writers.forEach(w -> w.thread.start());
      cluster.await("every writer acknowledged 3 MiB", Duration.ofSeconds(60),
          () -> writers.stream().allMatch(w -> w.acked.get() >= 3 << 20 || w.failure != null));
      writers.forEach(w -> assertEquals(null, w.failure, w.path + " failed before the kill"));
      cluster.local().killNode(VICTIM);
      for (Writer w : writers) {
        w.thread.join(Duration.ofSeconds(90).toMillis());
        assertFalse(w.thread.isAlive(), w.path + ": the writer hangs after the kill");
      }
      int failed = 0;
      for (Writer w : writers) {
        if (w.closed) {
          continue;
        }
        failed++;
        assertTrue(w.failure.getMessage().contains(victim), w.path + ": the error names the"
            + " dead target " + victim + ": " + w.failure);
        FileStatus s = TestFiles.status(cluster.root(), w.path);
        assertTrue(s.isOpenForWrite(), w.path + ": a failed writer's file stays open");
        assertEquals(w.acked.get(), s.length(), w.path + ": the committed length is the last"
            + " acknowledged hsync's");
      }
      assertTrue(failed > 0, "the kill hit no writer: the test proves nothing");
      cluster.restartNode(VICTIM);
      for (Writer w : writers) {
        long length = FILE;
        if (!w.closed) {
          assertTrue(cluster.root().recoverLease(w.path), w.path + ": lease recovery");
          FileStatus s = TestFiles.status(cluster.root(), w.path);
          assertFalse(s.isOpenForWrite());
          length = s.length();
          assertTrue(length >= w.acked.get() && length <= FILE, w.path + ": recovered length "
              + length + " not in [" + w.acked.get() + ", " + FILE + "]");
        }
        TestFiles.verify(cluster.root(), w.path, w.key, length);
      }
    }
  }

  @Test
  void readsDuringANodeKillFailClearlyOrReturnTheRightBytes() throws Exception {
    int files = 4;
    long size = 4L << 20;
    for (int i = 0; i < files; i++) {
      TestFiles.write(cluster.root(), "/kill/r" + i, "/kill/r" + i, size + i * 4099, 0, n -> { });
    }
    String victim = cluster.target(VICTIM).id();
    AtomicBoolean stop = new AtomicBoolean();
    // 0: every node up; 1: the victim killed, until it is back; 2: back (reads started now)
    AtomicInteger phase = new AtomicInteger();
    AtomicInteger[] good = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    AtomicInteger failedWhileDown = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    List<Thread> readers = new ArrayList<>();
    try (ParityClient c = cluster.client()) {
      for (int r = 0; r < 4; r++) {
        int me = r;
        Thread t = new Thread(() -> {
          int round = 0;
          while (!stop.get()) {
            String path = "/kill/r" + ((me + round++) % files);
            int p = phase.get();
            // half the readers read ahead (the kill finds reads in flight), half do not
            try (PfsInputStream in = c.open(path, me % 2 == 0 ? 0 : 4 << 20)) {
              long length = in.length();
              TestFiles.check(in, path, path);
              for (int k = 0; k < 4; k++) {
                TestFiles.preadRandom(in, path, path, length);
              }
              good[p].incrementAndGet();
            } catch (IOException e) {
              if (p == 0 && phase.get() == 0 || p == 2) {
                unexpected.add(e); // failed with every node up
              } else if (e.getMessage() == null || !e.getMessage().contains(victim)) {
                unexpected.add(new AssertionError("a read failed without naming the dead"
                    + " target " + victim + ": " + e, e));
              } else {
                failedWhileDown.incrementAndGet();
              }
            } catch (Throwable e) {
              unexpected.add(e); // wrong bytes
              return;
            }
          }
        }, "reader " + r);
        readers.add(t);
        t.start();
      }
      try {
        cluster.await("readers read while every node is up", Duration.ofSeconds(60),
            () -> good[0].get() >= 4 || !unexpected.isEmpty());
        phase.set(1);
        cluster.local().killNode(VICTIM);
        cluster.await("reads fail while the node is down", Duration.ofSeconds(60),
            () -> failedWhileDown.get() >= 4 || !unexpected.isEmpty());
        cluster.restartNode(VICTIM);
        phase.set(2);
        cluster.await("readers read again after the restart", Duration.ofSeconds(60),
            () -> good[2].get() >= 4 || !unexpected.isEmpty());
      } finally {
        stop.set(true);
        for (Thread t : readers) {
          t.join(60_000);
        }
      }
      if (!unexpected.isEmpty()) {
        AssertionError e = new AssertionError(unexpected.size() + " unexpected read outcomes,"
            + " the first: " + unexpected.peek(), unexpected.peek());
        unexpected.forEach(e::addSuppressed);
        throw e;
      }
    }
  }
}
