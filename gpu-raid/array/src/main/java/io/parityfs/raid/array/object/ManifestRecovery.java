package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.ShardHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rebuilds a lost manifest from the headers of an object's shards (audit D7), for {@link
 * ManifestCatalog}'s look-ups and for garbage collection; remembers the versions it could not
 * rebuild so that look-ups do not verify the same shards again and again. Thread-safe; {@link
 * #recover} runs under the object's lock.
 */
final class ManifestRecovery {
  private static final System.Logger LOG = System.getLogger(ManifestRecovery.class.getName());

  private final StoreContext ctx;
  /**
   * Per object: the version whose manifest could not be rebuilt from its shards ({@link
   * #recover}), so that look-ups do not verify the same shards again and again; dropped when the
   * object is written or deleted ({@link #forget}).
   */
  private final Map<Long, Long> unrecoverable = new ConcurrentHashMap<>();

  ManifestRecovery(StoreContext ctx) {
    this.ctx = ctx;
  }

  /** Forgets that a version of {@code objectId} could not be rebuilt: it was written or deleted. */
  void forget(long objectId) {
    unrecoverable.remove(objectId);
  }

  /**
   * Rebuilds the manifest of an object that has published shards but no readable manifest on
   * any live drive of its placement (audit D7: every drive holding one failed, or every copy
   * rotted), from its shard headers; call under the object's lock. The candidate is the highest
   * version of any shard or manifest listed, and it is rebuilt only when all of this holds:
   *
   * <ul>
   *   <li>no tombstone at or above it (a delete in progress; deleted versions never come back);
   *   <li>something says it was committed: a manifest of it was listed but does not read back,
   *       or fewer than all of its shards are present (the drives that held its manifests are
   *       gone). All shards present and no manifest at all is a write that never committed (a
   *       commit that found too few manifests durable, a crash before the first): garbage;
   *   <li>the headers of its shards agree with each other and with their file names and slots,
   *       and at least k of them verify (every cell against its CRC).
   * </ul>
   *
   * Then the manifest (the writer's own: the headers carry its length, geometry, creation time
   * and tag; placement gives the slots) is written again on every live drive of the placement and
   * a WARNING names the object and version. Empty when it cannot be rebuilt.
   */
  Optional<ObjectManifest> recover(ObjectListing files) throws IOException {
    long id = files.objectId();
    long tombstone = files.tombstone();
    long version = -1;
    for (List<ObjectFiles.Name> names : files.bySlot().values()) {
      for (ObjectFiles.Name n : names) {
        if (!n.temp() && !n.isTombstone()) {
          version = Math.max(version, n.version());
        }
      }
    }
    if (version < 0 || version <= tombstone) {
      return Optional.empty();
    }
    Long refused = unrecoverable.get(id);
    if (refused != null && refused == version) {
      return Optional.empty(); // tried before: nothing has brought a missing shard back since
    }
    int[] slots = ctx.placement().drivesFor(id);
    boolean unreadableManifest = false;
    int present = 0;
    for (int i = 0; i < slots.length; i++) {
      unreadableManifest |= files.has(slots[i],
          new ObjectFiles.Name(id, version, ObjectFiles.Name.MANIFEST, false));
      present += files.has(slots[i], new ObjectFiles.Name(id, version, i, false)) ? 1 : 0;
    }
    String which = String.format("object %016x version %d", id, version);
    if (!unreadableManifest && present == slots.length) {
      return Optional.empty(); // never committed (see above): collectGarbage deletes it
    }
    ShardHeader first = null;
    int verified = 0;
    for (int i = 0; i < slots.length; i++) {
      Drive d = ctx.drive(slots[i]);
      if (d == null || !files.has(slots[i], new ObjectFiles.Name(id, version, i, false))) {
        continue;
      }
      String name = ObjectFiles.shard(id, version, i);
      try (ShardReader r = ShardReader.open(d, name)) {
        ShardHeader h = r.header();
        if (h.objectId() != id || h.objectVersion() != version || h.shardIndex() != i
            || (first != null && !sameVersion(first, h))
            || h.protection().width() != slots.length) {
          LOG.log(System.Logger.Level.WARNING, "{0}: no manifest, and shard {1} on slot {2}"
              + " disagrees with its name or the other shards ({3}); not rebuilt", which, i,
              slots[i], h);
          unrecoverable.put(id, version);
          return Optional.empty();
        }
        first = first == null ? h : first;
        verified += verifies(d, r) ? 1 : 0;
      } catch (NoSuchFileException e) {
        continue; // deleted since listed
      } catch (ArrayException e) {
        ctx.noteFailure(slots[i], e); // a drive failure; a corrupt shard just does not count
      }
    }
    int k = first == null ? Integer.MAX_VALUE : first.layout().dataShards();
    if (verified < k) {
      LOG.log(System.Logger.Level.WARNING, "{0}: no readable manifest and {1} verified shards of"
          + " {2} present; not rebuilt", which, verified, present);
      unrecoverable.put(id, version);
      return Optional.empty();
    }
    ObjectManifest m =
        ObjectManifest.of(id, version, first.layout(), slots, first.created(), first.tag());
    int written = 0;
    for (int slot : slots) {
      Drive d = ctx.drive(slot);
      if (d != null && ctx.tolerant(slot, () -> {
        ManifestFile.write(d, m);
        return true;
      }, false)) {
        written++;
      }
    }
    LOG.log(System.Logger.Level.WARNING, "{0}: no readable manifest on any live drive; rebuilt it"
        + " from {1} verified shard headers ({2} of {3} shards present) and wrote it on {4}"
        + " drives", which, verified, present, slots.length, written);
    return Optional.of(m);
  }

  /** Whether two shard headers describe the same object version (all but the shard itself). */
  private static boolean sameVersion(ShardHeader a, ShardHeader b) {
    return a.objectId() == b.objectId() && a.objectVersion() == b.objectVersion()
        && a.protection().equals(b.protection()) && a.cellSize() == b.cellSize()
        && a.objectLength() == b.objectLength() && a.created().equals(b.created())
        && a.tag().equals(b.tag());
  }

  /** Whether every cell of the shard {@code r} reads passes its CRC. */
  private boolean verifies(Drive d, ShardReader r) throws IOException {
    ShardHeader h = r.header();
    int perRead = Math.max(1, (1 << 20) / h.cellSize());
    ByteBuffer buf = d.allocateAligned(perRead * h.cellSize());
    for (int c = 0; c < h.cellCount(); c += perRead) {
      int n = Math.min(perRead, h.cellCount() - c);
      buf.clear().limit(n * h.cellSize());
      if (r.readRange((long) c * h.cellSize(), (long) n * h.cellSize(), buf).length > 0) {
        return false;
      }
    }
    return true;
  }
}
