/**
 * The storage node service: a chunk store on one or more node-local RAID arrays (storage
 * targets), served over the ParityFS wire protocol, registered in ZooKeeper, with metrics.
 *
 * <p>Not built yet: see the storage-node issue. This package holds only this description.
 */
package io.parityfs.node;
