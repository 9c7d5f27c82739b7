/**
 * The storage node's configuration: a properties file parsed into the typed, immutable {@link
 * io.parityfs.node.config.NodeConfig}, with one error message naming the file and each bad key.
 */
package io.parityfs.node.config;
