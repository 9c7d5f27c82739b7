package io.parityfs.raid.codec;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing system dependency skips, with the marker, unless required; then it fails. */
class SystemDepsTest {

  @Test
  void presentPasses() {
    SystemDeps.check("gcc", true, "unused", true, Set.of());
    SystemDeps.check("gcc", true, "unused", false, Set.of("isal"));
  }

  @Test
  void missingSkipsWithTheMarker() {
    TestAbortedException e = assertThrows(TestAbortedException.class,
        () -> SystemDeps.check("isal", false, "no ISA-L here", false, Set.of()));
    assertTrue(e.getMessage().startsWith(SystemDeps.MARKER + "isal: no ISA-L here"),
        e.getMessage());
  }

  @Test
  void missingFailsWhereRequired() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SystemDeps.check("isal", false, "no ISA-L here", true, Set.of()));
    assertTrue(e.getMessage().startsWith(SystemDeps.MARKER + "isal"), e.getMessage());
    assertTrue(e.getMessage().contains(SystemDeps.REQUIRE_PROPERTY), e.getMessage());
  }

  @Test
  void pretendedMissingCountsAsMissing() {
    TestAbortedException e = assertThrows(TestAbortedException.class,
        () -> SystemDeps.check("gcc", true, "no gcc", false, Set.of("gcc")));
    assertTrue(e.getMessage().contains("pretended"), e.getMessage());
    assertThrows(AssertionError.class,
        () -> SystemDeps.check("gcc", true, "no gcc", true, Set.of("all")));
  }
}
