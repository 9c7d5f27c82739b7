package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.DriveQueues;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectManifest;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's manifests: the latest committed manifest of each object (cached after a write or a
 * read), looked up on the drives of its placement ({@link #stat}), rebuilt from the shard headers
 * when none reads back ({@link ManifestRecovery}); the commit of a new version's manifests
 * ({@link #commitManifest}) and the deletion of older versions; the listing of object ids.
 *
 * <p>The cache is exact for an object while its writer lock is held: commits put their own
 * manifest, deletes and commits taken back {@link #forget} it. A look-up racing with them never
 * overwrites a newer entry and takes back what a delete may have removed meanwhile. Thread-safe.
 */
public final class ManifestCatalog {
  private static final System.Logger LOG = System.getLogger(ManifestCatalog.class.getName());

  private final StoreContext ctx;
  private final ManifestRecovery recovery;
  private final Map<Long, ObjectManifest> latest = new ConcurrentHashMap<>();
  /**
   * Bumped as a delete (or a commit taken back) starts and again once its manifests are gone
   * from the drives; {@link #stat} caches what it found only if no bump came during its look-up,
   * so a look-up that read a manifest the delete was about to remove never caches it.
   */
  private final AtomicLong forgets = new AtomicLong();

  ManifestCatalog(StoreContext ctx) {
    this.ctx = ctx;
    this.recovery = new ManifestRecovery(ctx);
  }

  /** The manifest rebuilder, for garbage collection. */
  ManifestRecovery recovery() {
    return recovery;
  }

  /** The cached latest manifest of {@code objectId}, or null (exact under the object's lock). */
  ObjectManifest cached(long objectId) {
    return latest.get(objectId);
  }

  /** Drops the cached manifest of {@code objectId}: the next {@link #stat} reads the drives. */
  void evict(long objectId) {
    latest.remove(objectId);
  }

  /** The manifest of the latest committed version, if the object exists. */
  public Optional<ObjectManifest> stat(long objectId) throws IOException {
    ObjectManifest cached = latest.get(objectId);
    if (cached != null) {
      return Optional.of(cached);
    }
    long before = forgets.get();
    Optional<ObjectManifest> found = lookup(objectId);
    // A commit racing with this look-up puts its own (newer) manifest: never overwrite it. A
    // delete racing with it may have removed what it found: then take the entry back.
    found.ifPresent(m -> {
      latest.putIfAbsent(objectId, m);
      if (forgets.get() != before) {
        latest.remove(objectId, m);
      }
    });
    return found;
  }

  /** Drops the cached manifest of {@code objectId} for good (see {@link #forgets}). */
  void forget(long objectId) {
    forgets.incrementAndGet();
    latest.remove(objectId);
    recovery.forget(objectId);
  }

  ObjectManifest manifest(long objectId) throws IOException {
    return stat(objectId).orElseThrow(() -> new ArrayException(ArrayError.OBJECT_NOT_FOUND, null,
        String.format("object %016x has no committed version", objectId)));
  }

  /** The highest version of any file (manifest, shard, temp) of the object on its live drives. */
  long highestVersion(long objectId, int[] slots) throws IOException {
    long max = -1;
    for (int slot : slots) {
      if (!ctx.alive(slot)) {
        continue;
      }
      Drive d = ctx.slots().installed(slot);
      List<String> names;
      try {
        names = d.list(ObjectFiles.prefix(objectId));
      } catch (IOException e) {
        if (!Drive.isDriveFailure(e)) {
          throw e;
        }
        ctx.noteFailure(slot, e); // left out of the write
        continue;
      }
      for (String n : names) {
        Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
        if (name.isPresent() && name.get().objectId() == objectId) {
          max = Math.max(max, name.get().version());
        }
      }
    }
    return max;
  }

  /**
   * The highest version above the highest tombstone with a manifest that reads back on a drive
   * of {@code files}; an unreadable copy is skipped in favour of another drive's.
   */
  Optional<ObjectManifest> latestIn(ObjectListing files) throws IOException {
    long objectId = files.objectId();
    long tombstone = files.tombstone();
    TreeMap<Long, List<Integer>> versions = new TreeMap<>();
    for (Map.Entry<Integer, List<ObjectFiles.Name>> e : files.bySlot().entrySet()) {
      for (ObjectFiles.Name name : e.getValue()) {
        if (name.isManifest() && !name.temp() && name.version() > tombstone) {
          versions.computeIfAbsent(name.version(), v -> new ArrayList<>()).add(e.getKey());
        }
      }
    }
    for (Long v : versions.descendingKeySet()) {
      for (int slot : versions.get(v)) {
        Drive d = ctx.drive(slot);
        if (d == null) {
          continue;
        }
        try {
          return Optional.of(ManifestFile.read(d, objectId, v));
        } catch (NoSuchFileException e) {
          continue; // deleted since listed
        } catch (ArrayException e) {
          ctx.noteFailure(slot, e);
          LOG.log(System.Logger.Level.WARNING, "{0}", e.getMessage());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The latest committed manifest, from the drives; when no readable one is there but published
   * shards of the object are, the manifest rebuilt from their headers ({@link
   * ManifestRecovery#recover}), under the object's lock (taken here unless the calling thread
   * holds it already).
   */
  Optional<ObjectManifest> lookup(long objectId) throws IOException {
    int[] slots = ctx.placement().drivesFor(objectId);
    ObjectListing files = ObjectListing.of(ctx, objectId, slots);
    Optional<ObjectManifest> found = latestIn(files);
    if (found.isPresent() || !files.hasShards()) {
      return found;
    }
    if (ctx.locks().heldByCurrentThread(objectId)) {
      return recovery.recover(files);
    }
    Runnable unlock = ctx.locks().lock(objectId);
    try {
      // a write or a delete may have ended meanwhile
      files = ObjectListing.of(ctx, objectId, slots);
      found = latestIn(files);
      return found.isPresent() || !files.hasShards() ? found : recovery.recover(files);
    } finally {
      unlock.run();
    }
  }

  boolean hasManifest(int slot, ObjectManifest m) throws IOException {
    try {
      ManifestFile.read(ctx.slots().installed(slot), m.objectId(), m.version());
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (ArrayException e) {
      if (Drive.isDriveFailure(e)) {
        throw ctx.noteFailure(slot, e);
      }
      return false; // corrupt: rewrite it
    }
  }

  /** Deletes the manifests, then the shards, of versions below {@code version}. Best effort. */
  void deleteOlderThan(long objectId, long version, int[] slots) {
    for (boolean manifests : new boolean[] {true, false}) {
      for (int slot : slots) {
        if (!ctx.alive(slot)) {
          continue;
        }
        Drive d = ctx.slots().installed(slot);
        try {
          boolean any = false;
          for (String n : d.list(ObjectFiles.prefix(objectId))) {
            Optional<ObjectFiles.Name> name = ObjectFiles.tryParse(n);
            if (name.isPresent() && name.get().version() < version && !name.get().temp()
                && name.get().isManifest() == manifests) {
              any |= d.delete(n);
            }
          }
          if (any) {
            d.syncDirectory();
          }
        } catch (IOException e) {
          ctx.noteFailure(slot, e); // left for collectGarbage
        }
      }
    }
  }

  /**
   * Publishes {@code m}, whose shards are all durable: writes it on every live drive of its
   * placement, in parallel. The version is committed when at least 1 + (tolerance - shards left
   * out) manifests are durable (m+1 on a healthy placement), so it survives as many more drive
   * failures as its shards; a drive failing then only leaves that drive without a manifest
   * ({@link GarbageCollector#collectGarbage()} rolls it forward). With fewer, the manifests
   * written are deleted again and the write fails (the old version stays the latest). Then
   * deletes the object's older versions (best effort).
   *
   * @throws IOException NO_SPACE or NOT_ENOUGH_DRIVES when too few manifests could be written:
   *     the version is not committed
   */
  void commitManifest(ObjectManifest m) throws IOException {
    long objectId = m.objectId();
    List<CompletableFuture<Integer>> writes = new ArrayList<>();
    for (int slot : m.slots()) {
      Drive d = ctx.drive(slot);
      if (d != null) {
        writes.add(ctx.queues().submit(slot, () -> ctx.guard(slot, () -> {
          ManifestFile.write(d, m);
          return slot;
        })));
      }
    }
    latest.remove(objectId);
    IOException failure = null;
    List<Integer> written = new ArrayList<>();
    for (CompletableFuture<Integer> f : writes) {
      try {
        written.add(DriveQueues.join(f));
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: a manifest was not"
            + " written: {2}", String.format("%016x", objectId), m.version(), e.getMessage());
        failure = failure == null ? e : failure;
      }
    }
    // The version must stay readable through as many more drive failures as its shards do:
    // the protection's tolerance less the shards already left out, so that many manifests plus
    // one (m+1 on a healthy array).
    int leftOut = m.slots().size() - writes.size();
    int required = 1 + Math.max(0, ctx.config().protection().tolerates() - leftOut);
    if (written.size() < required) {
      // Not committed: take back the manifests written, so the old version stays the latest.
      for (int slot : written) {
        Drive d = ctx.drive(slot);
        if (d != null) {
          ctx.tolerant(slot, () -> {
            d.delete(ObjectFiles.manifest(objectId, m.version()));
            d.syncDirectory();
            return null;
          }, null);
        }
      }
      forget(objectId);
      deleteShards(m); // else a manifest rebuilt from them would commit what failed here
      String why = String.format("object %016x version %d: %d of %d manifests written, %d needed"
          + " to survive what its shards survive; not committed", objectId, m.version(),
          written.size(), writes.size(), required);
      if (failure instanceof ArrayException a && a.error() == ArrayError.NO_SPACE) {
        throw new ArrayException(ArrayError.NO_SPACE, a.path(), why + ": " + a.getMessage(), a);
      }
      throw new ArrayException(ArrayError.NOT_ENOUGH_DRIVES, null,
          why + (failure == null ? "" : ": " + failure.getMessage()), failure);
    }
    latest.put(objectId, m);
    recovery.forget(objectId);
    ctx.invalidateReaders(objectId);
    // the one place every committed version passes: from here on stat finds it
    ctx.objectCommitted(objectId, m.version());
    if (m.version() > 0) {
      // version 0 is a new object's first (the writer saw no file of it, under its lock):
      // nothing older to delete, so no listing of the drives' folders, which costs more the
      // more objects a drive holds
      deleteOlderThan(objectId, m.version(),
          m.slots().stream().mapToInt(Integer::intValue).toArray());
    }
  }

  /**
   * Deletes the shards of {@code m}'s version, not committed, on the live drives of its slots
   * (best effort: one left behind is garbage for {@link GarbageCollector#collectGarbage()}).
   */
  private void deleteShards(ObjectManifest m) {
    for (int i = 0; i < m.slots().size(); i++) {
      int slot = m.slotOf(i);
      Drive d = ctx.drive(slot);
      if (d == null) {
        continue;
      }
      String name = ObjectFiles.shard(m.objectId(), m.version(), i);
      try {
        if (d.delete(name)) {
          d.syncDirectory();
        }
      } catch (IOException e) {
        ctx.noteFailure(slot, e);
        LOG.log(System.Logger.Level.WARNING, "object {0} version {1}: shard {2} of the version"
            + " not committed was not deleted (left for garbage collection): {3}",
            String.format("%016x", m.objectId()), m.version(), name, e.getMessage());
      }
    }
  }

  /**
   * Ids of every object with a file (manifest, shard or temp file) on a live drive, ascending.
   * A drive that fails to list is marked failed and skipped.
   */
  public SortedSet<Long> objectIds() {
    return scan("", 0, -1L, false);
  }

  /**
   * Ids of the objects in {@code [from, to]} (unsigned, both inclusive) that have a committed
   * manifest on a live drive, ascending unsigned; some may have been deleted since (check with
   * {@link #stat}). Cost: one directory listing per live drive, narrowed by the longest
   * hexadecimal prefix the two bounds share (a range such as one file's chunks lists only their
   * names). A drive that fails to list is marked failed and skipped.
   */
  NavigableSet<Long> listObjects(long from, long to) {
    String a = String.format("%016x", from);
    String b = String.format("%016x", to);
    int common = 0;
    while (common < 16 && a.charAt(common) == b.charAt(common)) {
      common++;
    }
    return scan(a.substring(0, common), from, to, true);
  }

  /**
   * Ids within [from, to] (unsigned) of the files whose names start with {@code prefix} on the
   * live drives: every object file, or only committed manifests.
   */
  private NavigableSet<Long> scan(String prefix, long from, long to,
      boolean manifestsOnly) {
    TreeSet<Long> ids = new TreeSet<>(Long::compareUnsigned);
    for (int s = 0; s < ctx.dataSlots(); s++) {
      if (!ctx.alive(s)) {
        continue;
      }
      try {
        for (String n : ctx.slots().installed(s).list(prefix)) {
          ObjectFiles.tryParse(n).ifPresent(name -> {
            long id = name.objectId();
            if (Long.compareUnsigned(id, from) >= 0 && Long.compareUnsigned(id, to) <= 0
                && (!manifestsOnly || (name.isManifest() && !name.temp()))) {
              ids.add(id);
            }
          });
        }
      } catch (IOException e) {
        ctx.noteFailure(s, e);
      }
    }
    return ids;
  }
}
