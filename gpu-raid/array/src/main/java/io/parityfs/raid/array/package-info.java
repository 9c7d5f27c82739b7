/**
 * The node-local RAID array: erasure-coded chunk objects over the node's local drives. Each
 * object is stored as k data shards and m parity shards (or mirrored copies) on distinct drives,
 * with a checksum per cell; drives carry labels so an array re-assembles from the drives alone;
 * failed drives degrade the array, rebuilds restore it, scrubs find and repair silent corruption.
 * See ../shared/DESIGN.md ("Data path, two levels of protection") and docs/array.md.
 *
 * <p>Entry points: {@link io.parityfs.raid.array.RaidArray} (a running array and its admin work)
 * and {@link io.parityfs.raid.array.ObjectStore} (the object operations). Behind the store, a
 * package-private {@code StoreContext} holds what its parts share (slots and drives with their
 * failure accounting in {@code SlotTracker}, codec, I/O engine, locks, counters); {@code
 * ManifestCatalog} the manifests, {@code ObjectWriter} and {@code RangeRead} the data path,
 * {@code ObjectDelete} and {@code GarbageCollector} the removal of files, {@link
 * io.parityfs.raid.array.Rebuilder} and {@link io.parityfs.raid.array.Scrubber} the repair.
 *
 * <p>Below this package: {@link io.parityfs.raid.array.format} (configuration, protection,
 * layout, the on-disk encodings of labels, manifests and shard headers, and the error type) and
 * {@link io.parityfs.raid.array.drive} (the drive I/O seam, the I/O engine, drive locks and label
 * files), on format. This package holds the shard and manifest files, the objects, assembly,
 * rebuild and scrub.
 */
package io.parityfs.raid.array;
