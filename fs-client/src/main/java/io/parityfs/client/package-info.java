/**
 * The ParityFS client core, with no Hadoop dependency: {@link io.parityfs.client.ParityClient}
 * connects to a cluster (its ZooKeeper ensemble), does namespace operations through the metadata
 * layer, and moves file data to and from the storage nodes: chunks striped over the file's
 * targets with parallel transfers, write-behind with bounded memory, read-ahead, positional
 * reads. The Hadoop {@code FileSystem}, the FUSE mount and the CLI are built on it; each maps a
 * failure's {@link io.parityfs.client.ClientStatus} (a data-path {@link
 * io.parityfs.client.ClientException}'s own, or a namespace status mapped) with one switch.
 */
package io.parityfs.client;
