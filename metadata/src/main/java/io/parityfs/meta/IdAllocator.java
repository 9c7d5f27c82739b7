package io.parityfs.meta;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out inode ids from the shared counter {@code R/ids}, taking a block of ids at a time
 * with a compare-and-set of the counter's znode version. Ids are unique across every client,
 * never reused, and below 2^40 (a storage node stores chunk {@code i} of file {@code id} as
 * object {@code id << 24 | i}). Thread-safe.
 *
 * <p><b>A rolled-back counter.</b> Restoring ZooKeeper from an older backup (or formatting a
 * fresh namespace over storage that holds data) rolls the counter back below ids whose chunks
 * and writer fences the storage targets still hold; a new file given such an id would find
 * those chunks as its own. So every block is taken past the highest file id any registered
 * target advertises ({@link AdvertisedIds}, the {@code maxFileId} of the target records):
 * when the counter is at or below it, the counter jumps past it, the ids jumped over are
 * recorded in {@code R/idskips} in the same {@code multi} (the orphan collector keeps chunks of
 * them: this namespace never handed them out) and a WARNING says the namespace was rolled back.
 * {@link #raisePastAdvertised()} does the same without taking ids, at open; with {@link
 * #checkAgainst} every id of a block already taken is checked against a live view too.
 */
final class IdAllocator {
  static final long LIMIT = 1L << 40;
  private static final Logger LOG = LoggerFactory.getLogger(IdAllocator.class);

  private final CuratorFramework client;
  private final String counter;
  private final String skips;
  private final int block;
  private final int maxRetries;
  private final AdvertisedIds advertised;
  private long next;
  private long end;
  private volatile LongSupplier live;

  IdAllocator(CuratorFramework client, ZNodes zn, int block, int maxRetries,
      AdvertisedIds advertised) {
    this.client = client;
    this.counter = zn.ids;
    this.skips = zn.idSkips;
    this.block = block;
    this.maxRetries = maxRetries;
    this.advertised = advertised;
  }

  synchronized long next() throws NamespaceException {
    if (next < end) {
      LongSupplier h = live;
      if (h == null || next > h.getAsLong()) {
        return next++;
      }
      // a target that registered since this block was taken holds ids of it: drop the rest
    }
    advance(block);
    return next++;
  }

  /**
   * Checks every id handed out from a block already taken against {@code highest} (a live
   * view of the advertised ids, the target registry's), so that a target registering after
   * the block was taken (one that was away during a restore) ends the block at once.
   */
  void checkAgainst(LongSupplier highest) {
    live = highest;
  }

  /**
   * Raises the counter past the highest file id a registered target advertises, if it is not
   * past it already (logging a WARNING: the namespace was rolled back); takes no ids.
   */
  synchronized void raisePastAdvertised() throws NamespaceException {
    advance(0);
  }

  /** Takes {@code count} ids from the counter (none: only raises it past the advertised ids). */
  private void advance(int count) throws NamespaceException {
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
      AdvertisedIds.Highest held = advertised.highest();
      long start = Math.max(first, held.fileId() + 1);
      if (start >= LIMIT) {
        throw new NamespaceException(NamespaceStatus.NO_SPACE, counter,
            "inode ids exhausted (2^40)");
      }
      if (count == 0 && start == first) {
        return;
      }
      long last = Math.min(LIMIT, start + count);
      try {
        byte[] value = Long.toString(last).getBytes(StandardCharsets.US_ASCII);
        if (start == first) {
          client.setData().withVersion(stat.getVersion()).forPath(counter, value);
        } else {
          Stat skipStat = new Stat();
          List<long[]> ranges = IdSkips.decode(
              client.getData().storingStatIn(skipStat).forPath(skips), skips);
          ranges.add(new long[] {first, start});
          client.transaction().forOperations(
              client.transactionOp().setData().withVersion(stat.getVersion())
                  .forPath(counter, value),
              client.transactionOp().setData().withVersion(skipStat.getVersion())
                  .forPath(skips, IdSkips.encode(ranges)));
          LOG.warn("{}: the id counter was at {} but target {}"
              + " holds chunks or fences of file id {}: the namespace was rolled back (a"
              + " ZooKeeper restored from an older backup?) or formatted over storage that"
              + " holds data; the counter now skips to {} (ids [{}, {}) recorded in {},"
              + " never handed out; their chunks are kept)", counter, Long.toString(first),
              held.targetId(), Long.toString(held.fileId()), Long.toString(start),
              Long.toString(first), Long.toString(start), skips);
        }
      } catch (KeeperException.BadVersionException e) {
        continue; // another client took a block (or raised the counter) first
      } catch (NamespaceException e) {
        throw e;
      } catch (Exception e) {
        throw Zk.failure(counter, "advancing the id counter", e);
      }
      next = start;
      end = last;
      return;
    }
    throw new NamespaceException(NamespaceStatus.CONFLICT, counter,
        "id counter contended for " + maxRetries + " attempts");
  }
}
