package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A directory of 100,000 entries: more than one {@code getChildren} reply could hold with the
 * default 1 MiB jute.maxbuffer, so it only works because entries are bucketed.
 */
class LargeDirectoryTest extends ZkFixture {
  static final int ENTRIES = Integer.getInteger("parityfs.test.largeDirectory", 100_000);

  @Test
  void listsAHundredThousandEntriesInSortedPages() throws Exception {
    Namespace ns = newNamespace();
    ns.mkdirs("/big");
    long t0 = System.nanoTime();
    // 100,000 creates one by one take ~80 s on a 2-core machine with fsync; the test loads the
    // entries in batched multis of exactly what create writes (create itself is tested elsewhere)
    FileStatus big = ns.getStatus("/big");
    ZNodes zn = new ZNodes(ns.config().root());
    int buckets = ns.config().bucketsPerDirectory();
    for (int b = 0; b < buckets; b++) {
      client.create().forPath(zn.container(big.id()) + "/" + Names.bucketName(b));
    }
    Zk zk = new Zk(client);
    List<org.apache.zookeeper.Op> ops = new ArrayList<>();
    for (int i = 0; i < ENTRIES; i++) {
      String name = String.format("part-%06d.parquet", i);
      Inode inode = Inode.newFile(1_000_000 + i, System.currentTimeMillis(),
          CreateOptions.file().withOwner("root", "root"), big.layout(), null);
      ops.add(zk.create(zn.entry(big.id(), buckets, name), InodeCodec.encode(inode)));
      if (ops.size() == 1000 || i == ENTRIES - 1) {
        assertEquals(null, zk.multi(ops, null, "/big"));
        ops.clear();
      }
    }
    long t1 = System.nanoTime();
    int seen = 0;
    int pages = 0;
    String cursor = null;
    String previous = "";
    do {
      DirectoryPage page = ns.list("/big", cursor, 1000);
      pages++;
      for (FileStatus s : page.entries()) {
        assertEquals(String.format("/big/part-%06d.parquet", seen), s.path());
        assertTrue(s.path().compareTo(previous) > 0);
        previous = s.path();
        seen++;
      }
      cursor = page.next();
    } while (cursor != null);
    long t2 = System.nanoTime();
    assertEquals(ENTRIES, seen);
    assertEquals((ENTRIES + 999) / 1000, pages);
    // a page from the middle, and a stat, still cost what they cost in a small directory
    DirectoryPage mid = ns.list("/big", String.format("part-%06d.parquet", ENTRIES / 2), 5);
    assertEquals(String.format("/big/part-%06d.parquet", ENTRIES / 2 + 1),
        mid.entries().get(0).path());
    assertTrue(ns.getStatus("/big/part-000042.parquet").isFile());
    // renaming the big directory is still one multi; deleting it is a purge
    ns.rename("/big", "/moved");
    assertTrue(ns.exists("/moved/part-000042.parquet"));
    long t3 = System.nanoTime();
    assertTrue(ns.delete("/moved", true));
    long t4 = System.nanoTime();
    assertEquals(List.of(), ns.listAll("/"));
    System.out.printf("large directory: %d loaded %.1f s, %d pages listed %.1f s,"
        + " recursive delete %.1f s%n", ENTRIES, (t1 - t0) / 1e9, pages, (t2 - t1) / 1e9,
        (t4 - t3) / 1e9);
  }
}
