package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A sparse file's hole record ({@link Holes}): the ranges, their commit with a writer's length
 * (cut at the length, bounded), their schema (4, refused by code that predates it), and the
 * stored prefix and placement that take them as present but not stored.
 */
class HolesTest extends ZkFixture {

  private static Holes.Range h(long from, long to) {
    return new Holes.Range(from, to);
  }

  @Test
  void rangesStaySortedMergedAndCut() {
    Holes a = new Holes(List.of(h(10, 12), h(0, 2), h(5, 9), h(20, 20)));
    assertEquals(List.of(h(0, 2), h(5, 12), h(20, 20)), a.ranges());
    assertTrue(a.contains(0) && a.contains(7) && a.contains(12) && a.contains(20));
    assertFalse(a.contains(3) || a.contains(13) || a.contains(21));
    assertEquals(3 + 8 + 1, a.groups());
    assertEquals(List.of(h(0, 2), h(5, 6), h(8, 12), h(20, 20)), a.without(7).ranges());
    assertEquals(List.of(h(0, 2), h(6, 12), h(20, 20)), a.without(5).ranges());
    assertEquals(a, a.without(4));
    assertEquals(List.of(h(0, 2), h(5, 7)), a.below(8).ranges());
    assertEquals(a, a.below(21));
    assertEquals(List.of(h(0, 12), h(20, 20)), a.with(3, 4).ranges());
    assertEquals(a, a.with(5, 4)); // empty
    assertEquals("0..2, 5..12, 20", a.toString());
    assertThrows(IllegalArgumentException.class, () -> h(3, 2));
    assertThrows(IllegalArgumentException.class, () -> h(-1, 2));
  }

  @Test
  void aCommitCarriesTheWritersHolesCutAtTheLength() throws Exception {
    Namespace ns = newNamespace();
    Layout layout = new Layout(1 << 20, 3, List.of(), "raid6:4+2");
    FileStatus f = ns.create("/f", CreateOptions.file().withLayout(layout));
    // 10 MiB, chunks 1..9 never stored
    FileStatus s = ns.setLength("/f", f.id(), -1, 10L << 20, -1, Repairs.NONE,
        new Holes(List.of(h(1, 9))));
    assertEquals("1..9", s.holes().toString());
    assertEquals(1L << 20, s.storedBytes());
    // null keeps them; a shorter length cuts them
    s = ns.setLength("/f", f.id(), -1, (5L << 20) + 1, -1, Repairs.NONE, null);
    assertEquals("1..5", s.holes().toString());
    assertEquals((1L << 20) + 0, s.storedBytes());
    FileStatus closed = ns.complete("/f", f.id(), -1, (5L << 20) + 1, -1, Repairs.NONE,
        new Holes(List.of(h(2, 5))));
    assertEquals("2..5", closed.holes().toString());
    assertEquals(closed, withoutTimes(ns.getStatus("/f"), closed));
    try (Namespace other = Namespace.open(client, ns.config())) {
      assertEquals(closed.holes(), other.getStatus("/f").holes());
    }
    // schema 4 with holes, so that code that would take a hole for a lost chunk refuses it
    String json = new String(rawEntry(ns, "/f"), StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"schema\":4,"), json);
    assertTrue(json.contains("\"holes\":[{\"from\":2,\"to\":5}]"), json);
    // a rename keeps them; a dense file is schema 2 again
    ns.rename("/f", "/g");
    assertEquals(closed.holes(), ns.getStatus("/g").holes());
    FileStatus again = ns.append("/g");
    ns.complete("/g", again.id(), -1, 1 << 20, -1, Repairs.NONE, Holes.NONE);
    json = new String(rawEntry(ns, "/g"), StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{\"schema\":2,") && !json.contains("holes"), json);
  }

  @Test
  void aRecordOfMoreThanTheMostRangesIsRefused() throws Exception {
    Namespace ns = newNamespace();
    FileStatus f = ns.create("/many", CreateOptions.file());
    List<Holes.Range> ranges = new ArrayList<>();
    for (int i = 0; i <= Holes.MAX_RANGES; i++) {
      ranges.add(h(2L * i, 2L * i));
    }
    NamespaceException e = assertThrows(NamespaceException.class, () -> ns.setLength("/many",
        f.id(), -1, 1L << 40, -1, Repairs.NONE, new Holes(ranges)));
    assertEquals(NamespaceStatus.TOO_LARGE, e.status());
    assertEquals(0, ns.getStatus("/many").length());
  }

  @Test
  void placementAndTheGroupCountLeaveHolesOut() {
    Layout ec = new Layout(1 << 20, 3, List.of("a", "b", "c"), "raid6:4+2")
        .withAcross(Across.ec(2, 1));
    ChunkMap map = ChunkMap.of(ec);
    long length = 6L << 20; // groups 0, 1, 2
    assertEquals(3, map.groups(length));
    assertEquals(3, map.groups(length - 1));
    assertEquals(4, map.groups(length + 1));
    assertEquals(9, map.stored(length).size());
    List<ChunkMap.Placed> sparse = map.stored(length, new Holes(List.of(h(1, 1))));
    assertEquals(6, sparse.size());
    assertTrue(sparse.stream().noneMatch(p -> p.index() == 2 || p.index() == 3
        || p.index() == ChunkMap.PARITY_BASE + 1));
  }

  private static FileStatus withoutTimes(FileStatus read, FileStatus expected) {
    return new FileStatus(read.path(), read.id(), read.type(), read.length(), read.version(),
        expected.modificationTime(), expected.accessTime(), read.owner(), read.group(),
        read.permission(), read.layout(), read.writer(), read.generation(), read.repairs(),
        read.holes());
  }
}
