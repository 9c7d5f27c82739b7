/**
 * The ParityFS client: the Hadoop-free client core (striped parallel reads and writes), the
 * Hadoop {@code FileSystem} for {@code pfs://}, the FUSE mount and the {@code parityfs} CLI.
 *
 * <p>Not built yet: see the client issue. This package holds only this description.
 */
package io.parityfs.client;
