package io.parityfs.node.client;

import io.parityfs.node.protocol.AdminResponse;
import io.parityfs.node.protocol.ArrayStatusRequest;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.FailDriveRequest;
import io.parityfs.node.protocol.NodeInfoRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.ProgressRequest;
import io.parityfs.node.protocol.ReplaceDriveRequest;
import io.parityfs.node.protocol.Request;
import io.parityfs.node.protocol.TargetId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * The administrative operations of storage nodes, over the connections, timeouts and retries of
 * the {@link NodeClient} it belongs to ({@link NodeClient#admin()}). Each answers the node's JSON
 * document as it came, for {@link io.parityfs.node.protocol.admin.AdminCodec#decode} into its
 * record (NODE_INFO a {@code NodeInfo}, ARRAY_STATUS an {@code ArrayStatus}, FAIL_DRIVE and
 * REPLACE_DRIVE a {@code TargetStatus}, PROGRESS a {@code Progress}, the task operations a
 * {@code TaskReply}). The queries (NODE_INFO,
 * ARRAY_STATUS, PROGRESS) are retried like any idempotent request; the operations that change an
 * array are not. Thread-safe, as its client.
 */
public final class NodeAdminClient {
  private final NodeClient client;

  NodeAdminClient(NodeClient client) {
    this.client = client;
  }

  public String nodeInfo(InetSocketAddress node) throws IOException {
    return admin(node, NodeInfoRequest::new, true);
  }

  public String arrayStatus(InetSocketAddress node, TargetId target) throws IOException {
    Objects.requireNonNull(target, "target");
    return admin(node, id -> new ArrayStatusRequest(id, target), true);
  }

  public String progress(InetSocketAddress node, TargetId target) throws IOException {
    Objects.requireNonNull(target, "target");
    return admin(node, id -> new ProgressRequest(id, target), true);
  }

  public String failDrive(InetSocketAddress node, TargetId target, int slot) throws IOException {
    return failDrive(node, target, slot, 0);
  }

  /**
   * @param flags {@link FailDriveRequest#FORCE} (fail the slot even beyond the array's
   *     tolerance, which the node refuses otherwise with ILLEGAL_STATE) or 0
   */
  public String failDrive(InetSocketAddress node, TargetId target, int slot, int flags)
      throws IOException {
    new FailDriveRequest(1, target, slot, flags);
    return admin(node, id -> new FailDriveRequest(id, target, slot, flags), false);
  }

  /** @param flags {@link ReplaceDriveRequest#FORCE} or 0 */
  public String replaceDrive(InetSocketAddress node, TargetId target, int slot, String path,
      int flags) throws IOException {
    new ReplaceDriveRequest(1, target, slot, path, flags);
    return admin(node, id -> new ReplaceDriveRequest(id, target, slot, path, flags), false);
  }

  /**
   * START_REBUILD, STOP_REBUILD, START_SCRUB or STOP_SCRUB.
   *
   * @param slot a slot, or {@link ArrayTaskRequest#ALL_SLOTS}
   */
  public String arrayTask(InetSocketAddress node, Opcode task, TargetId target, int slot)
      throws IOException {
    new ArrayTaskRequest(1, task, target, slot);
    return admin(node, id -> new ArrayTaskRequest(id, task, target, slot), false);
  }

  private String admin(InetSocketAddress node, LongFunction<Request> request, boolean idempotent)
      throws IOException {
    return NodeClient.join(client.call(node, request, idempotent,
        r -> NodeClient.expect(r, AdminResponse.class).json()));
  }
}
