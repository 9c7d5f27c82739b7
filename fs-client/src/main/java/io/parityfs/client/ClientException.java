package io.parityfs.client;

import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * A failure of the client core's data path: a {@link ClientStatus} (what the mount, the Hadoop
 * {@code FileSystem} and the CLI map), and what it is about where known: the file's path, the
 * chunk and its storage target. The message starts with the status's name. A chunk transfer
 * that a node refused is one ({@link #of(NodeException, ChunkId, String, String)}: its status
 * mapped from the node's, the {@link NodeException} the cause), and so is a stream's failure
 * rethrown from a background upload ({@link #rethrown}: the status of the first failure kept).
 * The namespace's own failures stay {@link io.parityfs.meta.NamespaceException}s;
 * {@link ClientStatus#of(Throwable)} maps both.
 */
public class ClientException extends IOException {
  private static final long serialVersionUID = 1L;

  private final ClientStatus status;
  private final String path;
  private final ChunkId chunk;
  private final String target;

  public ClientException(ClientStatus status, String path, String message) {
    this(status, path, null, null, message, null);
  }

  public ClientException(ClientStatus status, String path, String message, Throwable cause) {
    this(status, path, null, null, message, cause);
  }

  ClientException(ClientStatus status, String path, ChunkId chunk, String target, String message,
      Throwable cause) {
    super(status + ": " + message, cause);
    this.status = Objects.requireNonNull(status, "status");
    this.path = path;
    this.chunk = chunk;
    this.target = target;
  }

  /** A node's refusal of a transfer of {@code chunk} on {@code target}, as {@code message} says. */
  static ClientException of(NodeException e, ChunkId chunk, String target, String message) {
    return new ClientException(ClientStatus.of(e.status()), null, chunk, target, message, e);
  }

  /**
   * A stream's recorded {@code failure} (from a background store, or an earlier call) thrown
   * again for {@code path}: its status, chunk and target kept, the failure the cause.
   */
  static ClientException rethrown(String path, String message, Throwable failure) {
    ClientException c = failure instanceof ClientException f ? f : null;
    return new ClientException(ClientStatus.of(failure), path, c == null ? null : c.chunk,
        c == null ? null : c.target, message + ": " + failure.getMessage(), failure);
  }

  public ClientStatus status() {
    return status;
  }

  /** The path of the file the failure is about, or null where not known. */
  public String path() {
    return path;
  }

  /** The chunk the failure is about, where known. */
  public Optional<ChunkId> chunk() {
    return Optional.ofNullable(chunk);
  }

  /** The id of the storage target the failure is about, where known. */
  public Optional<String> target() {
    return Optional.ofNullable(target);
  }
}
