/**
 * The cluster manager: one elected process (Curator {@code LeaderLatch}; every storage node may
 * run a candidate) that does the namespace's background work — deletes the chunks of removed
 * files from the durable deferred-delete queue, finishes interrupted recursive deletes, collects
 * orphan chunks, marks long-gone targets offline. {@link io.parityfs.meta.cluster.ClusterManager}
 * is the entry point; chunk I/O goes through {@link io.parityfs.meta.chunks.ChunkService}, which
 * the storage node implements over its protocol client. See "Cluster manager" in {@code
 * docs/metadata.md}.
 */
package io.parityfs.meta.cluster;

