package io.parityfs.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing system dependency skips, with the marker, unless required; then it fails. */
class SystemDepsTest {

  @Test
  void presentPasses() {
    assertNull(SystemDeps.missing("gcc", true, "unused", true, Set.of()));
    assertNull(SystemDeps.missing("gcc", true, "unused", false, Set.of("isal")));
    SystemDeps.skipIf(null);
  }

  @Test
  void missingSkipsWithTheMarker() {
    String why = SystemDeps.missing("isal", false, "not here", false, Set.of());
    assertEquals(SystemDeps.MARKER + "isal: not here", why);
    TestAbortedException e = assertThrows(TestAbortedException.class, () -> SystemDeps.skipIf(why));
    assertEquals(why, e.getMessage());
  }

  @Test
  void missingFailsWhereRequired() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> SystemDeps.missing("isal", false, "not here", true, Set.of()));
    assertTrue(e.getMessage().startsWith(SystemDeps.MARKER + "isal: not here"), e.getMessage());
    assertTrue(e.getMessage().contains(SystemDeps.REQUIRE_PROPERTY), e.getMessage());
  }

  @Test
  void pretendedMissingCountsAsMissing() {
    String why = SystemDeps.missing("gcc", true, "not here", false, Set.of("gcc"));
    assertTrue(why.startsWith(SystemDeps.MARKER + "gcc") && why.contains("pretended"), why);
    assertThrows(AssertionError.class,
        () -> SystemDeps.missing("gcc", true, "not here", true, Set.of("all")));
  }
}
