package io.parityfs.testkit;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.opentest4j.TestAbortedException;

/**
 * Tests that need something from the system that Maven cannot fetch (gcc, ISA-L's headers and
 * library, libfuse, faketime): they skip, with a one-line reason, where it is missing, except where
 * {@code -Dparityfs.requireSystemDeps=true} (or {@code PARITYFS_REQUIRE_SYSTEM_DEPS=true})
 * says it must be there, which {@code .ci/run} sets after installing everything: then the same
 * check fails the test. Every reason starts with {@link #MARKER}, which {@code .ci/run} also
 * looks for among the skipped tests of the surefire reports.
 *
 * <p>{@code -Dparityfs.test.pretendMissing=gcc,isal} (or {@code PARITYFS_TEST_PRETEND_MISSING};
 * a comma-separated list, {@code all} for everything) makes the named dependencies count as
 * missing, to check the skip and the CI failure on a machine that has them. Every module's tests
 * use this one class (gcc and ISA-L here, FUSE in fs-client, the faulty-drive file system and
 * faketime in integration), through gpu-raid/codec's test-jar.
 */
public final class SystemDeps {
  /** How every skip (and CI failure) for a missing system dependency begins. */
  public static final String MARKER = "missing system dependency: ";
  public static final String REQUIRE_PROPERTY = "parityfs.requireSystemDeps";
  public static final String REQUIRE_ENV = "PARITYFS_REQUIRE_SYSTEM_DEPS";
  public static final String PRETEND_PROPERTY = "parityfs.test.pretendMissing";
  public static final String PRETEND_ENV = "PARITYFS_TEST_PRETEND_MISSING";

  private SystemDeps() {}

  /**
   * Returns when {@code name} is {@code available} (and not pretended missing); otherwise skips
   * the calling test with {@code reason}, or fails it where dependencies are required. From
   * {@code @BeforeAll}, use {@link #missing} and {@link #skipIf} instead: surefire reports a
   * class skipped in {@code @BeforeAll} as zero tests and drops the reason, so skip each test.
   */
  public static void assume(String name, boolean available, String reason) {
    skipIf(missing(name, available, reason));
  }

  /**
   * Null when {@code name} is {@code available} (and not pretended missing); otherwise the
   * one-line skip reason, starting with {@link #MARKER}, or, where dependencies are required,
   * an {@link AssertionError} with it. A test class keeps it from {@code @BeforeAll} and passes
   * it to {@link #skipIf} in {@code @BeforeEach}.
   */
  public static String missing(String name, boolean available, String reason) {
    return missing(name, available, reason, required(), pretended());
  }

  /** Skips the calling test with {@code message} unless it is null. */
  public static void skipIf(String message) {
    if (message != null) {
      throw new TestAbortedException(message);
    }
  }

  /** Whether {@code name} counts as missing through the pretend switch. */
  public static boolean pretendsMissing(String name) {
    Set<String> p = pretended();
    return p.contains(name) || p.contains("all");
  }

  /** {@link #missing}, with the switches passed in (for the tests of this class). */
  static String missing(String name, boolean available, String reason, boolean required,
      Set<String> pretend) {
    boolean pretended = pretend.contains(name) || pretend.contains("all");
    if (available && !pretended) {
      return null;
    }
    String message = MARKER + name + ": " + reason
        + (pretended ? " (pretended: " + PRETEND_PROPERTY + ")" : "");
    if (required) {
      throw new AssertionError(message + "; but required here (" + REQUIRE_PROPERTY
          + "=true), so this fails instead");
    }
    return message;
  }

  static boolean required() {
    return truthy(System.getProperty(REQUIRE_PROPERTY)) || truthy(System.getenv(REQUIRE_ENV));
  }

  private static Set<String> pretended() {
    String p = System.getProperty(PRETEND_PROPERTY, "") + "," + envOrEmpty(PRETEND_ENV);
    return Arrays.stream(p.split(","))
        .map(s -> s.trim().toLowerCase(Locale.ROOT))
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toSet());
  }

  private static String envOrEmpty(String name) {
    String v = System.getenv(name);
    return v == null ? "" : v;
  }

  private static boolean truthy(String v) {
    return v != null && (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes"));
  }
}
