/**
 * The storage node wire protocol: frames, typed messages, and the Netty codec.
 *
 * <p>Every message on a connection is one or more frames (see {@link
 * io.parityfs.node.protocol.FrameFormat} for the byte layout and {@code docs/protocol.md} for the
 * whole protocol). {@link io.parityfs.node.protocol.FrameDecoder} turns bytes into typed messages
 * (the records of this package, plus {@link io.parityfs.node.protocol.DataFrame} for streamed
 * payloads) or, for a malformed frame, a {@link io.parityfs.node.protocol.FrameError};
 * {@link io.parityfs.node.protocol.FrameEncoder} does the reverse. Neither keeps any state about
 * requests: matching responses to requests and ordering the frames of a stream is the job of the
 * handler behind them (the node's server, or {@code io.parityfs.node.client}).
 *
 * <p>This package depends on Netty only, so a Hadoop client can use it without the node's
 * storage engine.
 */
package io.parityfs.node.protocol;
