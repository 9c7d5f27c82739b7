/**
 * The node-local RAID array: erasure-coded chunk objects over the node's local drives. Each
 * object is stored as k data shards and m parity shards (or mirrored copies) on distinct drives,
 * with a checksum per cell; drives carry labels so an array re-assembles from the drives alone;
 * failed drives degrade the array, rebuilds restore it, scrubs find and repair silent corruption.
 * See ../shared/DESIGN.md ("Data path, two levels of protection") and docs/array.md.
 *
 * <p>This package holds the running array, {@link io.parityfs.raid.array.RaidArray}: it opens an
 * array from its labels, serves its {@link io.parityfs.raid.array.object.ObjectStore}, and runs
 * the admin work (drive failures, rebuilds, scrubs, garbage collection) around it. Its
 * sub-packages, bottom up, each using only those below it:
 *
 * <ul>
 *   <li>{@link io.parityfs.raid.array.format}: configuration, protection, layout and placement,
 *       the on-disk encodings of labels, manifests and shard headers, and the error type;
 *   <li>{@link io.parityfs.raid.array.drive}: the drive I/O seam, the I/O engine, drive locks and
 *       label files;
 *   <li>{@link io.parityfs.raid.array.assembly}: the array as its labels describe it (creation,
 *       assembly, label changes, health);
 *   <li>{@link io.parityfs.raid.array.object}: the object store (shard and manifest files, the
 *       write and read paths, delete, garbage collection);
 *   <li>{@link io.parityfs.raid.array.repair}: rebuild and scrub, with the schedules of the
 *       background passes.
 * </ul>
 */
package io.parityfs.raid.array;
