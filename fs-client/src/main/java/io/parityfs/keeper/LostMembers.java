package io.parityfs.keeper;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.targets.TargetInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keeper's hand-off of members a storage node lost (issue 39 item 4): the objects a scrub
 * found unrecoverable on a target (its registry record's lost object ids: a stripe with more
 * bad cells than the node's RAID tolerates) are members of files; each is added to its file's
 * repair record ({@link Namespace#damaged}), so readers read around it (decode from the group's
 * other members, or read another copy) and the keeper's catch-up stores it again from the other
 * nodes ({@link Repairer}). The node forgets an id once the member is stored again (a new
 * version of the object), which lets its target's consistency leave DAMAGED.
 *
 * <p>The files are found by a walk of the namespace (there is no index by file id), only while
 * some target lists an id not handed off yet. A member of a file without protection across
 * nodes has no other copy: it is logged once and left to the admin (restore the file). Ids of no
 * file (deleted since: the orphan collector removes them) are not walked for again. Used by one
 * keeper round at a time.
 */
final class LostMembers {
  private static final Logger LOG = LoggerFactory.getLogger(LostMembers.class);
  private final ParityClient client;
  /** "target/objectId" handed off (or beyond help), kept while their target still lists them. */
  private final Set<String> handled = new HashSet<>();

  LostMembers(ParityClient client) {
    this.client = client;
  }

  /** Hands off what the targets list and was not handed off yet; returns the members. */
  long handOff(BooleanSupplier going) throws IOException {
    Map<Long, Map<String, List<Integer>>> byFile = new HashMap<>();
    Set<String> listed = new HashSet<>();
    for (TargetInfo t : client.registry().targets()) {
      for (long id : t.lostObjectIds()) {
        String key = key(t.id(), id);
        listed.add(key);
        if (!handled.contains(key)) {
          byFile.computeIfAbsent(id / ChunkMap.CHUNK_INDEXES, f -> new HashMap<>())
              .computeIfAbsent(t.id(), x -> new ArrayList<>())
              .add((int) (id % ChunkMap.CHUNK_INDEXES));
        }
      }
    }
    handled.retainAll(listed);
    if (byFile.isEmpty()) {
      return 0;
    }
    Namespace ns = client.namespace();
    long[] members = {0};
    boolean[] whole = {true};
    FileWalk.files(ns, ns.getStatus("/"), f -> {
      if (!going.getAsBoolean()) {
        whole[0] = false;
        return;
      }
      Map<String, List<Integer>> lost = byFile.remove(f.id());
      if (lost != null) {
        members[0] += handOff(f, lost);
      }
    });
    if (whole[0]) {
      // no file has these ids (deleted since): nothing to repair, the orphan collector
      // deletes the objects and the node forgets them then
      byFile.forEach((file, lost) -> lost.forEach((target, indexes) -> indexes.forEach(
          i -> handled.add(key(target, file * ChunkMap.CHUNK_INDEXES + i)))));
    }
    return members[0];
  }

  /** Adds {@code lost} (chunk indexes by target) of {@code f} to its repair record. */
  private long handOff(FileStatus f, Map<String, List<Integer>> lost) throws IOException {
    ChunkMap map = ChunkMap.of(f.layout());
    List<Repairs.Range> ranges = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (Map.Entry<String, List<Integer>> e : lost.entrySet()) {
      String target = e.getKey();
      for (int index : e.getValue()) {
        String key = key(target, f.id() * ChunkMap.CHUNK_INDEXES + index);
        long group = map.groupOf(index);
        if (!f.layout().targets().contains(target) || group >= map.groups(f.length())
            || f.holes().contains(group)) {
          handled.add(key); // not a member of the file as it is: past its end, or moved
          continue;
        }
        if (f.layout().across().isNone()) {
          LOG.error("{}: chunk {} on target {} is lost (a scrub found it unrecoverable) and the"
              + " file has no protection across nodes: restore the file", f.path(), index,
              target);
          handled.add(key);
          continue;
        }
        ranges.add(new Repairs.Range(target, group, group));
        keys.add(key);
      }
    }
    if (ranges.isEmpty() || f.isOpenForWrite()) {
      return 0; // open: the next round, once it is closed
    }
    try {
      client.namespace().damaged(f.path(), f.id(), f.version(), f.generation(),
          new Repairs(ranges));
    } catch (NamespaceException e) {
      switch (e.status()) {
        case CONFLICT, LEASE_CONFLICT, NOT_FOUND -> {
          return 0; // written, opened or removed meanwhile: the next round looks again
        }
        default -> throw e;
      }
    }
    handled.addAll(keys);
    LOG.warn("{}: {} lost members handed to catch-up ({}): stored again from the other nodes",
        f.path(), ranges.size(), new Repairs(ranges));
    return ranges.size();
  }

  private static String key(String target, long objectId) {
    return target + "/" + Long.toHexString(objectId);
  }
}
