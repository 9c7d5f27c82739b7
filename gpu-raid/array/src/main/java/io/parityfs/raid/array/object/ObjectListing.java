package io.parityfs.raid.array.object;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The files of one object on some live drives, as listed once, by slot. */
record ObjectListing(long objectId, Map<Integer, List<ObjectFiles.Name>> bySlot) {
  /**
   * Lists {@code objectId}'s files on each live drive among {@code slots}; a drive that fails to
   * list is noted ({@link StoreContext#noteFailure}) and left out.
   */
  static ObjectListing of(StoreContext ctx, long objectId, int[] slots) {
    Map<Integer, List<ObjectFiles.Name>> bySlot = new TreeMap<>();
    for (int slot : slots) {
      if (!ctx.alive(slot)) {
        continue;
      }
      List<String> names;
      try {
        names = ctx.slots().installed(slot).list(ObjectFiles.prefix(objectId));
      } catch (IOException e) {
        ctx.noteFailure(slot, e);
        continue;
      }
      List<ObjectFiles.Name> parsed = new ArrayList<>();
      for (String n : names) {
        ObjectFiles.tryParse(n).filter(name -> name.objectId() == objectId).ifPresent(parsed::add);
      }
      bySlot.put(slot, parsed);
    }
    return new ObjectListing(objectId, bySlot);
  }

  /** The highest tombstone's version, -1 if none: no version at or below it is committed. */
  long tombstone() {
    long t = -1;
    for (List<ObjectFiles.Name> names : bySlot.values()) {
      for (ObjectFiles.Name n : names) {
        if (n.isTombstone()) {
          t = Math.max(t, n.version());
        }
      }
    }
    return t;
  }

  /** Whether a published shard above the highest tombstone is listed. */
  boolean hasShards() {
    long t = tombstone();
    for (List<ObjectFiles.Name> names : bySlot.values()) {
      for (ObjectFiles.Name n : names) {
        if (n.isShard() && n.version() > t) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code slot}'s listing holds exactly {@code name}. */
  boolean has(int slot, ObjectFiles.Name name) {
    return bySlot.getOrDefault(slot, List.of()).contains(name);
  }
}
