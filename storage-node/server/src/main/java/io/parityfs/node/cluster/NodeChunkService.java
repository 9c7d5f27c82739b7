package io.parityfs.node.cluster;

import io.parityfs.meta.chunks.ChunkPage;
import io.parityfs.meta.chunks.ChunkService;
import io.parityfs.meta.chunks.StoredChunk;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ListEntry;
import io.parityfs.node.protocol.ListRequest;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The cluster manager's {@link ChunkService} over the storage nodes' wire protocol: a target's
 * node address comes from the {@link TargetRegistry} (the node's record), LIST and DELETE go
 * through a {@link NodeClient}. A target the registry does not know, that is not ONLINE, or
 * whose id is not a target UUID, is an {@link IOException} (the manager retries later), as is
 * every protocol error. Thread-safe; the client and the registry stay the caller's.
 */
public final class NodeChunkService implements ChunkService {
  private final NodeClient client;
  private final TargetRegistry registry;

  public NodeChunkService(NodeClient client, TargetRegistry registry) {
    this.client = Objects.requireNonNull(client, "client");
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The ONLINE targets (an offline one cannot be listed; its orphans wait for its return). */
  @Override
  public List<String> targets() {
    List<String> out = new ArrayList<>();
    for (TargetInfo t : registry.targets()) {
      if (t.reachability() == Reachability.ONLINE) {
        out.add(t.id());
      }
    }
    return out;
  }

  @Override
  public ChunkPage list(String targetId, long fileId, long cursor, int limit) throws IOException {
    ListResponse r = client.list(address(targetId), targetId(targetId),
        fileId == ALL_FILES ? ListRequest.ALL_FILES : fileId, cursor, limit);
    List<StoredChunk> chunks = new ArrayList<>(r.entries().size());
    for (ListEntry e : r.entries()) {
      chunks.add(new StoredChunk(e.chunk().fileId(), e.chunk().chunkIndex(), e.length(),
          e.modifiedMillis()));
    }
    return new ChunkPage(chunks, r.hasMore() ? r.nextCursor() : END);
  }

  @Override
  public boolean delete(String targetId, long fileId, int index) throws IOException {
    return client.delete(address(targetId), targetId(targetId), new ChunkId(fileId, index));
  }

  @Override
  public boolean delete(String targetId, long fileId, int index, long generation)
      throws IOException {
    return client.delete(address(targetId), targetId(targetId), new ChunkId(fileId, index),
        generation);
  }

  private static TargetId targetId(String id) throws IOException {
    try {
      return TargetId.of(id);
    } catch (IllegalArgumentException e) {
      throw new IOException("target id (" + id + ") is not a storage target's UUID", e);
    }
  }

  private InetSocketAddress address(String targetId) throws IOException {
    TargetInfo t = registry.target(targetId).orElseThrow(
        () -> new IOException("target " + targetId + " is not in the registry"));
    if (t.reachability() != Reachability.ONLINE) {
      throw new IOException("target " + targetId + " is " + t.reachability() + " (node "
          + t.nodeId() + ")");
    }
    return t.socketAddress();
  }
}
