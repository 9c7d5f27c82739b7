package io.parityfs.meta;

import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * Benchmark setup only: fills a directory with closed, empty files by writing, 1,000 per {@code
 * multi}, exactly the entry records that create + complete leave (as {@code LargeDirectoryTest}
 * does), which is ParityFS's fastest way to make 100,000 entries. Not part of the product: it
 * lives beside the benchmark and is compiled only by the {@code bench} profile.
 */
public final class DirectoryFiller {
  private DirectoryFiller() {}

  /**
   * Makes {@code count} files {@code prefix%07d} in the existing directory {@code dir}.
   *
   * @param firstId inode ids used are {@code firstId ..< firstId + count}: a range the
   *     namespace's allocator will not reach during the run
   */
  public static void fill(Namespace ns, CuratorFramework client, String dir, String prefix,
      int count, long firstId) throws Exception {
    FileStatus d = ns.getStatus(dir);
    ZNodes zn = new ZNodes(ns.config().root());
    int buckets = ns.config().bucketsPerDirectory();
    for (int b = 0; b < buckets; b++) {
      try {
        client.create().forPath(zn.container(d.id()) + "/" + Names.bucketName(b));
      } catch (KeeperException.NodeExistsException e) {
        // made by an earlier create in the directory
      }
    }
    Zk zk = new Zk(client);
    List<Op> ops = new ArrayList<>();
    CreateOptions options = CreateOptions.file().withOwner(ns.caller().user(),
        ns.caller().groups().isEmpty() ? "supergroup" : ns.caller().groups().get(0));
    for (int i = 0; i < count; i++) {
      String name = String.format("%s%07d", prefix, i);
      Inode inode = Inode.newFile(firstId + i, System.currentTimeMillis(), options, d.layout(),
          null).withLength(0);
      ops.add(zk.create(zn.entry(d.id(), buckets, name), InodeCodec.encode(inode)));
      if (ops.size() == 1000 || i == count - 1) {
        Zk.Failure f = zk.multi(ops, null, dir);
        if (f != null) {
          throw new IllegalStateException("filling " + dir + ": " + f);
        }
        ops.clear();
      }
    }
  }
}
