/**
 * What the array writes, and the values it writes: the bottom layer of the array, used by every
 * other part of it. The array's configuration and protection ({@link
 * io.parityfs.raid.array.format.ArrayConfig}, {@link io.parityfs.raid.array.format.Protection},
 * {@code ProtectionCode} for its encoding), an object's layout and the drives that hold its
 * shards ({@link io.parityfs.raid.array.format.ObjectLayout}, {@link
 * io.parityfs.raid.array.format.DrivePlacement}), and the three on-disk encodings with their
 * values: drive labels ({@link io.parityfs.raid.array.format.DriveLabel}, {@code LabelFormat},
 * {@code LabelEncoder}, {@code LabelDecoder}), manifests ({@link
 * io.parityfs.raid.array.format.ObjectManifest} with the caller's {@link
 * io.parityfs.raid.array.format.VersionTag}, {@code ManifestFormat}, {@code ManifestEncoder},
 * {@code ManifestDecoder}) and shard files ({@link
 * io.parityfs.raid.array.format.ShardHeader}, {@code ShardFormat}, {@code ShardHeaderEncoder},
 * {@code ShardHeaderDecoder}, the per-cell CRCs of {@code CellChecksums}). The one error type
 * every layer throws lives here too ({@link io.parityfs.raid.array.format.ArrayException} with
 * its {@link io.parityfs.raid.array.format.ArrayError}).
 *
 * <p>Pure values and byte encodings: no file I/O ({@link io.parityfs.raid.array.drive} reads and
 * writes labels, {@link io.parityfs.raid.array.object} shard and manifest files). Depends on
 * nothing else of the array.
 */
package io.parityfs.raid.array.format;
