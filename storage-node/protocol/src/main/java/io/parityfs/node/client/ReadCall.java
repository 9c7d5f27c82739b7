package io.parityfs.node.client;

import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.ErrorResponse;
import io.parityfs.node.protocol.Message;
import io.parityfs.node.protocol.Status;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A READ: the event loop queues the DATA frames, the caller's thread takes them. When more than
 * the read window is queued the connection stops reading (TCP then holds the node back) until the
 * consumer has taken half of it.
 */
final class ReadCall extends Call {
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final AtomicBoolean paused = new AtomicBoolean();
  private final NodeConnection connection;
  private final long window;
  private volatile boolean done;
  private volatile boolean abandoned;

  ReadCall(NodeConnection connection, long window) {
    this.connection = connection;
    this.window = window;
  }

  @Override
  boolean onMessage(Message m) {
    if (abandoned) {
      ReferenceCountUtil.release(m);
      return true;
    }
    if (m instanceof DataFrame d) {
      long q = queuedBytes.addAndGet(d.content().readableBytes());
      queue.add(d);
      if (q > window && paused.compareAndSet(false, true)) {
        connection.pauseReading();
      }
      if (d.isEnd()) {
        done = true;
      }
      return d.isEnd();
    }
    if (m instanceof ErrorResponse e) {
      fail(new NodeException(e.status(), e.message()));
    } else {
      ReferenceCountUtil.release(m);
      fail(new NodeException(Status.PROTOCOL_VIOLATION, "unexpected " + m.opcode() + " frame"));
    }
    return true;
  }

  @Override
  void fail(NodeException e) {
    done = true;
    queue.add(e);
  }

  @Override
  boolean isDone() {
    return done;
  }

  @Override
  boolean waitingOnNode() {
    return queue.isEmpty();
  }

  /** The next DataFrame (the caller owns it); throws the failure that ended the read. */
  DataFrame take(long timeoutNanos) throws NodeException, InterruptedException {
    Object o = queue.poll(timeoutNanos, TimeUnit.NANOSECONDS);
    if (o == null) {
      throw new NodeException(Status.TIMEOUT, "no data from the node in time");
    }
    if (o instanceof NodeException e) {
      throw e;
    }
    return (DataFrame) o;
  }

  /** The consumer is done with {@code bytes} of a frame it took. */
  void consumed(int bytes) {
    long q = queuedBytes.addAndGet(-bytes);
    if (q <= window / 2 && paused.compareAndSet(true, false)) {
      connection.resumeReading();
    }
  }

  /** Stops the call: releases what is queued and lets the connection read again. */
  void abandon() {
    abandoned = true;
    done = true;
    for (Object o; (o = queue.poll()) != null; ) {
      ReferenceCountUtil.release(o);
    }
    if (paused.compareAndSet(true, false)) {
      connection.resumeReading();
    }
  }
}
