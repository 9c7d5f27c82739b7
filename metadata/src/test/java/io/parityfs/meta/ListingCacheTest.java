package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lister keeps each bucket's sorted names with the bucket's child version: paging through an
 * unchanged directory reads its names once, and a create or delete is seen at the next page.
 */
class ListingCacheTest extends ZkFixture {
  @BeforeAll
  static void start() throws Exception {
    startServer();
  }

  @AfterAll
  static void stop() throws Exception {
    stopServer();
  }

  private static List<String> names(Namespace ns, String dir, int pageSize)
      throws NamespaceException {
    List<String> out = new ArrayList<>();
    String after = null;
    do {
      DirectoryPage p = ns.list(dir, after, pageSize);
      p.entries().forEach(s -> out.add(s.path().substring(dir.length() + 1)));
      after = p.next();
    } while (after != null);
    return out;
  }

  /**
   * Waits until the watch events of the changes made so far have run. The client invalidates a
   * bucket it wrote at once, and its watch fires again a little later on ZooKeeper's event thread;
   * if that second invalidation lands while a listing's read of the bucket is in flight, the cache
   * refuses the (correct) reply, as it must for a read that may predate an invalidation, and the
   * next page reads the bucket once more. A background round trip sent now completes on the same
   * event thread after every watch event the server sent before it.
   */
  private static void awaitWatchEvents() throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    client.checkExists().inBackground((c, event) -> done.complete(null)).forPath("/");
    done.get(10, TimeUnit.SECONDS);
  }

  @Test
  void unchangedBucketsAreReadOnceAndChangesAreSeen() throws Exception {
    Namespace ns = newNamespace();
    ns.mkdirs("/d");
    TreeSet<String> expected = new TreeSet<>();
    for (int i = 0; i < 300; i++) {
      String name = String.format("f%04d", i);
      ns.create("/d/" + name, CreateOptions.file());
      expected.add(name);
    }
    assertEquals(new ArrayList<>(expected), names(ns, "/d", 37));
    long afterFirst = ns.bucketReads();
    assertTrue(afterFirst > 0);
    assertEquals(new ArrayList<>(expected), names(ns, "/d", 50));
    assertEquals(afterFirst, ns.bucketReads(), "no bucket changed: no names read again");

    ns.create("/d/new", CreateOptions.file());
    expected.add("new");
    ns.delete("/d/f0007", false);
    expected.remove("f0007");
    awaitWatchEvents();
    assertEquals(new ArrayList<>(expected), names(ns, "/d", 50));
    long reread = ns.bucketReads() - afterFirst;
    assertTrue(reread >= 1 && reread <= 2, "only the changed buckets: " + reread);
  }
}
