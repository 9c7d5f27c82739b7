package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Renames into, out of and within a directory while another client deletes it recursively and
 * makes it again, over and over. Whatever interleaving happens, afterwards: no znode of a
 * directory that is not reachable from the root remains (nothing leaked under a detached
 * subtree), and every file that is no longer reachable is in the deferred-delete queue (no
 * file vanished without its chunks being queued for deletion).
 */
class RenameDeleteRaceTest extends ZkFixture {
  static final int FILES = 40;

  @Test
  void renamesRacingRecursiveDeletesLeakNothing() throws Exception {
    NamespaceConfig config = config();
    Namespace ns = Namespace.open(client, config);
    org.apache.curator.framework.CuratorFramework otherClient = newClient();
    Namespace other = Namespace.open(otherClient, config);
    Set<Long> made = new HashSet<>();
    ns.mkdirs("/src");
    ns.mkdirs("/victim/sub");
    for (int i = 0; i < FILES; i++) {
      made.add(ns.create("/src/f" + i, CreateOptions.file().withLease(false)).id());
    }
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Future<?>> jobs = new ArrayList<>();
    // renamer: files into the victim, directories of files out of it
    jobs.add(pool.submit(() -> {
      int i = 0;
      while (!stop.get()) {
        try {
          ns.rename("/src/f" + (i % FILES), "/victim/sub/f" + (i % FILES));
        } catch (NamespaceException e) {
          expect(e, NamespaceStatus.NOT_FOUND);
        }
        try {
          ns.rename("/victim/sub", "/src/moved" + i);
        } catch (NamespaceException e) {
          expect(e, NamespaceStatus.NOT_FOUND);
        }
        i++;
      }
      return null;
    }));
    // creator: new files inside the victim while it is being deleted
    jobs.add(pool.submit(() -> {
      int i = 0;
      while (!stop.get()) {
        try {
          FileStatus f = other.create("/victim/sub/new" + i++,
              CreateOptions.file().withLease(false).withCreateParents(false));
          synchronized (made) {
            made.add(f.id());
          }
        } catch (NamespaceException e) {
          expect(e, NamespaceStatus.NOT_FOUND);
        }
      }
      return null;
    }));
    // deleter: the whole victim, again and again
    jobs.add(pool.submit(() -> {
      while (!stop.get()) {
        other.delete("/victim", true);
        other.mkdirs("/victim/sub");
      }
      return null;
    }));
    Thread.sleep(4000);
    stop.set(true);
    for (Future<?> j : jobs) {
      j.get(60, TimeUnit.SECONDS);
    }
    pool.shutdownNow();
    otherClient.close();
    ns.purgeTrash();

    // what is reachable
    Set<Long> dirs = new HashSet<>();
    Set<Long> files = new HashSet<>();
    walk(ns, "/", dirs, files);
    // every directory container znode belongs to a reachable directory
    ZNodes zn = new ZNodes(config.root());
    Set<Long> containers = new HashSet<>();
    for (int s = 0; s < ZNodes.SHARDS; s++) {
      for (String c : client.getChildren().forPath(zn.shard(s))) {
        containers.add(Long.parseLong(c, 16));
      }
    }
    assertEquals(dirs, containers, "containers of unreachable directories leaked");
    assertEquals(List.of(), client.getChildren().forPath(zn.trash));
    // every file made is reachable or queued for chunk deletion, never both
    DeleteQueue queue = DeleteQueue.open(client, config);
    Set<Long> queued = new HashSet<>();
    for (long id : queue.ids()) {
      queued.add(id);
    }
    for (long id : made) {
      assertTrue(files.contains(id) ^ queued.contains(id), "file " + id + " reachable="
          + files.contains(id) + " queued=" + queued.contains(id));
    }
    assertTrue(queued.size() > 0 && files.size() > 0, "the race exercised both outcomes");
  }

  private static void walk(Namespace ns, String dir, Set<Long> dirs, Set<Long> files)
      throws NamespaceException {
    dirs.add(ns.getStatus(dir).id());
    for (FileStatus f : ns.listAll(dir)) {
      if (f.isDirectory()) {
        walk(ns, f.path(), dirs, files);
      } else {
        files.add(f.id());
      }
    }
  }

  private static void expect(NamespaceException e, NamespaceStatus... ok) throws NamespaceException {
    for (NamespaceStatus s : ok) {
      if (e.status() == s) {
        return;
      }
    }
    throw e;
  }
}
