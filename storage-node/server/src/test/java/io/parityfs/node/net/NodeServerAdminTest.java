package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.node.client.NodeClient;
import io.parityfs.node.client.NodeClientConfig;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.config.NodeServerConfig;
import io.parityfs.node.protocol.ArrayTaskRequest;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.FailDriveRequest;
import io.parityfs.node.protocol.Opcode;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FAIL_DRIVE, REPLACE_DRIVE, rebuild and scrub over the wire, with the data served throughout. */
class NodeServerAdminTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @Test
  void failReplaceRebuildAndScrubOverTheWire() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        TestNode node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K",
            "1M");
        NodeClient client = NodeClient.create(NodeClientConfig.DEFAULT)) {
      var addr = node.address;
      var t = node.target;
      byte[][] data = new byte[8][];
      for (int i = 0; i < data.length; i++) {
        data[i] = new byte[100_000 + i * 1000];
        new Random(i).nextBytes(data[i]);
        client.writeChunk(addr, t, new ChunkId(9, i), 0, WriteMode.CREATE, 0,
            ByteBuffer.wrap(data[i]));
      }
      JsonNode failed = JSON.readTree(client.admin().failDrive(addr, t, 1));
      assertEquals("DEGRADED", failed.get("state").asText(), failed.toString());
      assertEquals("FAILED", failed.get("drives").get(1).get("state").asText());
      assertAllReadable(client, node, data); // degraded reads
      assertEquals(Status.ILLEGAL_STATE, status(() -> client.admin().failDrive(addr, t, 1)));
      assertEquals(Status.INVALID_ARGUMENT, status(() -> client.admin().failDrive(addr, t, 99)));
      Path fresh = Files.createDirectory(dir.resolve("new-drive"));
      assertEquals(Status.ILLEGAL_STATE, status(() -> client.admin().replaceDrive(addr, t, 2,
          fresh.toString(), 0)), "slot 2 has not failed");
      assertEquals(Status.ILLEGAL_STATE, status(() -> client.admin().arrayTask(addr, Opcode.START_REBUILD,
          t, ArrayTaskRequest.ALL_SLOTS)), "no rebuild to start before a new drive");
      JsonNode replaced = JSON.readTree(client.admin().replaceDrive(addr, t, 1, fresh.toString(), 0));
      assertEquals(fresh.toString(), replaced.get("drives").get(1).get("path").asText());
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      String state;
      do {
        Thread.sleep(50);
        state = JSON.readTree(client.admin().arrayStatus(addr, t)).get("targets").get(0).get("state")
            .asText();
      } while (!state.equals("OPTIMAL") && System.nanoTime() < end);
      assertEquals("OPTIMAL", state);
      JsonNode progress = JSON.readTree(client.admin().progress(addr, t));
      int rebuilds = 0;
      for (JsonNode task : progress.get("tasks")) {
        if (task.get("kind").asText().equals("rebuild")) {
          // over, and still listed with its result (issue 39 item 5: a CLI polling late)
          rebuilds++;
          assertEquals("DONE", task.get("state").asText(), task.toString());
          assertEquals(1, task.get("slot").asInt(), task.toString());
          assertEquals(task.get("bytesTotal"), task.get("bytesDone"), task.toString());
          assertTrue(task.get("objectsDone").asLong() > 0, task.toString());
          assertEquals(task.get("objectsTotal"), task.get("objectsDone"), task.toString());
        }
      }
      assertEquals(1, rebuilds, progress.toString());
      assertAllReadable(client, node, data);
      JsonNode scrub = JSON.readTree(client.admin().arrayTask(addr, Opcode.START_SCRUB, t,
          ArrayTaskRequest.ALL_SLOTS));
      assertEquals("scrub", scrub.get("tasks").get(0).get("kind").asText());
      end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      JsonNode done = null;
      while (System.nanoTime() < end) {
        for (JsonNode task : JSON.readTree(client.admin().progress(addr, t)).get("tasks")) {
          if (task.get("kind").asText().equals("scrub") && task.get("state").asText().equals(
              "DONE")) {
            done = task;
          }
        }
        if (done != null) {
          break;
        }
        Thread.sleep(50);
      }
      assertTrue(done != null, "the scrub ran to its end");
      assertTrue(done.get("bytesTotal").asLong() > 0);
      assertEquals(done.get("bytesTotal"), done.get("bytesDone"));
      JsonNode stopped = JSON.readTree(client.admin().arrayTask(addr, Opcode.STOP_SCRUB, t,
          ArrayTaskRequest.ALL_SLOTS));
      assertEquals(t.toString(), stopped.get("target").asText());
      client.admin().arrayTask(addr, Opcode.STOP_REBUILD, t, 1); // nothing running: harmless
    }
  }

  private static void assertAllReadable(NodeClient client, TestNode node, byte[][] data)
      throws Exception {
    for (int i = 0; i < data.length; i++) {
      ByteBuffer b = ByteBuffer.allocate(data[i].length);
      client.readChunk(node.address, node.target, new ChunkId(9, i), 0, b);
      assertArrayEquals(data[i], b.array());
    }
  }

  private interface Call {
    void run() throws Exception;
  }

  @Test
  void failDriveBeyondTheToleranceIsRefusedUnlessForced() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        TestNode node = new TestNode(dir, zk.getConnectString(), NodeServerConfig.DEFAULT, "4K",
            "1M");
        NodeClient client = NodeClient.create(NodeClientConfig.DEFAULT)) {
      var addr = node.address;
      var t = node.target;
      byte[] data = new byte[50_000];
      new Random(3).nextBytes(data);
      client.writeChunk(addr, t, new ChunkId(9, 0), 0, WriteMode.CREATE, 0, ByteBuffer.wrap(data));
      client.admin().failDrive(addr, t, 1);
      client.admin().failDrive(addr, t, 4); // raid6:4+2 tolerates two
      NodeException e = assertThrows(NodeException.class, () -> client.admin().failDrive(addr, t, 2));
      assertEquals(Status.ILLEGAL_STATE, e.status());
      assertTrue(e.getMessage().contains("slots 1 FAILED, 4 FAILED")
          && e.getMessage().contains("FORCE"), e.getMessage());
      JsonNode status = JSON.readTree(client.admin().arrayStatus(addr, t)).get("targets").get(0);
      assertEquals("DEGRADED", status.get("state").asText(), status.toString());
      assertEquals("ONLINE", status.get("drives").get(2).get("state").asText());
      assertAllReadable(client, node, new byte[][] {data}); // still served
      JsonNode forced = JSON.readTree(client.admin().failDrive(addr, t, 2, FailDriveRequest.FORCE));
      assertEquals("FAILED", forced.get("state").asText(), forced.toString());
      assertEquals("FAILED", forced.get("drives").get(2).get("state").asText());
    }
  }

  private static Status status(Call c) {
    return assertThrows(NodeException.class, c::run).status();
  }
}
