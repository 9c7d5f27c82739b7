/**
 * The ParityFS client core, with no Hadoop dependency: {@link io.parityfs.client.ParityClient}
 * connects to a cluster (its ZooKeeper ensemble), does namespace operations through the metadata
 * layer, and moves file data to and from the storage nodes: chunks striped over the file's
 * targets with parallel transfers, write-behind with bounded memory, read-ahead, positional
 * reads. The Hadoop {@code FileSystem}, the FUSE mount and the CLI are built on it; each maps a
 * failure's {@link io.parityfs.client.ClientStatus} (a data-path {@link
 * io.parityfs.client.ClientException}'s own, or a namespace status mapped) with one switch.
 *
 * <p>The package holds the streaming data path: the streams and the random-access writer,
 * the chunk transfers ({@code ChunkIo}, {@code TargetLocator}, {@code Suspects}), the groups
 * across nodes as the writers store them and the readers read them ({@code GroupWriter},
 * {@code GroupReads}, {@code MirrorReads}, {@code StaleMembers}) and a new writer's restore of
 * a cut group ({@code CutGroup}). What heals, seals, moves and checks the groups of closed
 * files, the keeper, is in {@code io.parityfs.keeper}, which uses this package through {@link
 * io.parityfs.client.ParityClient} and {@link io.parityfs.client.MemberIo} only.
 */
package io.parityfs.client;
