package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Repair records (docs/across-nodes.md §3): the ranges, their commit with a writer's length,
 * their schema, and taking repaired members out only for a closed file nothing was written to.
 */
class RepairsTest extends ZkFixture {

  private static Repairs.Range r(String t, long from, long to) {
    return new Repairs.Range(t, from, to);
  }

  @Test
  void rangesStaySortedMergedAndCut() {
    Repairs a = new Repairs(List.of(r("t2", 5, 9), r("t1", 0, 0), r("t2", 10, 12), r("t2", 0, 2)));
    assertEquals(List.of(r("t1", 0, 0), r("t2", 0, 2), r("t2", 5, 12)), a.ranges());
    assertTrue(a.stale("t2", 7));
    assertFalse(a.stale("t2", 3));
    assertFalse(a.stale("t3", 0));
    assertEquals(Set.of("t1", "t2"), a.targets());
    assertEquals(1 + 3 + 8, a.members());
    Repairs cut = a.without("t2", 7, 8);
    assertEquals(List.of(r("t1", 0, 0), r("t2", 0, 2), r("t2", 5, 6), r("t2", 9, 12)),
        cut.ranges());
    assertEquals(List.of(r("t1", 0, 0), r("t2", 0, 2), r("t2", 5, 5)), a.below(6).ranges());
    assertEquals(a, Repairs.NONE.with(a));
    assertEquals(a, a.with(Repairs.of("t2", 11)));
    assertTrue(a.without("t1", 0, 100).without("t2", 0, 100).isEmpty());
    assertThrows(IllegalArgumentException.class, () -> r("t1", 3, 2));
    assertThrows(IllegalArgumentException.class, () -> r("", 0, 0));
  }

