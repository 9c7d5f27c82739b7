package io.parityfs.meta;

/**
 * The write lease of a file open for writing, kept in its inode record: which client holds it
 * and through which ZooKeeper session. The lease lives as long as that session's marker znode
 * ({@code R/sessions/<session>}, ephemeral) exists; see {@link Leases}.
 *
 * @param client the holder's client name (for messages: user@host and a random suffix)
 * @param session the holder's ZooKeeper session id
 * @param since when the lease was granted, milliseconds since the epoch
 */
record Lease(String client, long session, long since) {}
