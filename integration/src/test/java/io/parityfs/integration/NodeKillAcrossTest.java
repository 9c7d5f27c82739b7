package io.parityfs.integration;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storage node killed with SIGKILL under 8 writers and 8 readers, for each policy across
 * nodes (docs/across-nodes.md §3–4), on three node processes secure as a local cluster is
 * (mutual TLS, a ZooKeeper digest): every read returns the right bytes and every write is
 * acknowledged, before, during and after the node's loss; none fails.
 * Half the readers read ahead (the kill finds reads in flight), half do not, and each also
 * reads at random positions. Writers create, hsync and close file after file: some are cut by
 * the kill, some are created while the node is down (placed degraded from birth), and their
 * members left out go in the files' repair records; every byte of every file written is read
 * back at the end. Content is keyed by path, so a stale or misplaced byte would not compare
 * equal.
 */
class NodeKillAcrossTest {
  private static final int FILES = 8;
  private static final int READERS = 8;
  private static final int WRITERS = 8;
  /** Files the writers start in each phase, at most (the waits below need 2 x WRITERS). */
  private static final int STARTS_PER_PHASE = 4 * WRITERS;
  private static final int VICTIM = 2;
  /** The node lost after catch-up. */
  private static final int OTHER = 0;

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.startSecure(dir.resolve("cluster"), NodeKillAcrossTest.class, 3);
    for (Across a : List.of(Across.mirror(2), Across.ec(2, 1))) {
      cluster.root().namespace().mkdirs(dir(a), CreateOptions.directory()
          .withLayout(TestCluster.LAYOUT.withAcross(a)).withCreateParents(true));
      for (int i = 0; i < FILES; i++) {
        String path = dir(a) + "/f" + i;
        // 1 MiB chunks: 3-6 chunks each, the last one partial, hsynced on the way
        TestFiles.write(cluster.root(), path, path, (3L << 20) + i * 400_009L, 1L << 20, n -> { });
      }
    }
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void everyNodeRuns() throws IOException {
    cluster.local().startNode(VICTIM);
    cluster.awaitHealthy(false, TestCluster.START);
  }

  private static String dir(Across a) {
    return "/across/" + a.toString().replace(':', '-').replace('+', '-');
  }

  @Test
  void mirrorReadersAndWritersSeeNoErrorWhenANodeIsKilled() throws Exception {
    throughAKill(Across.mirror(2));
  }

  @Test
  void ecReadersAndWritersSeeNoErrorWhenANodeIsKilled() throws Exception {
    throughAKill(Across.ec(2, 1));
  }