  @Test
  void aCommitCarriesItsStaleMembersAndTheRecordSurvivesRereads() throws Exception {
    Namespace ns = newNamespace();
    FileStatus f = ns.create("/f", CreateOptions.file());
    assertTrue(f.repairs().isEmpty());
    ns.setLength("/f", f.id(), -1, 100, -1, Repairs.of("t2", 0));
    ns.setLength("/f", f.id(), -1, 200, -1, Repairs.of("t2", 1));
    FileStatus closed = ns.complete("/f", f.id(), -1, 300, -1, Repairs.of("t1", 4));
    assertEquals(List.of(r("t1", 4, 4), r("t2", 0, 1)), closed.repairs().ranges());
    // as read by another namespace view, from ZooKeeper
    try (Namespace other = Namespace.open(client, ns.config())) {
      FileStatus s = other.getStatus("/f");
      assertEquals(closed.repairs(), s.repairs());
      assertEquals(300, s.length());
    }
    // a record with repairs is schema 3, so that older code refuses it rather than misread it
    String json = new String(rawEntry(ns, "/f"), StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"schema\":3,"), json);
    assertTrue(json.contains("\"repairs\":[{\"target\":\"t1\",\"from\":4,\"to\":4}"), json);
    // a rename keeps it
    ns.rename("/f", "/g");
    assertEquals(closed.repairs(), ns.getStatus("/g").repairs());
  }

  @Test
  void repairedTakesMembersOutOnlyOfAClosedUnchangedFile() throws Exception {
    Namespace ns = newNamespace();
    FileStatus f = ns.create("/f", CreateOptions.file());
    FileStatus open = ns.setLength("/f", f.id(), -1, 10, -1, new Repairs(List.of(r("t2", 0, 3))));
    assertEquals(NamespaceStatus.LEASE_CONFLICT, assertThrows(NamespaceException.class,
        () -> ns.repaired("/f", f.id(), open.version(), open.generation(), Repairs.of("t2", 0)))
        .status());
    FileStatus closed = ns.complete("/f", f.id(), -1, 10);
    assertEquals(NamespaceStatus.CONFLICT, assertThrows(NamespaceException.class,
        () -> ns.repaired("/f", f.id(), closed.version() - 1, closed.generation(),
            Repairs.of("t2", 0))).status());
    FileStatus part = ns.repaired("/f", f.id(), closed.version(), closed.generation(),
        new Repairs(List.of(r("t2", 0, 1))));
    assertEquals(List.of(r("t2", 2, 3)), part.repairs().ranges());
    assertEquals(closed.version(), part.version(), "a repair changes no byte of the file");
    FileStatus none = ns.repaired("/f", f.id(), part.version(), part.generation(),
        new Repairs(List.of(r("t2", 2, 3))));
    assertTrue(none.repairs().isEmpty());
    String json = new String(rawEntry(ns, "/f"), StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"schema\":2,"), json);
    assertFalse(json.contains("repairs"), json);
  }

  @Test
  void aRecordPastItsBoundFailsTheCommitInsteadOfDroppingMembers() throws Exception {
    Namespace ns = newNamespace();
    FileStatus f = ns.create("/f", CreateOptions.file());
    List<Repairs.Range> many = new ArrayList<>();
    for (int i = 0; i <= Repairs.MAX_RANGES; i++) {
      many.add(r("t1", 2L * i, 2L * i)); // never adjacent: one range each
    }
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> ns.setLength("/f", f.id(), -1, 10, -1, new Repairs(many)));
    assertEquals(NamespaceStatus.TOO_LARGE, e.status());
    assertEquals(0, ns.getStatus("/f").length(), "nothing committed");
  }

  @Test
  void theRepairIndexFollowsTheRecordsThroughCommitsRenamesAndRemovals() throws Exception {
    Namespace ns = newNamespace();
    ns.mkdirs("/d");
    FileStatus f = ns.create("/d/f", CreateOptions.file());
    FileStatus g = ns.create("/d/g", CreateOptions.file());
    assertEquals(List.of(), ns.filesToRepair());
    ns.complete("/d/g", g.id(), -1, 10, -1, Repairs.NONE);
    ns.setLength("/d/f", f.id(), -1, 100, -1, Repairs.of("t2", 0));
    assertEquals(List.of(new Namespace.ToRepair(f.id(), "/d/f", List.of("t2"))),
        ns.filesToRepair(), "indexed with the commit that made the record");
    FileStatus closed = ns.complete("/d/f", f.id(), -1, 200, -1, Repairs.of("t1", 1));
    assertEquals(List.of("t1", "t2"), ns.filesToRepair().get(0).targets());
    ns.rename("/d/f", "/d/h");
    assertEquals("/d/h", ns.filesToRepair().get(0).path(), "a rename rewrites it");
    closed = ns.getStatus("/d/h");
    FileStatus part = ns.repaired("/d/h", f.id(), closed.version(), closed.generation(),
        Repairs.of("t1", 1));
    assertEquals(List.of("t2"), ns.filesToRepair().get(0).targets());
    ns.repaired("/d/h", f.id(), part.version(), part.generation(), Repairs.of("t2", 0));
    assertEquals(List.of(), ns.filesToRepair(), "an empty record leaves the index");
    // a removed file leaves it too, and so does one replaced by a rename
    FileStatus k = ns.create("/d/k", CreateOptions.file());
    ns.complete("/d/k", k.id(), -1, 5, -1, Repairs.of("t3", 0));
    FileStatus m = ns.create("/d/m", CreateOptions.file());
    ns.complete("/d/m", m.id(), -1, 5, -1, Repairs.of("t4", 0));
    assertEquals(2, ns.filesToRepair().size());
    assertTrue(ns.delete("/d/k", false));
    ns.renameReplacing("/d/m", "/d/g"); // replaces /d/g (no record); /d/m's record moves with it
    assertEquals(List.of(new Namespace.ToRepair(m.id(), "/d/g", List.of("t4"))),
        ns.filesToRepair());
    FileStatus n = ns.create("/d/n", CreateOptions.file());
    ns.complete("/d/n", n.id(), -1, 5, -1, Repairs.of("t5", 0));
    ns.renameReplacing("/d/g", "/d/n"); // replaces /d/n, whose record goes
    assertEquals(List.of(new Namespace.ToRepair(m.id(), "/d/n", List.of("t4"))),
        ns.filesToRepair());
    ns.delete("/d", true);
    ns.purgeTrash();
    assertEquals(List.of(), ns.filesToRepair(), "a recursive delete removes the index records");
  }
}
