package io.parityfs.node.client;

import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.Message;
import io.parityfs.node.protocol.Response;
import io.parityfs.node.protocol.Status;
import java.util.concurrent.CompletableFuture;

/** A request answered by one response frame (WRITE included: its answer comes after the data). */
final class UnaryCall extends Call {
  final CompletableFuture<Response> result = new CompletableFuture<>();

  @Override
  boolean onMessage(Message m) {
    if (m instanceof ErrorResponse e) {
      result.completeExceptionally(new NodeException(e.status(), e.message()));
    } else if (m instanceof Response r) {
      result.complete(r);
    } else {
      ReferenceCountUtil.release(m);
      result.completeExceptionally(
          new NodeException(Status.PROTOCOL_VIOLATION, "unexpected " + m.opcode() + " frame"));
    }
    return true;
  }

  @Override
  void fail(NodeException e) {
    result.completeExceptionally(e);
  }

  @Override
  boolean isDone() {
    return result.isDone();
  }
}
