package io.parityfs.meta;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Hands out inode ids from the shared counter {@code R/ids}, taking a block of ids at a time
 * with a compare-and-set of the counter's znode version. Ids are unique across every client,
 * never reused, and below 2^40 (a storage node stores chunk {@code i} of file {@code id} as
 * object {@code id << 24 | i}). Thread-safe.
 */
final class IdAllocator {
  static final long LIMIT = 1L << 40;

  private final CuratorFramework client;
  private final String counter;
  private final int block;
  private final int maxRetries;
  private long next;
  private long end;

  IdAllocator(CuratorFramework client, String counter, int block, int maxRetries) {
    this.client = client;
    this.counter = counter;
    this.block = block;
    this.maxRetries = maxRetries;
  }

  synchronized long next() throws NamespaceException {
    if (next < end) {
      return next++;
    }
    for (int attempt = 0; attempt < maxRetries; attempt++) {
      Stat stat = new Stat();
      long first;
      try {
        byte[] data = client.getData().storingStatIn(stat).forPath(counter);
        first = Long.parseLong(new String(data, StandardCharsets.US_ASCII).trim());
      } catch (NumberFormatException e) {
        throw new NamespaceException(NamespaceStatus.CORRUPT, counter, "id counter unreadable");
      } catch (Exception e) {
        throw Zk.failure(counter, "reading the id counter", e);
      }
      if (first >= LIMIT) {
        throw new NamespaceException(NamespaceStatus.NO_SPACE, counter,
            "inode ids exhausted (2^40)");
      }
      long last = Math.min(LIMIT, first + block);
      try {
        client.setData().withVersion(stat.getVersion())
            .forPath(counter, Long.toString(last).getBytes(StandardCharsets.US_ASCII));
      } catch (KeeperException.BadVersionException e) {
        continue; // another client took a block first
      } catch (Exception e) {
        throw Zk.failure(counter, "advancing the id counter", e);
      }
      next = first;
      end = last;
      return next++;
    }
    throw new NamespaceException(NamespaceStatus.CONFLICT, counter,
        "id counter contended for " + maxRetries + " attempts");
  }
}
