package io.parityfs.node.bench;

import io.netty.buffer.ByteBufAllocator;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * The TLS engine ParityFS uses ({@link TlsContext#provider}), measured alone: a client and a
 * server engine of the node benchmark's certificates shake hands in memory, then the client
 * encrypts 16 KiB records (TLS's largest) and the server decrypts them, on one thread. What the
 * node benchmark's TLS phases pay per byte at each end, beyond the plaintext path.
 */
final class TlsEngineSpeed {
  private static final int RECORD = 16384;
  private static final int RECORDS = 40_000;

  private TlsEngineSpeed() {}

  /** {encrypt GB/s, decrypt GB/s}, the best of three passes of {@value #RECORDS} records. */
  static double[] measure(Path pki) throws IOException {
    TlsContext server = TlsContext.forServer(TlsConfig.inDirectory(pki, "node"));
    TlsContext client = TlsContext.forClient(TlsConfig.inDirectory(pki, "client"));
    SSLEngine s = server.sslContext().newEngine(ByteBufAllocator.DEFAULT);
    SSLEngine c = client.sslContext().newEngine(ByteBufAllocator.DEFAULT, "127.0.0.1", 1);
    ByteBuffer toServer = ByteBuffer.allocateDirect(1 << 20);
    ByteBuffer toClient = ByteBuffer.allocateDirect(1 << 20);
    ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
    c.beginHandshake();
    s.beginHandshake();
    for (int i = 0; i < 100 && !(done(c) && done(s)); i++) {
      step(c, toServer, toClient, sink);
      step(s, toClient, toServer, sink);
    }
    if (!done(c) || !done(s)) {
      throw new IOException("the in-memory TLS handshake did not finish");
    }
    ByteBuffer data = ByteBuffer.allocateDirect(RECORD);
    ByteBuffer net = ByteBuffer.allocateDirect(2 * RECORD);
    ByteBuffer plain = ByteBuffer.allocateDirect(2 * RECORD);
    double bestWrap = 0;
    double bestUnwrap = 0;
    for (int pass = 0; pass < 3; pass++) {
      long wrap = 0;
      long unwrap = 0;
      for (int i = 0; i < RECORDS; i++) {
        data.clear();
        net.clear();
        long t0 = System.nanoTime();
        c.wrap(data, net);
        long t1 = System.nanoTime();
        net.flip();
        plain.clear();
        SSLEngineResult r = s.unwrap(net, plain);
        unwrap += System.nanoTime() - t1;
        wrap += t1 - t0;
        if (r.bytesProduced() != RECORD) {
          throw new IOException("a record of " + RECORD + " bytes decrypted to "
              + r.bytesProduced());
        }
      }
      bestWrap = Math.max(bestWrap, (double) RECORD * RECORDS / wrap);
      bestUnwrap = Math.max(bestUnwrap, (double) RECORD * RECORDS / unwrap);
    }
    System.out.printf(Locale.ROOT, "  tls engine (%s, %s): encrypt %.2f GB/s, decrypt %.2f GB/s"
        + " (one core, in memory)%n", TlsContext.providerName(), c.getSession().getCipherSuite(),
        bestWrap, bestUnwrap);
    return new double[] {bestWrap, bestUnwrap};
  }

  private static boolean done(SSLEngine e) {
    HandshakeStatus h = e.getHandshakeStatus();
    return h == HandshakeStatus.NOT_HANDSHAKING || h == HandshakeStatus.FINISHED;
  }

  /** Runs {@code e}'s handshake until it waits for the peer: wraps into out, unwraps in. */
  private static void step(SSLEngine e, ByteBuffer in, ByteBuffer out, ByteBuffer sink)
      throws SSLException {
    ByteBuffer none = ByteBuffer.allocate(0);
    while (true) {
      switch (e.getHandshakeStatus()) {
        case NEED_WRAP -> e.wrap(none, out);
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          in.flip();
          SSLEngineResult r = e.unwrap(in, sink);
          in.compact();
          sink.clear();
          if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW
              || r.bytesConsumed() == 0 && r.getHandshakeStatus() == HandshakeStatus.NEED_UNWRAP) {
            return;
          }
        }
        case NEED_TASK -> {
          Runnable t;
          while ((t = e.getDelegatedTask()) != null) {
            t.run();
          }
        }
        default -> {
          return;
        }
      }
    }
  }
}
