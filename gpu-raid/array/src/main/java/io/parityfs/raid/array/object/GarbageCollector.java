package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.format.ObjectManifest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Garbage collection of what crashes, failed writes and deletes left on the drives: the pass
 * at open ({@link #collectGarbage()}) and the pass for a store in use ({@link
 * #collectGarbageOnline}), which share one listing of every live drive and the per-object
 * collection ({@link #collectGarbage(long, List)}). Each object is collected under its writer
 * lock. Thread-safe.
 */
final class GarbageCollector {
  private static final System.Logger LOG = System.getLogger(GarbageCollector.class.getName());

  private final StoreContext ctx;
  private final ManifestCatalog catalog;
  private final AtomicLong garbageDeleted = new AtomicLong();
  private final AtomicLong garbagePasses = new AtomicLong();

  GarbageCollector(StoreContext ctx, ManifestCatalog catalog) {
    this.ctx = ctx;
    this.catalog = catalog;
  }

  /**
   * The pass at open; see {@link ObjectStore#collectGarbage}. Every object listed on a drive is
   * collected, under its writer lock (waited for).
   */
  long collectGarbage() throws IOException {
    Map<Long, Map<Integer, List<ObjectFiles.Name>>> objects = listEveryDrive(true);
    long deleted = 0;
    for (Map.Entry<Long, Map<Integer, List<ObjectFiles.Name>>> e : objects.entrySet()) {
      Runnable unlock = ctx.locks().lock(e.getKey());
      try {
        deleted += collectGarbage(e.getKey(), new ArrayList<>(e.getValue().keySet()));
      } finally {
        unlock.run();
      }
    }
    garbageDeleted.addAndGet(deleted);
    if (deleted > 0) {
      LOG.log(System.Logger.Level.INFO, "garbage collection deleted {0} files", deleted);
    }
    return deleted;
  }

  /**
   * The pass for a store in use; see {@link ObjectStore#collectGarbageOnline}. Only the objects
   * whose listed files look like garbage are collected, each under its writer lock taken without
   * waiting (a held lock leaves the object for the next pass).
   */
  ObjectStore.GarbagePass collectGarbageOnline() throws IOException {
    Map<Long, List<Integer>> suspects = new TreeMap<>(Long::compareUnsigned);
    Map<Long, Map<Integer, List<ObjectFiles.Name>>> byObject = listEveryDrive(false);
    Map<Long, Map<Integer, List<ObjectFiles.Name>>> finished = new TreeMap<>();
    for (Map.Entry<Long, Map<Integer, List<ObjectFiles.Name>>> e : byObject.entrySet()) {
      if (onlyTombstones(e.getValue())) {
        finished.put(e.getKey(), e.getValue());
      } else if (looksLikeGarbage(e.getValue())) {
        suspects.put(e.getKey(), new ArrayList<>(e.getValue().keySet()));
      }
    }
    long deleted = 0;
    int busy = 0;
    for (Map.Entry<Long, Map<Integer, List<ObjectFiles.Name>>> e : finished.entrySet()) {
      Runnable unlock = ctx.locks().tryLock(e.getKey());
      if (unlock == null) {
        busy++;
        continue;
      }
      try {
        deleted += dropTombstones(e.getValue());
      } finally {
        unlock.run();
      }
    }
    for (Map.Entry<Long, List<Integer>> e : suspects.entrySet()) {
      Runnable unlock = ctx.locks().tryLock(e.getKey());
      if (unlock == null) {
        busy++;
        continue;
      }
      try {
        List<Integer> slots = e.getValue();
        for (int slot : ctx.placement().drivesFor(e.getKey())) {
          slots.add(slot); // where a file written since the listing may be too
        }
        deleted += collectGarbage(e.getKey(), slots);
      } finally {
        unlock.run();
      }
    }
    garbageDeleted.addAndGet(deleted);
    garbagePasses.incrementAndGet();
    if (deleted > 0 || busy > 0) {
      LOG.log(System.Logger.Level.INFO, "garbage collection pass: {0} files deleted, {1} of {2}"
          + " suspect objects busy (left for the next pass)", deleted, busy, suspects.size());
    }
    return new ObjectStore.GarbagePass(suspects.size() + finished.size(), busy, deleted);
  }

  /**
   * One listing of every live drive: per object, per slot, the object files there, in listing
   * order ({@code withClaimed} false: temps a rebuild or scrub claimed left out). A drive that
   * fails to list is marked failed and left out.
   */
  private Map<Long, Map<Integer, List<ObjectFiles.Name>>> listEveryDrive(boolean withClaimed)
      throws IOException {
    Map<Long, Map<Integer, List<ObjectFiles.Name>>> byObject = new TreeMap<>();
    for (int s = 0; s < ctx.dataSlots(); s++) {
      if (!ctx.alive(s)) {
        continue;
      }
      Drive d = ctx.slots().installed(s);
      int slot = s;
      for (String n : ctx.tolerant(s, () -> d.list(""), List.<String>of())) {
        ObjectFiles.tryParse(n).ifPresent(name -> {
          if (withClaimed || !ctx.claimed(d, name, n)) {
            byObject.computeIfAbsent(name.objectId(), id -> new TreeMap<>())
                .computeIfAbsent(slot, x -> new ArrayList<>()).add(name);
          }
        });
      }
    }
    return byObject;
  }

  /** Whether one object's listed files are tombstones only: a delete that ran to its end. */
  private static boolean onlyTombstones(Map<Integer, List<ObjectFiles.Name>> bySlot) {
    for (List<ObjectFiles.Name> names : bySlot.values()) {
      for (ObjectFiles.Name n : names) {
        if (!n.isTombstone()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Deletes the tombstones of an object that had no other file on any live drive when listed;
   * under its lock. No file at or below a tombstone appears after its delete (a new write takes
   * a higher version; a rebuild's temp of a deleted version is dropped by the rebuild), so they
   * go without another listing.
   */
  private long dropTombstones(Map<Integer, List<ObjectFiles.Name>> bySlot) throws IOException {
    long n = 0;
    for (Map.Entry<Integer, List<ObjectFiles.Name>> e : bySlot.entrySet()) {
      int slot = e.getKey();
      Drive d = ctx.drive(slot);
      if (d == null) {
        continue;
      }
      n += ctx.tolerant(slot, () -> {
        long gone = 0;
        for (ObjectFiles.Name t : e.getValue()) {
          gone += d.delete(t.toString()) ? 1 : 0;
        }
        if (gone > 0) {
          d.syncDirectory();
        }
        return gone;
      }, 0L);
    }
    return n;
  }

  /** Files deleted by garbage collection since the store opened, the pass at open included. */
  long garbageDeleted() {
    return garbageDeleted.get();
  }

  /** Runtime garbage collection passes ({@link #collectGarbageOnline}) since the store opened. */
  long garbagePasses() {
    return garbagePasses.get();
  }

  /** Whether one object's listed files (claimed temps left out) hold something to collect. */
  private static boolean looksLikeGarbage(Map<Integer, List<ObjectFiles.Name>> bySlot) {
    long version = -1;
    boolean manifest = false;
    for (List<ObjectFiles.Name> names : bySlot.values()) {
      for (ObjectFiles.Name n : names) {
        if (n.temp() || n.isTombstone() || (version >= 0 && n.version() != version)) {
          return true;
        }
        version = n.version();
        manifest |= n.isManifest();
      }
    }
    return !manifest;
  }

  /** {@link #collectGarbage} of one object, found on {@code found} slots, under its lock. */
  private long collectGarbage(long id, List<Integer> found) throws IOException {
    long deleted = 0;
    {
      catalog.evict(id);
      ctx.invalidateReaders(id);
      int[] slots = found.stream().distinct().mapToInt(Integer::intValue).toArray();
      ObjectListing listed = ObjectListing.of(ctx, id, slots);
      long tombstone = listed.tombstone();
      Optional<ObjectManifest> committed = catalog.latestIn(listed);
      if (committed.isEmpty() && listed.hasShards()) {
        committed = catalog.recovery().recover(
            ObjectListing.of(ctx, id, ctx.placement().drivesFor(id)));
      }
      if (committed.isPresent()) {
        ObjectManifest m = committed.get();
        for (int slot : m.slots()) {
          if (ctx.alive(slot) && !ctx.tolerant(slot, () -> catalog.hasManifest(slot, m), true)) {
            LOG.log(System.Logger.Level.INFO, "object {0} version {1}: manifest rewritten on slot"
                + " {2}", String.format("%016x", id), m.version(), slot);
            ctx.tolerant(slot, () -> {
              ManifestFile.write(ctx.slots().installed(slot), m);
              return null;
            }, null);
          }
        }
      }
      long keep = committed.map(ObjectManifest::version).orElse(-1L);
      // Newer files are deleted only when provably uncommitted: no manifest of their version on
      // any drive (an unreadable one keeps them, for an admin to look at) and every drive of the
      // placement listed (a failed drive might hold the one manifest that commits them).
      Set<Long> manifested = new HashSet<>();
      for (int slot : slots) {
        Drive d = ctx.drive(slot);
        if (d == null) {
          continue;
        }
        for (String f : ctx.tolerant(slot, () -> d.list(ObjectFiles.prefix(id)),
            List.<String>of())) {
          ObjectFiles.tryParse(f).filter(n -> n.isManifest() && !n.temp())
              .ifPresent(n -> manifested.add(n.version()));
        }
      }
      boolean allListed = true;
      for (int slot : ctx.placement().drivesFor(id)) {
        allListed &= ctx.alive(slot);
      }
      boolean newerAreGarbage = allListed;
      for (int slot : slots) {
        Drive d = ctx.drive(slot);
        if (d == null) {
          continue;
        }
        deleted += ctx.tolerant(slot, () -> {
          long n = 0;
          List<String> tombstones = new ArrayList<>();
          for (String f : d.list(ObjectFiles.prefix(id))) {
            Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(f);
            if (name.isEmpty()) {
              continue;
            }
            if (ctx.claimed(d, name.get(), f)) {
              continue; // a running rebuild's
            }
            long v = name.get().version();
            if (name.get().isTombstone() && v > keep) {
              tombstones.add(f); // after the files it covers are gone
              continue;
            }
            boolean garbage = name.get().temp() || v < keep || v <= tombstone
                || (v > keep && newerAreGarbage && !manifested.contains(v));
            if (garbage) {
              n += d.delete(f) ? 1 : 0;
            } else if (v > keep && !name.get().temp()) {
              LOG.log(System.Logger.Level.WARNING, "object {0}: {1} kept: version {2} may be"
                  + " committed (manifest unreadable or a drive unavailable)",
                  String.format("%016x", id), f, v);
            }
          }
          if (n > 0) {
            d.syncDirectory();
          }
          if (!tombstones.isEmpty()) {
            for (String t : tombstones) {
              n += d.delete(t) ? 1 : 0;
            }
            d.syncDirectory();
          }
          return n;
        }, 0L);
      }
    }
    if (deleted > 0) {
      catalog.forget(id);
    }
    return deleted;
  }
}
