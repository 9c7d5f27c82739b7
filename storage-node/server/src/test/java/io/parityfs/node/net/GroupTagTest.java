package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.node.protocol.WriteRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group tag of protection across nodes on a real node through the wire
 * (docs/across-nodes.md §3): a WRITE with a sequence stores (generation, sequence) with the new
 * version; WRITE's and STAT's answers and the first frame of a READ WITH_STAT return it; a write
 * without one stores none, also over a tagged version; an append or overwrite stores the tag it
 * carries; and the tag survives a node restart.
 */
class GroupTagTest {
  @TempDir Path dir;

  private static ByteBuffer content(String what) {
    return ByteBuffer.wrap(what.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theTagIsStoredWithTheVersionAndReturnedByWriteStatAndRead() throws Exception {
    ChunkId c = new ChunkId(91, 5);
    try (TestingServer zk = new TestingServer(true);
        NodeClient client = NodeClient.create(NodeClientConfig.DEFAULT)) {
      TestNode node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K",
          "64M");
      try {
        TestNode n = node;
        ChunkStat w = client.writeChunk(n.address, n.target, c, 0, WriteMode.REPLACE,
            WriteRequest.SYNC, 3, 7, content("generation 3 sequence 7"));
        assertTrue(w.tagged(), w.toString());
        assertEquals(3, w.generation());
        assertEquals(7, w.sequence());
        assertEquals(w, client.stat(n.address, n.target, c));

        ByteBuffer dst = ByteBuffer.allocate(100);
        ChunkStat r = client.readChunkWithStat(n.address, n.target, c, 13, dst);
        assertEquals(w, r, "the stat of the version read");
        assertEquals("sequence 7", new String(dst.array(), 0, dst.position(),
            StandardCharsets.UTF_8));
        // a read at the end (one empty frame) still names the version
        ChunkStat atEnd = client.readChunkWithStat(n.address, n.target, c, w.length(),
            ByteBuffer.allocate(10));
        assertEquals(7, atEnd.sequence());

        // an append stores the tag it carries, the kept bytes included
        ChunkStat a = client.writeChunk(n.address, n.target, c, w.length(), WriteMode.APPEND, 0,
            3, 8, content(", then 8"));
        assertEquals(8, a.sequence());
        ByteBuffer all = ByteBuffer.allocate(100);
        assertEquals(a, client.readChunkWithStat(n.address, n.target, c, 0, all));
        assertEquals("generation 3 sequence 7, then 8",
            new String(all.array(), 0, all.position(), StandardCharsets.UTF_8));

        // a write without a sequence stores no tag, also over a tagged version
        ChunkStat plain = client.writeChunk(n.address, n.target, c, 0, WriteMode.REPLACE, 0, 3,
            content("untagged"));
        assertFalse(plain.tagged(), plain.toString());
        assertEquals(0, client.stat(n.address, n.target, c).sequence());
        ChunkStat again = client.writeChunk(n.address, n.target, c, 0, WriteMode.REPLACE, 0, 4,
            9, content("generation 4 sequence 9"));
        assertEquals(4, again.generation());
      } finally {
        node.close();
      }
      node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K", "64M");
      try {
        ChunkStat s = client.stat(node.address, node.target, c);
        assertEquals(4, s.generation(), "the tag is back after a restart: " + s);
        assertEquals(9, s.sequence());
        ByteBuffer dst = ByteBuffer.allocate(100);
        assertEquals(s, client.readChunkWithStat(node.address, node.target, c, 0, dst));
        assertArrayEquals(content("generation 4 sequence 9").array(),
            Arrays.copyOf(dst.array(), dst.position()));
      } finally {
        node.close();
      }
    }
  }

  /**
   * Audit N1: a repairer joins a round an earlier writer stored with that round's exact tag: the
   * WRITE carries the tag's generation apart from the writer generation it is fenced with. The
   * tag is stored as sent; the fence still refuses an older writer generation and is raised by a
   * newer one; a tag generation past the writer generation is refused.
   */
  @Test
  void aMemberJoinsAnOlderRoundWithItsExactTagFencedAsTheNewerGeneration() throws Exception {
    ChunkId c = new ChunkId(92, 1);
    try (TestingServer zk = new TestingServer(true);
        NodeClient client = NodeClient.create(NodeClientConfig.DEFAULT)) {
      TestNode n = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K",
          "64M");
      try {
        ChunkStat joined = client.writeChunk(n.address, n.target, c, 0, WriteMode.REPLACE,
            WriteRequest.SYNC, 2, 41, 0, content("member of generation 0's round 41"));
        assertEquals(0, joined.generation(), joined.toString());
        assertEquals(41, joined.sequence());
        assertEquals(joined, client.stat(n.address, n.target, c));
        // the fence is generation 2 now: a writer of generation 1 is refused
        io.parityfs.node.client.NodeException stale = org.junit.jupiter.api.Assertions
            .assertThrows(io.parityfs.node.client.NodeException.class, () -> client.writeChunk(
                n.address, n.target, c, 0, WriteMode.REPLACE, 0, 1, 42, content("old writer")));
        assertEquals(io.parityfs.node.protocol.Status.STALE_GENERATION, stale.status());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> client.writeChunk(n.address, n.target, c, 0, WriteMode.REPLACE, 0, 2, 43, 3,
                content("a tag from the future")));
        assertEquals(joined, client.stat(n.address, n.target, c), "nothing changed");
      } finally {
        n.close();
      }
    }
  }
}
