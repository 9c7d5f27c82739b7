package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Concurrent updates through versions and multi: nothing is lost, nothing is made twice. */
class ConcurrencyTest extends ZkFixture {
  static final int THREADS = 8;
  Namespace ns;
  ExecutorService pool;

  @BeforeEach
  void open() throws Exception {
    ns = newNamespace();
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void close() {
    pool.shutdownNow();
  }

  interface Task {
    void run(int thread) throws Exception;
  }

  void onAllThreads(Task task) throws Exception {
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      fs.add(pool.submit(() -> {
        start.await();
        task.run(thread);
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
  }

  @Test
  void lengthIncrementsAreNeverLost() throws Exception {
    long id = ns.create("/counter", CreateOptions.file()).id();
    int each = 40;
    AtomicInteger conflicts = new AtomicInteger();
    onAllThreads(t -> {
      for (int i = 0; i < each; i++) {
        while (true) {
          FileStatus s = ns.getStatus("/counter");
          try {
            ns.setLength("/counter", id, s.version(), s.length() + 1);
            break;
          } catch (NamespaceException e) {
            assertEquals(NamespaceStatus.CONFLICT, e.status());
            conflicts.incrementAndGet();
          }
        }
      }
    });
    FileStatus s = ns.getStatus("/counter");
    assertEquals(THREADS * each, s.length());
    assertEquals(THREADS * each, s.version());
    assertTrue(conflicts.get() > 0, "the test did not race");
  }

  @Test
  void attributeUpdatesOnOneFileAreAllKept() throws Exception {
    ns.create("/f", CreateOptions.file());
    onAllThreads(t -> {
      for (int i = 0; i < 3; i++) {
        ns.setXAttr("/f", "user.t" + t + "." + i, new byte[] {(byte) t}, XAttrMode.CREATE);
        ns.setTimes("/f", t, -1);
      }
    });
    assertEquals(THREADS * 3, ns.getXAttrs("/f").size());
  }

  @Test
  void sameNameCreatedOnceAndMkdirsAgree() throws Exception {
    AtomicInteger made = new AtomicInteger();
    AtomicInteger exists = new AtomicInteger();
    onAllThreads(t -> {
      try {
        ns.create("/race/file", CreateOptions.file());
        made.incrementAndGet();
      } catch (NamespaceException e) {
        assertEquals(NamespaceStatus.ALREADY_EXISTS, e.status());
        exists.incrementAndGet();
      }
      assertTrue(ns.mkdirs("/deep/a/b/c/d/e"));
    });
    assertEquals(1, made.get());
    assertEquals(THREADS - 1, exists.get());
    assertEquals(1, ns.listAll("/race").size());
    assertEquals(1, ns.listAll("/deep/a/b/c/d").size());
  }

  @Test
  void concurrentRenamesIntoOneDirectory() throws Exception {
    int each = 25;
    for (int t = 0; t < THREADS; t++) {
      for (int i = 0; i < each; i++) {
        ns.create("/src" + t + "/f" + i, CreateOptions.file());
      }
    }
    ns.mkdirs("/dst");
    onAllThreads(t -> {
      for (int i = 0; i < each; i++) {
        ns.rename("/src" + t + "/f" + i, "/dst/t" + t + "-" + i);
      }
    });
    assertEquals(THREADS * each, ns.listAll("/dst").size());
    for (int t = 0; t < THREADS; t++) {
      assertEquals(List.of(), ns.listAll("/src" + t));
    }
  }

  @Test
  void crossingDirectoryRenamesNeverMakeACycle() throws Exception {
    for (int round = 0; round < 15; round++) {
      String a = "/a" + round;
      String b = "/b" + round;
      long ida = ns.create(a + "/fa", CreateOptions.file()).id();
      long idb = ns.create(b + "/fb", CreateOptions.file()).id();
      ConcurrentHashMap<String, NamespaceStatus> outcome = new ConcurrentHashMap<>();
      onAllThreads(t -> {
        if (t > 1) {
          return;
        }
        String from = t == 0 ? a : b;
        String to = t == 0 ? b + "/in" : a + "/in";
        try {
          ns.rename(from, to);
          outcome.put(from, NamespaceStatus.ALREADY_EXISTS); // marker for "succeeded"
        } catch (NamespaceException e) {
          outcome.put(from + " failed", e.status());
        }
      });
      // both files are still reachable from the root, whatever the interleaving
      Set<Long> reachable = new HashSet<>();
      collectIds("/", reachable);
      assertTrue(reachable.contains(ida) && reachable.contains(idb), "round " + round + ": "
          + outcome);
      assertFalse(outcome.containsKey(a) && outcome.containsKey(b), "both renames succeeded");
    }
  }

  private void collectIds(String dir, Set<Long> out) throws Exception {
    for (FileStatus s : ns.listAll(dir)) {
      out.add(s.id());
      if (s.isDirectory()) {
        collectIds(s.path(), out);
      }
    }
  }

  @Test
  void idsAreUniqueAcrossClients() throws Exception {
    CuratorFramework second = newClient();
    try {
      NamespaceConfig c = ns.config().toBuilder().idBlock(7).build();
      Namespace n1 = Namespace.open(client, c);
      Namespace n2 = Namespace.open(second, c);
      Set<Long> ids = ConcurrentHashMap.newKeySet();
      onAllThreads(t -> {
        Namespace n = t % 2 == 0 ? n1 : n2;
        for (int i = 0; i < 30; i++) {
          assertTrue(ids.add(n.create("/ids/t" + t + "-" + i, CreateOptions.file()).id()));
        }
      });
      assertEquals(THREADS * 30, ids.size());
      assertEquals(THREADS * 30, n2.listAll("/ids").size());
    } finally {
      second.close();
    }
  }
}
