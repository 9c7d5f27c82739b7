/**
 * The ParityFS namespace on ZooKeeper (through Apache Curator): {@link io.parityfs.meta.Namespace}
 * with inodes stored inline in directory-entry znodes, directories whose entries hang off their
 * inode id in hash buckets (so rename of any directory is one {@code multi} and a directory of
 * 100,000+ entries lists in pages), file layouts inherited from directories, and extended
 * attributes. {@code docs/metadata.md} describes the znodes, each operation's transactions and
 * the consistency guarantees.
 *
 * <p>Not built yet (later slices of the metadata issue): permission checks, leases, the
 * storage-target registry view and placement, the cluster manager (deleting chunks of deleted
 * files, orphan collection), a client-side cache, connection-state handling beyond Curator's.
 */
package io.parityfs.meta;
