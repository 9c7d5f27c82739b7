/**
 * The storage node's command line, {@code parityfs node start --config FILE} ({@link
 * io.parityfs.node.cli.NodeCommand}): the composition root that parses the configuration
 * ({@code node.config}), builds the network server ({@code node.net}) and starts the {@link
 * io.parityfs.node.StorageNode}. It sits above both, so that the node's own package does not
 * depend on the server that implements its seam.
 */
package io.parityfs.node.cli;
