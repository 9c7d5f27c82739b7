package io.parityfs.raid.array.object;

/**
 * Told of each change of an object's latest committed version: a write that committed a new
 * version ({@link ObjectWriter#commit}, whatever opened the writer: write, overwrite, append,
 * rewrite) and a delete ({@link ObjectStore#delete}). Registered with {@link
 * StoreContext#onObjectChange}; the scrubber uses it to drop an object from its standing damage
 * once the version it found unrecoverable is replaced.
 *
 * <p>Both are called on the writing thread, under the object's writer lock, once the change is
 * what {@link ManifestCatalog#stat} finds (the committed manifest cached; the delete's tombstones
 * durable and the cached manifest dropped), so a look-up made after a call returns sees the
 * change. They must be quick and must not call into the store; an exception one throws is
 * logged and ignored (the write or delete has happened).
 */
public interface ObjectChangeListener {
  /** {@code version} of {@code objectId} was committed: it is the latest from now on. */
  void committed(long objectId, long version);

  /** {@code objectId} was deleted: no version of it at or below its latest is found any more. */
  void deleted(long objectId);
}
