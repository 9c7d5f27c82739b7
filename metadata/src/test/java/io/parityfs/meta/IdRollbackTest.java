package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import io.parityfs.meta.registry.ZkPaths;
import io.parityfs.meta.targets.TargetRegistry;
import io.parityfs.meta.targets.TargetRegistryConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A namespace whose id counter is rolled back (ZooKeeper restored from an older backup) never
 * hands out an id at or below the highest file id a registered target advertises.
 */
class IdRollbackTest extends ZkFixture {
  private final List<Namespace> opened = new ArrayList<>();

  @AfterEach
  void removeTargets() throws Exception {
    opened.forEach(Namespace::close);
    if (client.checkExists().forPath(ZkPaths.TARGETS) != null) {
      client.delete().deletingChildrenIfNeeded().forPath(ZkPaths.TARGETS);
    }
  }

  /** Writes the target record a node writes, advertising {@code maxFileId}. */
  static void advertise(String target, long maxFileId) throws Exception {
    byte[] data = RegistryCodec.encode(new TargetRecord(RegistryCodec.SCHEMA, target,
        "n-" + target, "t", null, "raid6:4+2", 65536, 64L << 20, 6, 0, 1, "OPTIMAL", 1L << 40,
        2, maxFileId));
    if (client.checkExists().forPath(ZkPaths.target(target)) == null) {
      client.create().creatingParentsIfNeeded().forPath(ZkPaths.target(target), data);
    } else {
      client.setData().forPath(ZkPaths.target(target), data);
    }
  }

  /** What a restore of an older backup does to the counter. */
  static void rollBackCounter(NamespaceConfig config, long to) throws Exception {
    client.setData().forPath(config.root() + "/ids",
        Long.toString(to).getBytes(StandardCharsets.US_ASCII));
  }

  private static long counter(NamespaceConfig config) throws Exception {
    return Long.parseLong(new String(client.getData().forPath(config.root() + "/ids"),
        StandardCharsets.US_ASCII));
  }

  private Namespace open(NamespaceConfig config) throws Exception {
    Namespace ns = Namespace.open(client, config);
    opened.add(ns);
    return ns;
  }

  @Test
  void aRolledBackCounterNeverHandsOutAnIdTheTargetsHold() throws Exception {
    NamespaceConfig config = config().toBuilder().idBlock(4).build();
    Namespace before = open(config);
    long firstId = 0;
    long highest = 0;
    for (int i = 0; i < 10; i++) {
      long id = before.create("/old" + i, CreateOptions.file()).id();
      firstId = i == 0 ? id : firstId;
      highest = Math.max(highest, id);
    }
    // two targets hold chunks of those files; the one with the newest says so
    advertise("t1", highest - 3);
    advertise("t2", highest);
    rollBackCounter(config, firstId);

    // a client opening the rolled-back namespace: the counter jumps past what the targets hold
    Namespace after = open(config);
    assertTrue(counter(config) > highest, "counter " + counter(config) + " raised at open");
    for (int i = 0; i < 20; i++) {
      long id = after.create("/new" + i, CreateOptions.file()).id();
      assertTrue(id > highest, "new file id " + id + " is above the advertised " + highest);
    }
    // the ids jumped over are recorded as never handed out
    List<long[]> skips = IdSkips.decode(client.getData().forPath(config.root() + "/idskips"),
        "");
    assertEquals(1, skips.size());
    assertEquals(firstId, skips.get(0)[0]);
    assertEquals(highest + 1, skips.get(0)[1]);
  }

  @Test
  void aTargetThatRegistersLaterRaisesTheCounterAtTheNextBlock() throws Exception {
    NamespaceConfig config = config().toBuilder().idBlock(4).build();
    Namespace ns = open(config);
    long a = ns.create("/a", CreateOptions.file()).id();
    rollBackCounter(config, a); // the namespace was restored; no target has registered yet
    Namespace restored = open(config);
    // a target that was away during the restore comes back holding ids well past the counter
    long held = a + 1000;
    advertise("late", held);
    // the client may still use the block it took before the target registered (a window of at
    // most idBlock ids, documented), but never a block taken after it
    for (int i = 0; i < 8; i++) {
      restored.create("/f" + i, CreateOptions.file());
    }
    long id = restored.create("/g", CreateOptions.file()).id();
    assertTrue(id > held, "id " + id + " after the target registered with " + held);
  }

  @Test
  void withALiveViewOfTheTargetsAThenRegisteringTargetEndsTheBlockInUseAtOnce()
      throws Exception {
    NamespaceConfig config = config(); // blocks of 256: a long-lived client's block
    Namespace ns = open(config);
    long a = ns.create("/a", CreateOptions.file()).id();
    rollBackCounter(config, a);
    try (TargetRegistry registry = TargetRegistry.open(client, TargetRegistryConfig.DEFAULT)) {
      Namespace restored = open(config);
      restored.checkIdsAgainst(registry::highestFileId);
      assertTrue(restored.create("/b", CreateOptions.file()).id() >= a); // takes a block
      long held = a + 100; // inside that block
      advertise("late", held);
      long end = System.nanoTime() + 10_000_000_000L;
      while (registry.highestFileId() < held) { // the registry's watch sees the new record
        assertTrue(System.nanoTime() < end, "the registry never saw the target");
        Thread.sleep(10);
      }
      long id = restored.create("/c", CreateOptions.file()).id();
      assertTrue(id > held, "id " + id + " after the target registered with " + held);
    }
  }

  @Test
  void inNormalOperationTheCounterIsNotMoved() throws Exception {
    NamespaceConfig config = config();
    Namespace ns = open(config);
    long id = ns.create("/a", CreateOptions.file()).id();
    advertise("t1", id); // a target holds chunks of a file the namespace handed out
    long c = counter(config);
    Namespace again = open(config);
    assertEquals(c, counter(config), "a healthy namespace's counter is already past every id");
    assertTrue(again.create("/b", CreateOptions.file()).id() > id);
    assertEquals("[]", new String(client.getData().forPath(config.root() + "/idskips"),
        StandardCharsets.UTF_8));
  }
}
