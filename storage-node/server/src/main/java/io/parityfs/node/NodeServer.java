package io.parityfs.node;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The seam for the node's network server ({@link io.parityfs.node.net.NettyNodeServer}, the wire
 * protocol server, implements it): {@link
 * StorageNode} starts it after its targets are open and before it registers in ZooKeeper, and
 * publishes the address it returns; it closes it after deregistering and before closing the
 * arrays. The server translates requests to {@link io.parityfs.node.chunk.ChunkStore} calls and
 * failures to wire statuses (a {@link io.parityfs.node.chunk.ChunkStoreException}'s own, array
 * errors by {@link io.parityfs.node.chunk.ChunkStoreException#statusOf}), and reports each
 * request to {@link io.parityfs.node.metrics.NodeMetrics#observe}.
 */
public interface NodeServer extends Closeable {
  /**
   * Binds {@code host:port} (port 0: any free port), starts serving {@code services}, and returns
   * the address bound.
   */
  InetSocketAddress start(String host, int port, NodeServices services) throws IOException;

  /** Stops accepting, ends the connections (open chunk writers are aborted) and returns. */
  @Override
  void close() throws IOException;

  /**
   * No server: binds nothing and reports the configured address. For tests of everything else.
   */
  static NodeServer none() {
    return new NodeServer() {
      @Override
      public InetSocketAddress start(String host, int port, NodeServices services) {
        return InetSocketAddress.createUnresolved(host, port);
      }

      @Override
      public void close() {}
    };
  }
}
