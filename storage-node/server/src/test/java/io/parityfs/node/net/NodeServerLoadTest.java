package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.ListEntry;
import io.parityfs.node.protocol.ListResponse;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.node.protocol.WriteMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 32 concurrent clients doing random writes (all four modes, random sizes), reads, stats,
 * deletes and lists for a bounded time ({@code -Dparityfs.loadtest.seconds}, default 15), each
 * checking every answer and every byte read against its own model of its chunks.
 */
class NodeServerLoadTest {
  private static final int CLIENTS = 32;
  private static final int CHUNKS_PER_CLIENT = 6;
  private static final int MAX_CHUNK = 4 << 20;

  @TempDir Path dir;

  @Test
  void thirtyTwoClientsOfMixedOperationsMatchTheirModels() throws Exception {
    long seconds = Long.getLong("parityfs.loadtest.seconds", 15);
    try (TestingServer zk = new TestingServer(true);
        TestNode node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K",
            "4M")) {
      NodeClient[] clients = new NodeClient[4];
      for (int i = 0; i < clients.length; i++) {
        clients[i] = NodeClient.create(NodeClientConfig.DEFAULT);
      }
      ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
      AtomicLong ops = new AtomicLong();
      AtomicLong bytesChecked = new AtomicLong();
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
          Worker w = new Worker(clients[c % clients.length], node.address, node.target, c,
              ops, bytesChecked);
          done.add(threads.submit(() -> {
            w.run(end);
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        threads.shutdownNow();
        for (NodeClient c : clients) {
          c.close();
        }
      }
      System.out.printf("load: %d clients, %d s, %d operations, %.1f MiB checked%n", CLIENTS,
          seconds, ops.get(), bytesChecked.get() / 1048576.0);
      assertTrue(ops.get() >= CLIENTS * 10L, "operations " + ops.get());
      assertEquals(0, node.server.requestsInHand());
      assertEquals(0, node.server.openWriters());
    }
  }

  /** One client: its own file, a model of its chunks, random operations checked against it. */
  private static final class Worker {
    private final NodeClient client;
    private final InetSocketAddress addr;
    private final TargetId target;
    private final long fileId;
    private final Random random;
    private final Map<Integer, byte[]> model = new HashMap<>();
    private final AtomicLong ops;
    private final AtomicLong checked;

    Worker(NodeClient client, InetSocketAddress addr, TargetId target, int n, AtomicLong ops,
        AtomicLong checked) {
      this.client = client;
      this.addr = addr;
      this.target = target;
      this.fileId = 5000 + n;
      this.random = new Random(n * 7919L);
      this.ops = ops;
      this.checked = checked;
    }

    void run(long end) throws Exception {
      while (System.nanoTime() < end) {
        int index = random.nextInt(CHUNKS_PER_CLIENT);
        ChunkId c = new ChunkId(fileId, index);
        int op = random.nextInt(100);
        if (op < 35) {
          write(c, index);
        } else if (op < 65) {
          read(c, index);
        } else if (op < 80) {
          stat(c, index);
        } else if (op < 90) {
          assertEquals(model.remove(index) != null, client.delete(addr, target, c), "delete " + c);
        } else {
          list();
        }
        ops.incrementAndGet();
      }
    }

    private byte[] data() {
      int n = random.nextInt(10) == 0 ? random.nextInt(2 << 20) : random.nextInt(256 << 10);
      byte[] b = new byte[n];
      random.nextBytes(b);
      return b;
    }

    private void write(ChunkId c, int index) throws IOException {
      byte[] old = model.get(index);
      byte[] d = data();
      WriteMode mode = WriteMode.values()[random.nextInt(4)];
      if (old == null) {
        switch (mode) {
          case OVERWRITE -> {
            assertEquals(Status.NOT_FOUND, fails(() -> put(c, 0, mode, d)), "overwrite " + c);
            return;
          }
          case APPEND -> {
            expect(put(c, random.nextBoolean() ? -1 : 0, mode, d), d, index);
            return;
          }
          default -> {
            expect(put(c, 0, mode, d), d, index);
            return;
          }
        }
      }
      switch (mode) {
        case CREATE -> assertEquals(Status.ALREADY_EXISTS, fails(() -> put(c, 0, mode, d)));
        case REPLACE -> expect(put(c, 0, mode, d), d, index);
        case OVERWRITE -> {
          int at = random.nextInt(old.length + 1);
          byte[] now = Arrays.copyOf(old, Math.max(old.length, at + d.length));
          if (now.length > MAX_CHUNK) {
            return;
          }
          System.arraycopy(d, 0, now, at, d.length);
          expect(put(c, at, mode, d), now, index);
        }
        case APPEND -> {
          if (old.length + d.length > MAX_CHUNK) {
            return;
          }
          byte[] now = Arrays.copyOf(old, old.length + d.length);
          System.arraycopy(d, 0, now, old.length, d.length);
          if (random.nextInt(4) == 0) {
            assertEquals(Status.CONFLICT, fails(() -> put(c, old.length + 1, mode, d)));
          }
          expect(put(c, random.nextBoolean() ? -1 : old.length, mode, d), now, index);
        }
      }
    }

    private ChunkStat put(ChunkId c, long offset, WriteMode mode, byte[] d) throws IOException {
      return client.writeChunk(addr, target, c, offset, mode, 0, ByteBuffer.wrap(d));
    }

    private void expect(ChunkStat s, byte[] now, int index) {
      assertEquals(now.length, s.length());
      model.put(index, now);
    }

    private void read(ChunkId c, int index) throws IOException {
      byte[] m = model.get(index);
      if (m == null) {
        assertEquals(Status.NOT_FOUND, fails(() -> client.readChunk(addr, target, c, 0, -1,
            Channels.newChannel(new ByteArrayOutputStream()))));
        return;
      }
      int from = random.nextInt(m.length + 1);
      long len = random.nextBoolean() ? -1 : random.nextInt(m.length + 1);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      client.readChunk(addr, target, c, from, len, Channels.newChannel(out));
      int to = len < 0 ? m.length : (int) Math.min(m.length, from + len);
      assertArrayEquals(Arrays.copyOfRange(m, from, to), out.toByteArray(), "read " + c);
      checked.addAndGet(to - from);
    }

    private void stat(ChunkId c, int index) throws IOException {
      byte[] m = model.get(index);
      if (m == null) {
        assertEquals(Status.NOT_FOUND, fails(() -> client.stat(addr, target, c)));
      } else {
        assertEquals(m.length, client.stat(addr, target, c).length());
      }
    }

    private void list() throws IOException {
      Map<Integer, Long> listed = new TreeMap<>();
      long cursor = 0;
      do {
        ListResponse page = client.list(addr, target, fileId, cursor, 1 + random.nextInt(4));
        for (ListEntry e : page.entries()) {
          listed.put(e.chunk().chunkIndex(), e.length());
        }
        cursor = page.nextCursor();
      } while (cursor != ListResponse.END);
      Map<Integer, Long> expected = new TreeMap<>();
      model.forEach((k, v) -> expected.put(k, (long) v.length));
      assertEquals(expected, listed, "list of file " + fileId);
    }

    private interface Call {
      void run() throws Exception;
    }

    private static Status fails(Call call) {
      return assertThrows(NodeException.class, call::run).status();
    }
  }
}
