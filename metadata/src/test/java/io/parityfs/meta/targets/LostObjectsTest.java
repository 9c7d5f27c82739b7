package io.parityfs.meta.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parityfs.meta.registry.OnlineRecord;
import io.parityfs.meta.registry.RegistryCodec;
import io.parityfs.meta.registry.TargetRecord;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 39 item 4: the lost objects a node publishes for a target (count and listed ids) reach
 * {@link TargetInfo#lostObjects} and {@link TargetInfo#lostObjectIds}, and its consistency goes
 * back from DAMAGED once the node reports none (each rewritten or deleted, or a whole scrub).
 */
class LostObjectsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static OnlineRecord online(long updated, long lost, List<String> ids) {
    OnlineRecord.TargetStatus s = new OnlineRecord.TargetStatus("t1", "t0", "OPTIMAL",
        "raid6:4+2", 100, 50, "cpu", "x", List.of(), List.of(), List.of(), lost, ids);
    return new OnlineRecord(RegistryCodec.SCHEMA, "n1", "node", "h", 7110, -1, 1, updated, 100,
        50, List.of(s));
  }

  private static TargetInfo target(RegistryModel m) {
    return m.snapshot().target("t1", 10, TIMEOUT).orElseThrow();
  }

  @Test
  void theLostIdsANodePublishesAreTheTargetsAndGoWithTheDamage() {
    RegistryModel m = new RegistryModel(0);
    m.targets.put("t1", new TargetRecord(RegistryCodec.SCHEMA, "t1", "n1", "t0", "default",
        "raid6:4+2", 65536, 64L << 20, 6, 0, 1, "OPTIMAL", 100, 1, 0));
    m.putOnline("n1", online(1, 0, List.of()), 1);
    TargetInfo t = target(m);
    assertEquals(Consistency.GOOD, t.consistency());
    assertEquals(0, t.lostObjects());
    assertEquals(List.of(), t.lostObjectIds());

    m.putOnline("n1", online(2, 150, List.of("0000000100000002", "ffffffffffffffff",
        "not hex", "", "00000000000000ff0")), 1); // bad entries are left out
    t = target(m);
    assertEquals(Consistency.DAMAGED, t.consistency());
    assertEquals(150, t.lostObjects());
    assertEquals(List.of(0x0000000100000002L, -1L), t.lostObjectIds());

    m.removeOnline("n1", 5); // away: the last status stands, as for lostObjects
    t = target(m);
    assertEquals(Reachability.PROBABLY_OFFLINE, t.reachability());
    assertEquals(Consistency.DAMAGED, t.consistency());
    assertEquals(List.of(0x0000000100000002L, -1L), t.lostObjectIds());

    m.putOnline("n1", online(6, 1, List.of("0000000100000002")), 2); // one rewritten
    t = target(m);
    assertEquals(Consistency.DAMAGED, t.consistency());
    assertEquals(List.of(0x0000000100000002L), t.lostObjectIds());

    m.putOnline("n1", online(7, 0, List.of()), 2); // the last one deleted: not damaged
    t = target(m);
    assertEquals(Consistency.GOOD, t.consistency());
    assertEquals(0, t.lostObjects());
    assertEquals(List.of(), t.lostObjectIds());
  }

  @Test
  void anOlderNodesStatusListsNoIds() {
    RegistryModel m = new RegistryModel(0);
    OnlineRecord.TargetStatus s = new OnlineRecord.TargetStatus("t1", "t0", "OPTIMAL",
        "raid6:4+2", 100, 50, "cpu", "x", List.of(), List.of(), List.of(), 3);
    m.putOnline("n1", new OnlineRecord(RegistryCodec.SCHEMA, "n1", "node", "h", 7110, -1, 1, 2,
        100, 50, List.of(s)), 1);
    TargetInfo t = target(m);
    assertEquals(Consistency.DAMAGED, t.consistency());
    assertEquals(3, t.lostObjects());
    assertEquals(List.of(), t.lostObjectIds());
  }
}
