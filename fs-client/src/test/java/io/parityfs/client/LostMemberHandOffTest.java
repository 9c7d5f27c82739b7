package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.AcrossKeeper;
import io.parityfs.meta.Across;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.Consistency;
import io.parityfs.node.StorageNode;
import io.parityfs.node.StorageTarget;
import io.parityfs.raid.array.repair.ScrubReport;
import io.parityfs.testing.MiniCluster;
import io.parityfs.testing.ShardDamage;
import io.parityfs.testkit.Eventually;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 39 item 4: a member that a node's scrub finds beyond its RAID's repair (three bad cells
 * in one RAID-6 stripe) is handed to the keeper, which adds it to its file's repair record and
 * stores it again from the other nodes in the same round; the node then forgets it, its target
 * leaves DAMAGED, and the file reads whole. On a cluster of its own, since it damages data.
 */
class LostMemberHandOffTest extends OwnClusterTest {
  static final int CHUNK = 256 << 10;
  static final int CELL = 65536; // the mini cluster's cell size

  @BeforeAll
  static void start() throws Exception {
    startCluster(3);
  }

  @Test
  void aMemberAScrubFoundLostIsStoredAgainFromTheOtherNodes() throws Exception {
    client.namespace().mkdirs("/d", CreateOptions.directory().withLayout(
        new Layout(CHUNK, 3, List.of(), "raid6:4+2").withAcross(Across.ec(2, 1))));
    byte[] data = new byte[2 * CHUNK];
    FileStatus f;
    try (PfsOutputStream out = client.create("/d/f", CreateOptions.file())) {
      new Random(31L * out.file().id() + out.file().generation()).nextBytes(data);
      out.write(data);
      f = out.file();
    }
    String targetId = f.layout().targets().get(ChunkMap.of(f.layout()).position(0));
    long object = f.id() * ChunkMap.CHUNK_INDEXES; // data chunk 0
    corruptThreeShards(String.format("%016x", object));

    StorageTarget target = target(targetId);
    ScrubReport report = target.array().scrubber().run();
    assertEquals(1, report.unrecoverableObjects(), report.toString());
    assertEquals(List.of(object), report.unrecoverableIds());
    Eventually.passes("the registry lists the lost object", Duration.ofSeconds(30), () -> {
      if (!client.registry().target(targetId).orElseThrow().lostObjectIds().contains(object)) {
        throw new IllegalStateException(client.registry().target(targetId).toString());
      }
    });

    try (AcrossKeeper keeper = new AcrossKeeper(client, Duration.ofHours(1), 0)) {
      AcrossKeeper.Round r = keeper.runOnce(() -> true);
      assertEquals(1, r.lostHandedOff(), r.toString());
      assertEquals(1, r.membersCaughtUp(), r.toString());
      assertEquals(0, keeper.runOnce(() -> true).lostHandedOff(), "handed off once");
    }
    FileStatus now = client.namespace().getStatus("/d/f");
    assertTrue(now.repairs().isEmpty(), now.repairs().toString());
    assertEquals(0, target.lostObjects(), "stored again: the node forgets it");
    Eventually.passes("the target leaves DAMAGED", Duration.ofSeconds(30), () -> {
      Consistency c = client.registry().target(targetId).orElseThrow().consistency();
      if (c == Consistency.DAMAGED) {
        throw new IllegalStateException(c.toString());
      }
    });
    assertArrayEquals(data, MiniCluster.read(client, "/d/f"));
    assertEquals(0, target.array().scrubber().run().unrecoverableObjects());
  }

  private static StorageTarget target(String id) {
    for (StorageNode n : cluster.nodes()) {
      for (StorageTarget t : n.targets()) {
        if (t.id().equals(id)) {
          return t;
        }
      }
    }
    throw new IllegalStateException("no node serves " + id);
  }

  /** Flips a bit in cell 0 of three of the six shards of object {@code hex}. */
  private static void corruptThreeShards(String hex) throws IOException {
    List<Path> shards = ShardDamage.shards(dir).get(hex);
    assertEquals(6, shards.size(), shards.toString());
    for (Path shard : shards.subList(0, 3)) {
      ShardDamage.flipBit(shard, CELL, 0);
    }
  }
}
