/**
 * The ParityFS namespace on ZooKeeper (through Apache Curator): {@link io.parityfs.meta.Namespace}
 * with inodes stored inline in directory-entry znodes, directories whose entries hang off their
 * inode id in hash buckets (so rename of any directory is one {@code multi} and a directory of
 * 100,000+ entries lists in pages), file layouts inherited from directories, extended
 * attributes, POSIX permissions checked for a {@link io.parityfs.meta.Caller}, single-writer
 * leases tied to ZooKeeper sessions ({@code Leases}) with recovery, a watched client-side entry
 * cache, and bounded behaviour while the ZooKeeper connection is suspended or lost.
 * {@code docs/metadata.md} describes the znodes, each operation's transactions and the
 * consistency guarantees.
 *
 * <p>{@code Namespace} is the public façade; each view of it ({@code as}, {@code withPlacement})
 * shares one package-private {@code NamespaceCore} (session, znode layout, ids, caches, leases)
 * and runs its operations through package-private classes that take the core and the view's
 * {@code EntryWalker} (path lookups with the caller's permission checks): {@code Creates},
 * {@code Deletes}, {@code Rename}, {@code Updates}, {@code WriterCommits} and {@code XAttrs}.
 *
 * <p>Removed files are queued for chunk deletion in the {@link io.parityfs.meta.DeleteQueue}
 * atomically with their removal ({@code FileRemovals}); the cluster manager ({@code
 * io.parityfs.meta.cluster}) drains it. Storage targets and placement are in {@code
 * io.parityfs.meta.targets}; the registry's record schema, shared with the storage nodes, in
 * {@code io.parityfs.meta.registry}. {@link io.parityfs.meta.ZooKeeperSettings} makes the
 * ZooKeeper client of every process.
 */
package io.parityfs.meta;
