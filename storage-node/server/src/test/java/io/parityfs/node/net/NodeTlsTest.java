package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.RebuildMemberRequest;
import io.parityfs.node.protocol.RebuildSource;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsContext;
import io.parityfs.node.tls.TlsRole;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage-node protocol over mutual TLS (issue 18, docs/security.md) on a real node: a
 * client certificate of the cluster CA reads and writes but cannot run the drive opcodes, an
 * admin one can; every opcode goes unanswered for a plaintext peer, a TLS peer without a
 * certificate, and one whose certificate is of another CA, expired or revoked (the connection is
 * closed before any frame is read); a client refuses a node whose certificate is not a node's;
 * the node's certificate is rotated under load without a restart. Content is keyed by writer.
 */
class NodeTlsTest {
  @TempDir static Path dir;
  static TestingServer zk;
  static CertificateAuthority ca;
  static Path certs;
  static TestNode node;

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    certs = dir.resolve("pki");
    ca = CertificateAuthority.init(certs, "test");
    List<String> loopback = List.of("127.0.0.1", "localhost");
    Duration year = Duration.ofDays(365);
    ca.issue(TlsRole.NODE, "node1", year, loopback, certs);
    ca.issue(TlsRole.CLIENT, "alice", year, List.of(), certs);
    ca.issue(TlsRole.ADMIN, "ops", year, List.of(), certs);
    node = new TestNode(dir.resolve("node"), zk.getConnectString(), NodeServerConfig.builder()
        .tls(TlsConfig.inDirectory(certs, "node1")).build(), "4K", "1M");
  }

  @AfterAll
  static void stop() throws Exception {
    if (node != null) {
      node.close();
    }
    if (zk != null) {
      zk.close();
    }
  }

  private static NodeClient client(TlsConfig tls) {
    return NodeClient.create(NodeClientConfig.builder().tls(tls).maxAttempts(1).build());
  }

  private static ByteBuffer content(String writer, int i) {
    return ByteBuffer.wrap((writer + " wrote chunk " + i).repeat(300)
        .getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] read(NodeClient c, ChunkId id) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    c.readChunk(node.address, node.target, id, 0, -1, Channels.newChannel(out));
    return out.toByteArray();
  }

  @Test
  void theCaWritesItsKeysPrivateAndIssuesRoles() throws Exception {
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
        certs.resolve(CertificateAuthority.CA_KEY))));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
        certs.resolve("alice.key"))));
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(
        certs.resolve("alice.crt"))));
    assertEquals(TlsRole.CLIENT, TlsRole.of(TlsContext.readCertificates(
        certs.resolve("alice.crt")).get(0)).orElseThrow());
    assertEquals(TlsRole.NODE, TlsRole.of(TlsContext.readCertificates(
        certs.resolve("node1.crt")).get(0)).orElseThrow());
    assertThrows(java.nio.file.FileAlreadyExistsException.class,
        () -> CertificateAuthority.init(certs, "again"), "a CA is never overwritten");
  }

  @Test
  void theKeyAndCertificateInOneFileAreWhatZooKeepersPemKeyStoreReads() throws Exception {
    Path pem = certs.resolve("alice.pem");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pem)));
    // ZooKeeper's own loader (its client TLS, zookeeper.ssl.keyStore.type=PEM): one file
    java.security.KeyStore ks = org.apache.zookeeper.util.PemReader.loadKeyStore(pem.toFile(),
        pem.toFile(), java.util.Optional.empty());
    String alias = ks.aliases().nextElement();
    java.security.cert.Certificate cert = TlsContext.readCertificates(
        certs.resolve("alice.crt")).get(0);
    assertEquals(cert, ks.getCertificate(alias));
    // and the key in it is the certificate's: what it signs, the certificate verifies
    java.security.Signature sign = java.security.Signature.getInstance("SHA256withECDSA");
    sign.initSign((java.security.PrivateKey) ks.getKey(alias, new char[0]));
    sign.update("alice".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    byte[] signature = sign.sign();
    java.security.Signature verify = java.security.Signature.getInstance("SHA256withECDSA");
    verify.initVerify(cert);
    verify.update("alice".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertTrue(verify.verify(signature));
  }

  @Test
  void aClientReadsAndWritesButOnlyAnAdminRunsDriveOpcodes() throws Exception {
    try (NodeClient alice = client(TlsConfig.inDirectory(certs, "alice"));
        NodeClient ops = client(TlsConfig.inDirectory(certs, "ops"))) {
      ChunkId id = new ChunkId(1, 0);
      alice.writeChunk(node.address, node.target, id, 0, WriteMode.CREATE, 0,
          content("alice", 0));
      assertArrayEquals(content("alice", 0).array(), read(alice, id));
      assertTrue(alice.admin().arrayStatus(node.address, node.target).contains("\"state\""));
      for (Opcode op : List.of(Opcode.START_SCRUB, Opcode.STOP_SCRUB, Opcode.START_REBUILD,
          Opcode.STOP_REBUILD)) {
        NodeException e = assertThrows(NodeException.class, () -> alice.admin().arrayTask(
            node.address, op, node.target, ArrayTaskRequest.ALL_SLOTS));
        assertEquals(Status.PERMISSION_DENIED, e.status(), op + ": " + e.getMessage());
      }
      NodeException fail = assertThrows(NodeException.class,
          () -> alice.admin().failDrive(node.address, node.target, 0));
      assertEquals(Status.PERMISSION_DENIED, fail.status());
      NodeException replace = assertThrows(NodeException.class, () -> alice.admin()
          .replaceDrive(node.address, node.target, 0, dir.toString(), 0));
      assertEquals(Status.PERMISSION_DENIED, replace.status());
      // the admin gets past the check (what the array says of a rebuild with no drive to rebuild)
      NodeException byAdmin = assertThrows(NodeException.class, () -> ops.admin().arrayTask(
          node.address, Opcode.START_REBUILD, node.target, ArrayTaskRequest.ALL_SLOTS));
      assertEquals(Status.ILLEGAL_STATE, byAdmin.status(), byAdmin.getMessage());
      assertArrayEquals(content("alice", 0).array(), read(ops, id));
    }
  }

  /**
   * REBUILD_MEMBER is a peer operation: a client certificate is refused it (and nothing is
   * written); a node certificate (the keeper's) is served, and the node reads the sources from
   * its peer over TLS with its own node certificate.
   */
  @Test
  void onlyANodeCertificateAsksANodeToRebuildAMember() throws Exception {
    Path peerCerts = dir.resolve("peer-pki");
    ca.issue(TlsRole.NODE, "node2", Duration.ofDays(1), List.of("127.0.0.1", "localhost"),
        peerCerts);
    try (TestNode peer = new TestNode(dir.resolve("peer"), zk.getConnectString(),
        NodeServerConfig.builder().tls(TlsConfig.inDirectory(peerCerts, "node2")).build(), "4K",
        "1M");
        NodeClient alice = client(TlsConfig.inDirectory(certs, "alice"));
        NodeClient keeper = client(TlsConfig.inDirectory(certs, "node1"))) {
      long file = 77;
      ByteBuffer data = content("alice", 7);
      int length = data.remaining();
      alice.writeChunk(peer.address, peer.target, new ChunkId(file, 0), 0, WriteMode.REPLACE, 0,
          1, 5, 1, data.duplicate());
      // ec:2+1, data 1 past the end of the file: parity 2 from data 0 (on the peer) and zeros
      RebuildMemberRequest parity = new RebuildMemberRequest(0, node.target,
          new ChunkId(file, 2), 1, 1, 5, 2, 1, 2, length, length, List.of(
              new RebuildSource(0, peer.target, "127.0.0.1", peer.address.getPort(), 0, 1, 5,
                  length), RebuildSource.zeros(1, 1)));
      NodeException denied = assertThrows(NodeException.class,
          () -> alice.rebuildMember(node.address, parity));
      assertEquals(Status.PERMISSION_DENIED, denied.status(), denied.getMessage());
      assertThrows(NodeException.class, () -> alice.stat(node.address, node.target,
          new ChunkId(file, 2)), "nothing was written");

      ChunkStat stored = keeper.rebuildMember(node.address, parity);
      assertEquals(List.of((long) length, 1L, 5L), List.of(stored.length(), stored.generation(),
          stored.sequence()));
      // and back: data 0 from that parity (on the node itself) and the zeros
      ChunkStat back = keeper.rebuildMember(node.address, new RebuildMemberRequest(0,
          node.target, new ChunkId(file, 3), 1, 1, 5, 2, 1, 0, length, length, List.of(
              new RebuildSource(2, node.target, "127.0.0.1", node.address.getPort(), 2, 1, 5,
                  length), RebuildSource.zeros(1, 1))));
      assertEquals(length, back.length());
      assertArrayEquals(data.array(), read(alice, new ChunkId(file, 3)));
    }
  }

  /** Every opcode, sent on {@code socket}, goes unanswered: the node closes first. */
  private static void unanswered(Socket socket, String who) throws IOException {
    try (RawClient raw = new RawClient(socket)) {
      long id = 1;
      for (Opcode op : Opcode.values()) {
        try {
          raw.send(RawClient.frame(op, 0, id++, new byte[0]));
        } catch (IOException closed) {
          break; // closed already: nothing was answered
        }
      }
      Object answer;
      try {
        answer = raw.next(15_000);
      } catch (IOException closed) {
        answer = null;
      }
      assertNull(answer, who + ": answered " + answer);
    }
  }

  private static SSLContext jdk(SslContextBuilder b) throws IOException {
    return ((JdkSslContext) b.sslProvider(SslProvider.JDK).protocols("TLSv1.3").build())
        .context();
  }

  private static Socket tls(SSLContext ctx) throws IOException {
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1",
        node.address.getPort());
    s.setSoTimeout(15_000);
    try {
      s.startHandshake(); // TLS 1.3: a refused client certificate shows at the first read
    } catch (IOException refused) {
      // refused at once: the frames below find the socket closed
    }
    return s;
  }

  @Test
  void everyOpcodeGoesUnansweredWithoutAValidCertificate() throws Exception {
    Path other = dir.resolve("other-ca");
    CertificateAuthority stranger = CertificateAuthority.init(other, "stranger");
    stranger.issue(TlsRole.ADMIN, "mallory", Duration.ofDays(1), List.of(), other);
    CertificateAuthority.Issued expired = ca.issue(TlsRole.ADMIN, "old", Duration.ofSeconds(1),
        List.of(), dir.resolve("expired"));
    CertificateAuthority.Issued revoked = ca.issue(TlsRole.ADMIN, "leaked", Duration.ofDays(1),
        List.of(), dir.resolve("revoked"));

    unanswered(new Socket("127.0.0.1", node.address.getPort()), "plaintext");
    unanswered(tls(jdk(SslContextBuilder.forClient().trustManager(
        certs.resolve("ca.crt").toFile()))), "no certificate");
    unanswered(tls(jdk(SslContextBuilder.forClient().trustManager(
        certs.resolve("ca.crt").toFile()).keyManager(other.resolve("mallory.crt").toFile(),
        other.resolve("mallory.key").toFile()))), "another CA's certificate");
    Thread.sleep(1500);
    unanswered(tls(jdk(SslContextBuilder.forClient().trustManager(
        certs.resolve("ca.crt").toFile()).keyManager(expired.cert().toFile(),
        expired.key().toFile()))), "an expired certificate");

    // revoked: the node's CRL is written, and read by the node's next handshake
    SSLContext leaked = jdk(SslContextBuilder.forClient().trustManager(
        certs.resolve("ca.crt").toFile()).keyManager(revoked.cert().toFile(),
        revoked.key().toFile()));
    try (NodeClient before = client(TlsConfig.of(revoked.key(), revoked.cert(),
        certs.resolve("ca.crt")))) {
      before.ping(node.address);
      ca.revoke(revoked.certificate());
      Thread.sleep(TlsContext.RECHECK_MILLIS + 200);
      unanswered(tls(leaked), "a revoked certificate");
      try (NodeClient after = client(TlsConfig.of(revoked.key(), revoked.cert(),
          certs.resolve("ca.crt")))) {
        NodeException e = assertThrows(NodeException.class, () -> after.ping(node.address));
        assertEquals(Status.PERMISSION_DENIED, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("certificate_revoked"), e.getMessage());
      }
    }
    try (NodeClient alice = client(TlsConfig.inDirectory(certs, "alice"))) {
      alice.ping(node.address); // others are still served
    }
    assertTrue(Files.exists(certs.resolve(CertificateAuthority.CA_CRL)));
  }

  @Test
  void aClientRefusesANodeWithoutANodeCertificate() throws Exception {
    Path fake = dir.resolve("fake");
    ca.issue(TlsRole.CLIENT, "impostor", Duration.ofDays(1), List.of("127.0.0.1"), fake);
    try (TestNode impostor = new TestNode(dir.resolve("impostor"), zk.getConnectString(),
        NodeServerConfig.builder().tls(TlsConfig.inDirectory(fake, "impostor")).build(), "4K",
        "1M");
        NodeClient alice = client(TlsConfig.inDirectory(certs, "alice"))) {
      NodeException e = assertThrows(NodeException.class, () -> alice.ping(impostor.address));
      assertEquals(Status.UNAVAILABLE, e.status());
      assertTrue(e.getMessage().contains("not a node's"), e.getMessage());
      NodeClient plain = NodeClient.create(NodeClientConfig.builder().maxAttempts(1).build());
      try (plain) {
        NodeException refused = assertThrows(NodeException.class, () -> plain.ping(node.address),
            "plaintext to TLS");
        // the client says what the node's silence most likely means
        assertTrue(refused.getMessage().contains("closes plaintext connections"),
            refused.getMessage());
      }
    }
  }

  @Test
  void theNodeCertificateIsRotatedUnderLoad() throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger written = new AtomicInteger();
    NodeClient alice = client(TlsConfig.inDirectory(certs, "alice"));
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; i < 400 && failure.get() == null; i++) {
          ChunkId id = new ChunkId(50, i);
          alice.writeChunk(node.address, node.target, id, 0, WriteMode.CREATE, 0,
              content("rotation-writer", i));
          assertArrayEquals(content("rotation-writer", i).array(), read(alice, id));
          written.incrementAndGet();
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "writer under rotation");
    try {
      writer.start();
      long before = TlsContext.readCertificates(certs.resolve("node1.crt")).get(0)
          .getSerialNumber().longValue();
      Path next = dir.resolve("rotated");
      ca.issue(TlsRole.NODE, "node1", Duration.ofDays(30), List.of("127.0.0.1", "localhost"),
          next);
      // key first, then certificate: a handshake between the two keeps the old context
      Files.move(next.resolve("node1.key"), certs.resolve("node1.key"),
          StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.move(next.resolve("node1.crt"), certs.resolve("node1.crt"),
          StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Thread.sleep(TlsContext.RECHECK_MILLIS + 200);
      List<Long> seen = new ArrayList<>();
      try (SSLSocket s = (SSLSocket) tls(jdk(SslContextBuilder.forClient()
          .trustManager(certs.resolve("ca.crt").toFile()).keyManager(
              certs.resolve("alice.crt").toFile(), certs.resolve("alice.key").toFile())))) {
        seen.add(((java.security.cert.X509Certificate) s.getSession().getPeerCertificates()[0])
            .getSerialNumber().longValue());
      }
      assertNotEquals(before, seen.get(0), "a new connection gets the new certificate");
      assertTrue(node.server.tls().reloads() >= 1);
      try (NodeClient fresh = client(TlsConfig.inDirectory(certs, "alice"))) {
        fresh.ping(node.address);
      }
      writer.join(120_000);
      assertNull(failure.get(), () -> "the writer failed: " + failure.get());
      assertEquals(400, written.get());
    } finally {
      alice.close();
    }
  }
}
