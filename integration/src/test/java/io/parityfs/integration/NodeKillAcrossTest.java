package io.parityfs.integration;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.meta.Across;
import io.parityfs.meta.CreateOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storage node killed with SIGKILL under 8 readers, for each policy across nodes
 * (docs/across-nodes.md §4), on three node processes: every read returns the right bytes, before,
 * during and after the node's loss; none fails. Half the readers read ahead (the kill finds
 * reads in flight), half do not, and each also reads at random positions. Content is keyed by
 * path, so a stale or misplaced byte would not compare equal.
 *
 * <p>Writers under a node loss are not here: until repair records exist (§3), a member that
 * cannot be stored fails its write, as {@link NodeKillTest} checks for files without a policy.
 */
class NodeKillAcrossTest {
  private static final int FILES = 8;
  private static final int READERS = 8;
  private static final int VICTIM = 2;

  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(dir.resolve("cluster"), NodeKillAcrossTest.class);
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
  void mirrorReadersSeeNoErrorWhenANodeIsKilled() throws Exception {
    readersThroughAKill(Across.mirror(2));
  }

  @Test
  void ecReadersSeeNoErrorWhenANodeIsKilled() throws Exception {
    readersThroughAKill(Across.ec(2, 1));
  }

  private void readersThroughAKill(Across policy) throws Exception {
    String d = dir(policy);
    AtomicBoolean stop = new AtomicBoolean();
    // 0: every node up; 1: the victim killed; 2: back
    AtomicInteger phase = new AtomicInteger();
    AtomicInteger[] good = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> readers = new ArrayList<>();
    try (ParityClient c = cluster.client()) {
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
        readers.add(t);
        t.start();
      }
      try {
        cluster.await("readers read while every node is up", Duration.ofSeconds(60),
            () -> good[0].get() >= READERS || !failures.isEmpty());
        phase.set(1);
        cluster.local().killNode(VICTIM);
        cluster.await("readers read with the node killed", Duration.ofSeconds(90),
            () -> good[1].get() >= 2 * READERS || !failures.isEmpty());
        cluster.restartNode(VICTIM);
        phase.set(2);
        cluster.await("readers read after the node is back", Duration.ofSeconds(60),
            () -> good[2].get() >= READERS || !failures.isEmpty());
      } finally {
        stop.set(true);
        for (Thread t : readers) {
          t.join(60_000);
        }
      }
      if (!failures.isEmpty()) {
        AssertionError e = new AssertionError(failures.size() + " reads failed across " + policy
            + ", the first: " + failures.peek(), failures.peek());
        failures.forEach(e::addSuppressed);
        throw e;
      }
    }
  }
}
