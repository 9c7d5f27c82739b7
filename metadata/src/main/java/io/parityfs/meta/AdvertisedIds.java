package io.parityfs.meta;

import io.parityfs.meta.registry.CorruptRecordException;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * The highest file id any registered storage target says it holds chunks or writer fences of:
 * the largest {@code maxFileId} of the target records {@code /parityfs/targets/*} (one {@code
 * getChildren} and one pipelined batch of reads; records without the field, or unreadable ones,
 * count as 0). What {@link IdAllocator} keeps its counter above. Thread-safe.
 */
final class AdvertisedIds {
  /** No target advertises anything (also where no target is registered). */
  static final Highest NONE = new Highest(0, "");

  /**
   * @param fileId the highest file id advertised, 0 for none
   * @param targetId the target advertising it, "" for none
   */
  record Highest(long fileId, String targetId) {}

  private final Zk zk;

  AdvertisedIds(Zk zk) {
    this.zk = zk;
  }

  Highest highest() throws NamespaceException {
    List<String> targets;
    try {
      targets = zk.client().getChildren().forPath(ZkPaths.TARGETS);
    } catch (KeeperException.NoNodeException e) {
      return NONE; // no node ever registered
    } catch (Exception e) {
      throw Zk.failure(ZkPaths.TARGETS, "reading the target records", e);
    }
    List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(targets.size());
    for (String t : targets) {
      reads.add(zk.getDataAsync(ZkPaths.target(t)));
    }
    Highest best = NONE;
    List<CuratorEvent> events = Zk.joinAll(reads, ZkPaths.TARGETS);
    for (int i = 0; i < events.size(); i++) {
      CuratorEvent e = events.get(i);
      if (e.getResultCode() != KeeperException.Code.OK.intValue() || e.getData() == null) {
        continue; // removed meanwhile
      }
      try {
        TargetRecord r = RegistryCodec.decode(e.getData(), TargetRecord.class, e.getPath());
        if (r.maxFileId() > best.fileId()) {
          best = new Highest(r.maxFileId(), targets.get(i));
        }
      } catch (CorruptRecordException unreadable) {
        // a newer schema or damage: the registry reports it; nothing to learn here
      }
    }
    return best;
  }
}
