/**
 * The namespace and cluster state on ZooKeeper (through Apache Curator): inodes, directory
 * entries, file layouts, leases, the storage-target registry, placement and the cluster manager.
 *
 * <p>Not built yet: see the metadata issue. This package holds only this description.
 */
package io.parityfs.metadata;
