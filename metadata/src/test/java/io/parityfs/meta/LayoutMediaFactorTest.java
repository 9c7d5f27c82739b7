package io.parityfs.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Bytes on the drives per byte stored, for each node-level scheme. */
class LayoutMediaFactorTest {
  @Test
  void eachSchemeItsFactor() {
    assertEquals(1.5, Layout.insideMediaFactor("raid6:4+2"));
    assertEquals(1.25, Layout.insideMediaFactor("raid5:4+1"));
    assertEquals(1.4, Layout.insideMediaFactor("rs:10+4"), 1e-9);
    assertEquals(3, Layout.insideMediaFactor("mirror:3"));
    assertEquals(1, Layout.insideMediaFactor("none"));
    // with the factor across nodes: ec:4+1 over raid6:4+2 is 1.875 on media
    assertEquals(1.875, Layout.insideMediaFactor("raid6:4+2") * Across.ec(4, 1).mediaFactor());
  }

  @Test
  void anUnknownSchemeIsRefusedNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Layout.insideMediaFactor("raid7:4+3"));
    assertEquals("protection (raid7:4+3) must be none, raid5:K+1, raid6:K+2, rs:K+M or mirror:N",
        e.getMessage());
  }
}
