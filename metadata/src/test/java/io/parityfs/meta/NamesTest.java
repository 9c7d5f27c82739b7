package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

class NamesTest {
  static final List<String> HOSTILE = List.of("a%b", "%25", "%", "x\u0001y", "\u007f", "\u0085",
      "😀emoji", "\ue000private", "\ufff0\uffff", "tab\tnew\nline", "zookeeper", "...", ". ",
      " ", "a\\b", "名前", "ü", "%F0%9F%98%80", "a:b", "*?<>|\"", "-rf");

  @Test
  void hostileNamesEncodeToValidDistinctZnodeNamesAndRoundTrip() throws Exception {
    Set<String> encoded = new HashSet<>();
    for (String n : HOSTILE) {
      Names.checkName(n, "/" + n);
      String e = Names.encode(n);
      PathUtils.validatePath("/x/" + e); // ZooKeeper accepts it
      assertFalse(e.contains("/"), e);
      assertFalse(e.equals(".") || e.equals(".."), e);
      assertEquals(n, Names.decode(e));
      assertTrue(encoded.add(e), "collision: " + e);
    }
    assertEquals("a%25b", Names.encode("a%b"));
    assertEquals("x%01", Names.encode("x\u0001"));
    assertEquals("%F0%9F%98%80", Names.encode("😀"));
    assertEquals("plain-name.txt", Names.encode("plain-name.txt"));
  }

  @Test
  void badNamesAndPathsAreRefusedWithInvalidPath() {
    for (String p : new String[] {"relative", "", "/a/./b", "/a/../b", "/..", "/a\0b",
        "/" + "x".repeat(256), "/bad\ud800surrogate", "/" + "ü".repeat(128)}) {
      NamespaceException e = assertThrows(NamespaceException.class, () -> Names.split(p), p);
      assertEquals(NamespaceStatus.INVALID_PATH, e.status(), p);
    }
    assertThrows(NamespaceException.class, () -> Names.split(null));
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 1001; i++) {
      deep.append("/d");
    }
    assertEquals(NamespaceStatus.INVALID_PATH,
        assertThrows(NamespaceException.class, () -> Names.split(deep.toString())).status());
  }

  @Test
  void pathsAreNormalised() throws Exception {
    assertEquals(List.of(), Names.split("/"));
    assertEquals(List.of("a", "b"), Names.split("//a///b/"));
    assertEquals("/a/b", Names.join(Names.split("/a//b/")));
    assertEquals(255, Names.split("/" + "x".repeat(255)).get(0).length());
  }

  @Test
  void orderIsUtf8ByteOrderAndBucketsAreStable() {
    List<String> names = new ArrayList<>(List.of("b", "a", "😀", "\uffee", "ab", "A", "é"));
    names.sort(Names.ORDER);
    assertEquals(List.of("A", "a", "ab", "b", "é", "\uffee", "😀"), names);
    assertEquals(Names.bucket("file-1", 64), Names.bucket("file-1", 64));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      String b = Names.bucket("part-" + i, 64);
      assertTrue(Integer.parseInt(b, 16) < 64);
      seen.add(b);
    }
    assertEquals(64, seen.size());
  }

  @Test
  void corruptEncodedNamesAreReported() {
    for (String bad : new String[] {"%", "%G0", "%C3", "a%2",
        "a%2fb", "%c3%bc", "x%0a", // lower-case hex: another name's znode would collide
        "a%2Fb", "%2E", "%2E%2E", "a%00b", "%41", // a slash, ".", "..", NUL, a needless escape
        "x".repeat(256)}) {
      assertEquals(NamespaceStatus.CORRUPT,
          assertThrows(NamespaceException.class, () -> Names.decode(bad)).status(), bad);
    }
  }
}
