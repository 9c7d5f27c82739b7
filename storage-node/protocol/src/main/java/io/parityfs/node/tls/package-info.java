/**
 * TLS for the storage-node protocol (docs/security.md): the roles certificates carry, the
 * settings and Netty contexts of nodes and clients (reloaded when their files change), and the
 * cluster CA that issues them.
 */
package io.parityfs.node.tls;
