package io.parityfs.node.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.parityfs.node.protocol.DataFrame;
import io.parityfs.node.protocol.FrameDecoder;
import io.parityfs.node.protocol.FrameEncoder;
import io.parityfs.node.protocol.FrameFormat;
import io.parityfs.node.protocol.Message;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.Role;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A blocking socket to a node for hostile-input tests: sends any bytes, and decodes what comes
 * back with the real client-side decoder. DATA frames received are returned as their byte count
 * (their buffers are released here).
 */
final class RawClient implements Closeable {
  final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(Role.CLIENT));
  private boolean eof;

  RawClient(InetSocketAddress node) throws IOException {
    this(new Socket(node.getAddress(), node.getPort()));
  }

  /** Over a socket already connected (a TLS one, say). */
  RawClient(Socket connected) throws IOException {
    socket = connected;
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = socket.getInputStream();
  }

  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  void send(Message m) throws IOException {
    send(encode(m));
  }

  static byte[] encode(Message m) {
    List<Object> parts = new ArrayList<>();
    FrameEncoder.encode(m, UnpooledByteBufAllocator.DEFAULT, parts);
    ReferenceCountUtil.release(m);
    int n = parts.stream().mapToInt(p -> ((ByteBuf) p).readableBytes()).sum();
    byte[] all = new byte[n];
    int at = 0;
    for (Object p : parts) {
      ByteBuf b = (ByteBuf) p;
      int k = b.readableBytes();
      b.readBytes(all, at, k);
      at += k;
      b.release();
    }
    return all;
  }

  /** A frame with any field values; CRCs computed unless given. */
  static byte[] frame(int magic, int version, int opcode, int flags, long requestId,
      byte[] header, byte[] payload) {
    ByteBuffer b = ByteBuffer.allocate(FrameFormat.FIXED_LENGTH + header.length + payload.length);
    b.putInt(magic).put((byte) version).put((byte) opcode).putShort((short) flags);
    b.putLong(requestId).putInt(0).putInt(header.length).putInt(payload.length);
    CRC32C pc = new CRC32C();
    pc.update(payload);
    b.putInt(payload.length == 0 ? 0 : (int) pc.getValue());
    CRC32C hc = new CRC32C();
    hc.update(b.array(), 0, FrameFormat.CRC_COVERED_FIXED);
    hc.update(header);
    b.putInt((int) hc.getValue());
    b.put(header).put(payload);
    return b.array();
  }

  static byte[] frame(Opcode op, int flags, long requestId, byte[] header) {
    return frame(FrameFormat.MAGIC, 1, op.code(), flags, requestId, header, new byte[0]);
  }

  /** The next message (DataFrames are released and returned as is, content gone), or null at EOF. */
  Object next(long timeoutMillis) throws IOException {
    long end = System.currentTimeMillis() + timeoutMillis;
    byte[] buf = new byte[64 << 10];
    while (true) {
      Object m = decoder.readInbound();
      if (m != null) {
        if (m instanceof DataFrame d) {
          int n = d.content().readableBytes();
          boolean last = d.isEnd();
          d.release();
          return new Data(d.requestId(), n, last);
        }
        return m;
      }
      if (eof) {
        return null;
      }
      long left = end - System.currentTimeMillis();
      if (left <= 0) {
        throw new SocketTimeoutException("no frame in " + timeoutMillis + " ms");
      }
      socket.setSoTimeout((int) left);
      int n;
      try {
        n = in.read(buf);
      } catch (SocketTimeoutException e) {
        throw e;
      } catch (IOException e) {
        n = -1; // reset by the node
      }
      if (n < 0) {
        eof = true;
        continue;
      }
      decoder.writeInbound(Unpooled.wrappedBuffer(buf, 0, n).copy());
    }
  }

  /** Whether the node closed the connection (reads until EOF or the timeout). */
  boolean closedByNode(long timeoutMillis) throws IOException {
    long end = System.currentTimeMillis() + timeoutMillis;
    while (System.currentTimeMillis() < end) {
      try {
        if (next(Math.max(1, end - System.currentTimeMillis())) == null) {
          return true;
        }
      } catch (SocketTimeoutException e) {
        return false;
      }
    }
    return false;
  }

  record Data(long requestId, int bytes, boolean end) {}

  @Override
  public void close() throws IOException {
    socket.close();
    decoder.finishAndReleaseAll();
  }
}
