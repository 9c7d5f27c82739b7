package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The policy across nodes: its text, its limits, and how a layout carries and stores it. */
class AcrossTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void parsesAndPrintsEachPolicy() {
    assertEquals(Across.NONE, Across.parse("none"));
    assertEquals(Across.ec(4, 1), Across.parse("EC:4+1"));
    assertEquals(Across.mirror(3), Across.parse(" mirror:3 "));
    assertEquals("ec:10+4", Across.ec(10, 4).toString());
    assertEquals("mirror:2", Across.mirror(2).toString());
    assertEquals("none", Across.NONE.toString());
    for (String bad : new String[] {"", "ec:0+1", "ec:4+0", "ec:17+1", "ec:4+5", "mirror:1",
        "mirror:9", "raid6:4+2", "ec:4", "mirror", null}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Across.parse(bad), String.valueOf(bad));
      assertTrue(e.getMessage().contains("must be none, mirror:N"), e.getMessage());
    }
  }

  @Test
  void widthToleranceAndCost() {
    Across ec = Across.ec(4, 1);
    assertEquals(5, ec.width());
    assertEquals(1, ec.nodesTolerated());
    assertEquals(1.25, ec.mediaFactor(), 1e-9);
    assertTrue(ec.isErasureCoded());
    Across mirror = Across.mirror(3);
    assertEquals(3, mirror.width());
    assertEquals(2, mirror.nodesTolerated());
    assertEquals(3.0, mirror.mediaFactor(), 1e-9);
    assertFalse(mirror.isErasureCoded());
    assertEquals(1, Across.NONE.width());
    assertEquals(0, Across.NONE.nodesTolerated());
    assertEquals(1.0, Across.NONE.mediaFactor(), 1e-9);
    // ec:4+1 across nodes over raid6:4+2 inside: the bound of 1.9x media
    assertTrue(ec.mediaFactor() * 6 / 4 <= 1.9);
  }

  @Test
  void aLayoutsStripeCountIsAtLeastThePolicysWidth() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new Layout(1 << 20, 4, List.of(), "raid6:4+2", Across.ec(4, 1), "default"));
    assertEquals("stripe count (4) must be at least 5 for ec:4+1 across nodes (one target per"
        + " member of a chunk group)", e.getMessage());
    Layout raised = Layout.DEFAULT.withAcross(Across.ec(4, 2));
    assertEquals(6, raised.stripeCount());
    assertEquals(Across.ec(4, 2), raised.across());
    assertEquals(4, Layout.DEFAULT.withAcross(Across.mirror(2)).stripeCount(), "wide enough");
  }

  @Test
  void theInodeRecordCarriesThePolicyAndOldRecordsReadAsNone() throws Exception {
    Layout l = new Layout(1 << 20, 5, List.of(), "raid6:4+2", Across.ec(4, 1), "default");
    Inode file = Inode.newFile(9, 1, CreateOptions.file(), l, null);
    byte[] bytes = InodeCodec.encode(file);
    String text = new String(bytes, StandardCharsets.UTF_8);
    assertTrue(text.contains("\"protection\":\"raid6:4+2\",\"across\":\"ec:4+1\","), text);
    assertEquals(l, InodeCodec.decode(bytes, "/f").layout());

    // written before the policy existed: no across, and the reserved mirrorCount (never acted
    // on: the chunks are stored once), even non-zero
    ObjectNode old = (ObjectNode) JSON.readTree(bytes);
    ((ObjectNode) old.get("layout")).remove("across");
    ((ObjectNode) old.get("layout")).put("mirrorCount", 2);
    assertEquals(l.withAcross(Across.NONE),
        InodeCodec.decode(JSON.writeValueAsBytes(old), "/f").layout());

    ((ObjectNode) old.get("layout")).put("across", "ec:99+1");
    NamespaceException e = assertThrows(NamespaceException.class,
        () -> InodeCodec.decode(JSON.writeValueAsBytes(old), "/f"));
    assertEquals(NamespaceStatus.CORRUPT, e.status());
  }
}