  private void throughAKill(Across policy) throws Exception {
    String d = dir(policy);
    AtomicBoolean stop = new AtomicBoolean();
    // 0: every node up; 1: the victim killed; 2: back
    AtomicInteger phase = new AtomicInteger();
    AtomicInteger[] good = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    // files a writer started and closed within one phase
    AtomicInteger[] wrote = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    // files started in each phase: at most STARTS_PER_PHASE, then the writers wait for the next
    // phase (the node's restart takes long, and every file written is verified and caught up)
    AtomicInteger[] started = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    ConcurrentHashMap<String, Long> written = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    try (ParityClient c = cluster.client()) {
      for (int w = 0; w < WRITERS; w++) {
        int me = w;
        Thread t = new Thread(() -> {
          for (int round = 0; !stop.get(); round++) {
            String path = d + "/w" + me + "-" + round;
            int p = phase.get();
            if (started[p].incrementAndGet() > STARTS_PER_PHASE) {
              try {
                Thread.sleep(20);
              } catch (InterruptedException e) {
                return;
              }
              continue;
            }
            try {
              // 2-3 MiB of 1 MiB chunks, hsynced every 768 KiB: rounds of partial groups
              long size = (2L << 20) + me * 150_001L;
              TestFiles.write(c, path, path, size, 768 << 10, n -> { });
              written.put(path, size);
              if (phase.get() == p) {
                wrote[p].incrementAndGet();
              }
            } catch (Throwable e) {
              failures.add(new AssertionError("writer " + me + ", " + path + ", phase " + p
                  + ": " + e, e));
              return;
            }
          }
        }, "writer " + w);
        threads.add(t);
        t.start();
      }
      for (int r = 0; r < READERS; r++) {
        int me = r;
        Thread t = new Thread(() -> {
          int round = 0;
          while (!stop.get()) {
            String path = d + "/f" + ((me + round++) % FILES);
            int p = phase.get();
            try (PfsInputStream in = c.open(path, me % 2 == 0 ? 0 : 4 << 20)) {
              long length = in.length();
              TestFiles.check(in, path, path);
              for (int k = 0; k < 4; k++) {
                TestFiles.preadRandom(in, path, path, length);
              }
              good[p].incrementAndGet();
            } catch (Throwable e) {
              failures.add(new AssertionError("reader " + me + ", " + path + ", phase " + p
                  + ": " + e, e));
              return;
            }
          }
        }, "reader " + r);
        threads.add(t);
        t.start();
      }
      try {
        cluster.await("readers read and writers wrote while every node is up",
            Duration.ofSeconds(60), () -> good[0].get() >= READERS && wrote[0].get() >= WRITERS
                || !failures.isEmpty());
        phase.set(1);
        cluster.local().killNode(VICTIM);
        cluster.await("readers read and writers wrote with the node killed",
            Duration.ofSeconds(120), () -> good[1].get() >= 2 * READERS
                && wrote[1].get() >= 2 * WRITERS || !failures.isEmpty());
        cluster.restartNode(VICTIM);
        phase.set(2);
        cluster.await("readers read and writers wrote after the node is back",
            Duration.ofSeconds(60), () -> good[2].get() >= READERS && wrote[2].get() >= WRITERS
                || !failures.isEmpty());
      } finally {
        stop.set(true);
        for (Thread t : threads) {
          t.join(60_000);
        }
      }
      if (!failures.isEmpty()) {
        AssertionError e = new AssertionError(failures.size() + " reads or writes failed across "
            + policy + ", the first: " + failures.peek(), failures.peek());
        failures.forEach(e::addSuppressed);
        throw e;
      }
      int recorded = 0;
      for (Map.Entry<String, Long> f : written.entrySet()) {
        String path = f.getKey();
        TestFiles.verify(c, path, path, f.getValue());
        recorded += c.namespace().getStatus(path).repairs().isEmpty() ? 0 : 1;
      }
      if (recorded == 0) {
        throw new AssertionError("none of the " + written.size() + " files written across "
            + policy + " left a member out: the kill did not reach a writer");
      }
      System.out.printf("[test] %s: %d files written through the kill, %d with a repair"
          + " record; reads per phase %d/%d/%d%n", policy, written.size(), recorded,
          good[0].get(), good[1].get(), good[2].get());

      // catch-up with the node back, then another node lost: every file is still read
      long[] repaired = {0};
      for (String path : written.keySet()) {
        // A target whose transfer failed is tried last for the client's suspect window (10 s)
        // and catch-up waits for it meanwhile (its members stay "waiting"): a writer may have
        // failed against the victim while it came back, just before this. So catch-up is asked
        // again until nothing waits, within a bound past the window.
        Repairer.Outcome[] last = new Repairer.Outcome[1];
        try {
          cluster.await(path + " caught up", Duration.ofSeconds(30), () -> {
            try {
              last[0] = new Repairer(c).repair(path);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            repaired[0] += last[0].repaired();
            return last[0].waiting() == 0 && last[0].skipped() == null;
          });
        } catch (AssertionError e) {
          throw new AssertionError(path + ": not caught up: " + last[0], e);
        }
      }
      System.out.printf("[test] %s: %d members caught up%n", policy, repaired[0]);
      cluster.local().killNode(OTHER);
      try {
        for (Map.Entry<String, Long> f : written.entrySet()) {
          TestFiles.verify(c, f.getKey(), f.getKey(), f.getValue());
        }
      } finally {
        cluster.restartNode(OTHER);
      }
    }
  }
}
