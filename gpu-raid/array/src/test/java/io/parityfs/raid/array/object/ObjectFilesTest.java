package io.parityfs.raid.array.object;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ObjectFilesTest {

  @Test
  void namesAreFixedWidthHex() {
    assertEquals("0123456789abcdef.000000000000002a.manifest",
        ObjectFiles.manifest(0x0123456789abcdefL, 42));
    assertEquals("0123456789abcdef.000000000000002a.05", ObjectFiles.shard(0x0123456789abcdefL, 42, 5));
    assertEquals("ffffffffffffffff.0000000000000000.3f", ObjectFiles.shard(-1, 0, 63));
    assertEquals("0000000000000007.", ObjectFiles.prefix(7));
    assertEquals("0000000000000007.0000000000000001.00.tmp",
        ObjectFiles.temp(ObjectFiles.shard(7, 1, 0)));
  }

  @Test
  void namesParseBack() {
    long[] ids = {0, 1, 7, 0x0123456789abcdefL, Long.MAX_VALUE, Long.MIN_VALUE, -1};
    long[] versions = {0, 1, 255, 256, Long.MAX_VALUE};
    for (long id : ids) {
      for (long v : versions) {
        for (boolean temp : new boolean[] {false, true}) {
          for (int shard : new int[] {ObjectFiles.Name.MANIFEST, 0, 9, 10, 63}) {
            ObjectFiles.Name want = new ObjectFiles.Name(id, v, shard, temp);
            String name = want.toString();
            assertEquals(want, ObjectFiles.parse(name), name);
            assertTrue(name.startsWith(ObjectFiles.prefix(id)), name);
          }
        }
      }
    }
    assertTrue(ObjectFiles.parse(ObjectFiles.manifest(3, 4)).isManifest());
    assertFalse(ObjectFiles.parse(ObjectFiles.shard(3, 4, 0)).isManifest());
  }

  @Test
  void foreignNamesAreRejectedWithTheReason() {
    String[][] cases = {
      {"parityfs.label", "not <object>"},
      {"parityfs.label.tmp", "not <object>"},
      {".direct-io-probe", "not <object>"},
      {"lost+found", "not <object>"},
      {"", "not <object>"},
      {"0000000000000007.0000000000000001", "not <object>"},
      {"0000000000000007.0000000000000001.00.01", "not <object>"},
      {"0000000000000007.0000000000000001.manifest.tmp.tmp", "not <object>"},
      {"7.1.manifest", "object id '7' is not 16 hex digits"},
      {"000000000000000G.0000000000000001.00", "lowercase hex"},
      {"000000000000000A.0000000000000001.00", "lowercase hex"},
      {"0000000000000007.000000000000001.00", "version '000000000000001' is not 16"},
      {"0000000000000007.8000000000000000.00", "version is above"},
      {"0000000000000007.0000000000000001.5", "shard '5' is not 2 hex digits"},
      {"0000000000000007.0000000000000001.40", "shard 64 is not in 0..63"},
      {"0000000000000007.0000000000000001.MANIFEST", "is not 2 hex digits"},
      {"0000000000000007.0000000000000001.-1", "lowercase hex"},
      {"+000000000000007.0000000000000001.00", "lowercase hex"},
    };
    for (String[] c : cases) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ObjectFiles.parse(c[0]), c[0]);
      assertTrue(e.getMessage().contains("'" + c[0] + "' is not an object file name"),
          e.getMessage());
      assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
      assertTrue(ObjectFiles.tryParse(c[0]).isEmpty());
    }
  }

  @Test
  void callerMistakesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> ObjectFiles.manifest(1, -1));
    assertThrows(IllegalArgumentException.class, () -> ObjectFiles.shard(1, 0, 64));
    assertThrows(IllegalArgumentException.class, () -> ObjectFiles.shard(1, 0, -1));
  }

  @Test
  void aSortedListingEndsWithTheHighestVersion() {
    long id = 0xabcL;
    List<String> names = new ArrayList<>();
    long[] versions = {0, 1, 9, 10, 15, 16, 255, 256, 4096, 1L << 40};
    for (long v : versions) {
      names.add(ObjectFiles.manifest(id, v));
      names.add(ObjectFiles.shard(id, v, 0));
      names.add(ObjectFiles.shard(id, v, 11));
    }
    names.add(ObjectFiles.temp(ObjectFiles.manifest(id, (1L << 40) + 1))); // not committed
    names.add(ObjectFiles.manifest(id + 1, 1L << 50)); // another object
    names.add("parityfs.label");
    Collections.shuffle(names, new Random(1));
    Collections.sort(names);
    List<Long> listed = new ArrayList<>();
    for (String n : names) {
      ObjectFiles.tryParse(n)
          .filter(p -> p.objectId() == id && p.isManifest() && !p.temp())
          .ifPresent(p -> listed.add(p.version()));
    }
    List<Long> sorted = new ArrayList<>(listed);
    Collections.sort(sorted);
    assertEquals(sorted, listed, "lexicographic order is version order");
    assertEquals(OptionalLong.of(1L << 40), ObjectFiles.latestManifest(names, id));
    assertEquals(OptionalLong.empty(), ObjectFiles.latestManifest(names, 0xdefL));
  }
}
