package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
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
    // This client drops the buckets it wrote at once, and again when their watches fire on
    // ZooKeeper's event thread; a watch landing while the listing's read is in flight makes the
    // cache refuse that (correct) reply, as it must for a read that may predate an invalidation,
    // and the next page reads the bucket again. Let the events land before counting.
    ns.sync();
    assertEquals(new ArrayList<>(expected), names(ns, "/d", 50));
    long reread = ns.bucketReads() - afterFirst;
    assertTrue(reread >= 1 && reread <= 2, "only the changed buckets: " + reread);
  }
}
