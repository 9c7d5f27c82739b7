/**
 * The object store of an assembled array: {@link io.parityfs.raid.array.object.ObjectStore} (the
 * object operations) and {@link io.parityfs.raid.array.object.ObjectWriter} (a streaming write).
 * Behind the store, {@link io.parityfs.raid.array.object.StoreContext} holds what its parts share
 * (slots and drives with their failure accounting in {@link
 * io.parityfs.raid.array.object.SlotTracker}, codec, I/O engine, locks, counters); {@link
 * io.parityfs.raid.array.object.ManifestCatalog} the manifests (with {@code ManifestRecovery}
 * rebuilding lost ones from shard headers); {@code RangeRead} the read path; {@code
 * ObjectDelete} and {@code GarbageCollector} the removal of files; {@link
 * io.parityfs.raid.array.object.ShardWriter}, {@link io.parityfs.raid.array.object.ShardReader}
 * and {@link io.parityfs.raid.array.object.ManifestFile} the files on one drive, named by {@link
 * io.parityfs.raid.array.object.ObjectFiles}.
 *
 * <p>On {@link io.parityfs.raid.array.assembly}, {@link io.parityfs.raid.array.drive} and {@link
 * io.parityfs.raid.array.format}. The context, the catalog and the file classes are public for
 * {@link io.parityfs.raid.array.repair}, which rebuilds and scrubs through them; the rest of the
 * store's machinery is package-private.
 */
package io.parityfs.raid.array.object;
