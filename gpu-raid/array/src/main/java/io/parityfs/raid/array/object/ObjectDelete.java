package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ObjectManifest;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Deletes of objects ({@link ObjectStore#delete}): by the files its latest manifest names, in
 * phases (tombstones first, then the shards), or, for an object with no committed version, by
 * listing. Thread-safe; each delete holds the object's writer lock.
 */
final class ObjectDelete {
  private final StoreContext ctx;
  private final ManifestCatalog catalog;

  ObjectDelete(StoreContext ctx, ManifestCatalog catalog) {
    this.ctx = ctx;
    this.catalog = catalog;
  }

  /**
   * See {@link ObjectStore#delete}: under the object's lock, the files its latest manifest names,
   * in phases, or by listing when it has no committed version. Whether anything was deleted.
   */
  boolean delete(long objectId) throws IOException {
    Runnable unlock = ctx.locks().lock(objectId);
    try {
      return deleteLocked(objectId);
    } finally {
      unlock.run();
    }
  }

  private boolean deleteLocked(long objectId) throws IOException {
    ObjectManifest cached = catalog.cached(objectId); // exact under the lock: commits put theirs
    Optional<ObjectManifest> m = cached != null ? Optional.of(cached) : catalog.lookup(objectId);
    if (m.isEmpty()) {
      return deleteListed(objectId); // no committed version: whatever files it left (rare)
    }
    catalog.forget(objectId);
    ctx.invalidateReaders(objectId);
    ObjectManifest v = m.get();
    // 1: the manifest becomes the tombstone (or, on a drive without it, the shard does)
    boolean any = onEachDrive(v, (shard, d) -> {
      String tomb = ObjectFiles.tombstone(objectId, v.version());
      try {
        d.rename(ObjectFiles.manifest(objectId, v.version()), tomb);
      } catch (NoSuchFileException noManifest) {
        try {
          d.rename(ObjectFiles.shard(objectId, v.version(), shard), tomb);
        } catch (NoSuchFileException nothing) {
          return false; // no file of the version here (a slot left out, a blank replacement)
        }
      }
      d.syncDirectory();
      return true;
    });
    catalog.forget(objectId); // a stat that read a manifest just renamed cached it meanwhile
    ctx.objectDeleted(objectId); // the tombstones hide it from here on
    // 2: the shards (the version's temps, a rebuild's claimed one included, are not touched)
    any |= onEachDrive(v, (shard, d) -> {
      boolean deleted = d.delete(ObjectFiles.shard(objectId, v.version(), shard));
      if (deleted) {
        d.syncDirectory();
      }
      return deleted;
    });
    // The tombstones stay: collectGarbage removes them with whatever else of the object a
    // failed write or delete may have left at or below their version, which only a listing
    // finds; a tombstone removed before could let an older manifest left behind come back.
    return any;
  }

  /** A step of a delete on the drive holding shard {@code shard}. */
  private interface DriveStep {
    boolean run(int shard, Drive d) throws IOException;
  }

  /**
   * Runs {@code step} on the live drive of every slot of {@code m}, all drives in parallel on
   * their queues, and waits for all; returns whether any returned true. A drive failure marks
   * the drive failed; another error is rethrown once every drive is done.
   */
  private boolean onEachDrive(ObjectManifest m, DriveStep step) throws IOException {
    List<CompletableFuture<Boolean>> steps = new ArrayList<>();
    for (int i = 0; i < m.slots().size(); i++) {
      int shard = i;
      int slot = m.slotOf(i);
      Drive d = ctx.drive(slot);
      if (d != null) {
        steps.add(ctx.queues().submit(slot,
            () -> ctx.tolerant(slot, () -> step.run(shard, d), false)));
      }
    }
    boolean any = false;
    IOException failure = null;
    for (CompletableFuture<Boolean> f : steps) {
      try {
        any |= DriveQueues.join(f);
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
    return any;
  }

  /**
   * A delete by listing: every file of the object on each live drive of its placement, in the
   * phases of {@link #delete}, the tombstones last. For an object with no committed version.
   */
  private boolean deleteListed(long objectId) throws IOException {
    int[] slots = ctx.placement().drivesFor(objectId);
    catalog.forget(objectId);
    ctx.invalidateReaders(objectId);
    Map<Integer, List<String>> names = new TreeMap<>();
    boolean any = false;
    // 1: on each drive, a tombstone (a manifest, or else a shard, renamed: no space needed)
    // covering every version there, and no manifest left; durable before any shard goes
    for (int slot : slots) {
      if (!ctx.alive(slot)) {
        continue;
      }
      Drive d = ctx.slots().installed(slot);
      any |= ctx.tolerant(slot, () -> {
        List<String> listed = new ArrayList<>(d.list(ObjectFiles.prefix(objectId)));
        names.put(slot, listed);
        return tombstone(d, objectId, listed);
      }, false);
    }
    catalog.forget(objectId); // a stat that read a manifest just renamed cached it meanwhile
    ctx.objectDeleted(objectId); // the tombstones hide whatever version it had
    // 2: everything else (a claimed temp is a rebuild's: it sees the delete), 3: the tombstones
    for (boolean tombstones : new boolean[] {false, true}) {
      for (Map.Entry<Integer, List<String>> e : names.entrySet()) {
        int slot = e.getKey();
        Drive d = ctx.drive(slot);
        if (d == null) {
          continue;
        }
        boolean deleted = ctx.tolerant(slot, () -> {
          boolean gone = false;
          for (String n : e.getValue()) {
            Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
            if (name.isPresent() && name.get().isTombstone() == tombstones
                && !ctx.claimed(d, name.get(), n)) {
              gone |= d.delete(n);
            }
          }
          if (gone) {
            d.syncDirectory();
          }
          return gone;
        }, false);
        any |= deleted && !tombstones; // an earlier delete's tombstones: nothing was there
      }
    }
    return any;
  }

  /**
   * Phase 1 of a delete on one drive: renames its highest manifest (or, with none, its highest
   * shard) to a tombstone at the highest version of any file of the object there, deletes the
   * other manifests, and syncs; {@code listed} then holds the tombstone's name in place of the
   * renamed file. Returns whether anything changed.
   */
  private static boolean tombstone(Drive d, long objectId, List<String> listed)
      throws IOException {
    long top = -1;
    String source = null;
    boolean sourceIsManifest = false;
    for (String n : listed) {
      Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
      if (name.isEmpty() || name.get().temp()) {
        continue;
      }
      top = Math.max(top, name.get().version());
      if (name.get().isManifest() || (!sourceIsManifest && name.get().isShard())) {
        source = n; // listed in version order: the last is the highest
        sourceIsManifest = name.get().isManifest();
      }
    }
    if (top < 0) {
      return false; // only temps: deleted in phase 2
    }
    String tomb = ObjectFiles.tombstone(objectId, top);
    boolean changed = false;
    if (!listed.contains(tomb) && source != null) {
      d.rename(source, tomb);
      listed.remove(source);
      listed.add(tomb);
      changed = true;
    }
    for (String n : listed) {
      Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
      if (name.isPresent() && name.get().isManifest() && !name.get().temp()) {
        changed |= d.delete(n);
      }
    }
    listed.removeIf(n -> ObjectFiles.tryParse(n).map(x -> x.isManifest() && !x.temp())
        .orElse(false));
    if (changed) {
      d.syncDirectory();
    }
    return changed;
  }
}
