/**
 * Protection across nodes in the client (docs/across-nodes.md): {@link
 * io.parityfs.client.across.GroupCodec}, the parity of an {@code ec:K+M} chunk group over chunks
 * of unequal length. Where each member lives is {@code io.parityfs.meta.ChunkMap}'s. The group
 * writer and the degraded reader that use them are being built; until then the client refuses
 * to write a file with a policy across nodes.
 */
package io.parityfs.client.across;
