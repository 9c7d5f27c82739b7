/**
 * The storage-node registry schema in ZooKeeper, shared by the writers (storage nodes, through
 * {@code NodeRegistration} in module storage-node) and the readers (the metadata layer's
 * {@link io.parityfs.meta.targets.TargetRegistry}, the cluster manager): the znode paths
 * ({@link io.parityfs.meta.registry.ZkPaths}), one record per znode kind, and
 * {@link io.parityfs.meta.registry.RegistryCodec}, the only place their JSON is written and read.
 *
 * <p>Every record carries {@code "schema":1}. Unknown fields are ignored (a later addition within
 * schema 1 stays readable by older code); a record of any other schema is refused (a {@link
 * io.parityfs.meta.registry.CorruptRecordException}, which the metadata layer reports as {@code
 * NamespaceStatus.CORRUPT}) with a message naming the znode and both schemas, never misread. The
 * pool names ({@link io.parityfs.meta.registry.PoolNames}) are part of the schema. The package
 * depends on nothing else of ParityFS: the namespace ({@code io.parityfs.meta}, which reads the
 * target records for the file ids they hold) and {@code io.parityfs.meta.targets} sit above it.
 * {@code docs/storage-node.md} ("ZooKeeper") shows the JSON of each.
 */
package io.parityfs.meta.registry;
