package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The layout's pool: its default, its checks, and its JSON in the inode record. */
class LayoutPoolTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A directory's record (its default layout), made as mkdirs makes it. */
  private static Inode directory(Layout layout) {
    return Inode.newDirectory(4097, 1, CreateOptions.directory(), layout, 64);
  }

  @Test
  void theOldConstructorAndTheDefaultAreInTheDefaultPool() {
    Layout l = new Layout(8 << 20, 4, List.of(), "raid6:4+2");
    assertEquals("default", l.pool());
    assertEquals(Layout.DEFAULT_POOL, Layout.DEFAULT.pool());
    Layout ssd = l.withPool("ssd");
    assertEquals("ssd", ssd.pool());
    assertEquals("ssd", ssd.withTargets(List.of("a", "b")).pool(), "kept by withTargets");
  }

  @Test
  void poolNamesAreChecked() {
    for (String bad : new String[] {"", "a b", "a/b", "x".repeat(65), "é"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Layout.DEFAULT.withPool(bad));
      assertTrue(e.getMessage().contains("pool (" + bad + ")"), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> Layout.DEFAULT.withPool(null));
    assertEquals("nvme-fast_1.a", Layout.DEFAULT.withPool("nvme-fast_1.a").pool());
  }

  @Test
  void thePoolIsInTheInodeRecordAndAbsentMeansDefault() throws Exception {
    Layout l = new Layout(1 << 20, 2, List.of("t1", "t2"), "rs:8+3", Across.mirror(2), "archive");
    byte[] bytes = InodeCodec.encode(directory(l));
    assertTrue(new String(bytes, StandardCharsets.UTF_8).contains(
        "\"protection\":\"rs:8+3\",\"across\":\"mirror:2\",\"pool\":\"archive\"}"));
    assertEquals(l, InodeCodec.decode(bytes, "/f").layout());

    // a record written before pools existed
    ObjectNode old = (ObjectNode) JSON.readTree(bytes);
    ((ObjectNode) old.get("layout")).remove("pool");
    Layout read = InodeCodec.decode(JSON.writeValueAsBytes(old), "/f").layout();
    assertEquals(l.withPool("default"), read);

    ((ObjectNode) old.get("layout")).put("pool", "no spaces allowed");
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> InodeCodec.decode(JSON.writeValueAsBytes(old), "/f"));
    assertEquals(NamespaceStatus.CORRUPT, e.status());
  }
}
