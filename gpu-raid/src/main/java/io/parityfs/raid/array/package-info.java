/**
 * The node-local RAID array: erasure-coded chunk objects over the node's local drives. Each
 * object is stored as k data shards and m parity shards (or mirrored copies) on distinct drives,
 * with a checksum per cell; drives carry labels so an array re-assembles from the drives alone;
 * failed drives degrade the array, rebuilds restore it, scrubs find and repair silent corruption.
 * See ../shared/DESIGN.md ("Data path, two levels of protection") and docs/array.md.
 */
package io.parityfs.raid.array;
