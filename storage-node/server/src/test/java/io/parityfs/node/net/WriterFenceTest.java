package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writer fencing on a real node through the wire (issue 15 item 2, audit D3): a WRITE or DELETE
 * of an older writer generation than the file's fence is refused with STALE_GENERATION, also a
 * WRITE creating a chunk the target never had; a DELETE of a newer generation raises the fence
 * even for an absent chunk; and the fence survives a node restart.
 */
class WriterFenceTest {
  @TempDir Path dir;

  private static ByteBuffer content(long file, long generation, int index) {
    return ByteBuffer.wrap(("file " + file + " generation " + generation + " chunk " + index)
        .getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] read(NodeClient c, TestNode n, ChunkId id) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    c.readChunk(n.address, n.target, id, 0, -1, Channels.newChannel(out));
    return out.toByteArray();
  }

  private static Status status(Executable e) {
    return assertThrows(NodeException.class, e::run).status();
  }

  interface Executable {
    void run() throws Exception;
  }

  @Test
  void olderGenerationsAreRefusedAndTheFenceSurvivesARestart() throws Exception {
    long file = 77;
    ChunkId c0 = new ChunkId(file, 0);
    ChunkId c1 = new ChunkId(file, 1);
    try (TestingServer zk = new TestingServer(true);
        NodeClient client = NodeClient.create(NodeClientConfig.DEFAULT)) {
      TestNode node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K",
          "64M");
      try {
        TestNode n = node;
        client.writeChunk(n.address, n.target, c0, 0, WriteMode.REPLACE, 0, 2, content(file, 2, 0));
        assertEquals(Status.STALE_GENERATION, status(() -> client.writeChunk(n.address,
            n.target, c0, 0, WriteMode.REPLACE, 0, 1, content(file, 1, 0))), "older REPLACE");
        assertEquals(Status.STALE_GENERATION, status(() -> client.writeChunk(n.address,
            n.target, c1, 0, WriteMode.REPLACE, 0, 1, content(file, 1, 1))),
            "an older writer cannot create a chunk the target never had");
        assertEquals(Status.STALE_GENERATION, status(() -> client.writeChunk(n.address,
            n.target, c0, 0, WriteMode.REPLACE, 0, content(file, 0, 0))),
            "the generation-less form is generation 0");
        assertEquals(Status.STALE_GENERATION,
            status(() -> client.delete(n.address, n.target, c0, 1)), "older DELETE");
        assertArrayEquals(content(file, 2, 0).array(), read(client, n, c0),
            "the refused requests changed nothing");
        // a newer DELETE of a chunk that does not exist still raises the fence
        assertFalse(client.delete(n.address, n.target, new ChunkId(file, 9), 3));
        assertEquals(Status.STALE_GENERATION, status(() -> client.writeChunk(n.address,
            n.target, c0, 0, WriteMode.REPLACE, 0, 2, content(file, 2, 0))),
            "generation 2 is fenced once 3 was seen");
        assertEquals(3, n.storageTarget().chunks().fence(file));
        // another file is not fenced
        client.writeChunk(n.address, n.target, new ChunkId(file + 1, 0), 0, WriteMode.REPLACE, 0,
            0, content(file + 1, 0, 0));
      } finally {
        node.close();
      }
      node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K", "64M");
      try {
        TestNode n = node;
        assertEquals(3, n.storageTarget().chunks().fence(file), "the fence is back after restart");
        assertEquals(Status.STALE_GENERATION, status(() -> client.writeChunk(n.address,
            n.target, c0, 0, WriteMode.REPLACE, 0, 2, content(file, 2, 0))));
        assertEquals(Status.STALE_GENERATION,
            status(() -> client.delete(n.address, n.target, c0, 2)));
        assertArrayEquals(content(file, 2, 0).array(), read(client, n, c0));
        client.writeChunk(n.address, n.target, c0, 0, WriteMode.REPLACE, 0, 4, content(file, 4, 0));
        assertArrayEquals(content(file, 4, 0).array(), read(client, n, c0));
        assertTrue(client.delete(n.address, n.target, c0, 4));
        // a removed file's chunks are deleted outside any generation (deferred deletes)
        client.writeChunk(n.address, n.target, c1, 0, WriteMode.REPLACE, 0, 4, content(file, 4, 1));
        assertTrue(client.delete(n.address, n.target, c1));
      } finally {
        node.close();
      }
    }
  }
}
