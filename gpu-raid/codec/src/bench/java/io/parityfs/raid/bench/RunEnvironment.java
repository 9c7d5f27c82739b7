package io.parityfs.raid.bench;

import io.parityfs.raid.report.Machine;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Describes where a benchmark ran ({@link Machine}: the JVM, CPU, memory, load average) and the
 * Maven command line that reproduces the run.
 */
final class RunEnvironment {
  /** The JDK the {@code bench} profile uses when {@code -Dbench.java} is not given. */
  static final String DEFAULT_JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64";

  private RunEnvironment() {}

  static String jdk() {
    return Machine.jdk();
  }

  static String machine() {
    return Machine.describe();
  }

  static String loadAverage() {
    return Machine.loadAverage();
  }

  /**
   * The command that reproduces this run of {@code module}'s default benchmark (its pom's
   * {@code bench.main}) from the repository root: {@code -Dbench.java} when this JVM is not the
   * default JDK 17, {@code -Dbench.args} when arguments were given.
   */
  static String command(String module, String benchArgs) {
    StringBuilder c = new StringBuilder("mvn -q -pl ").append(module)
        .append(" -Pbench test-compile exec:exec");
    String home = System.getProperty("java.home");
    if (!canonical(home).equals(canonical(DEFAULT_JAVA_HOME))) {
      c.append(" -Dbench.java=").append(home).append("/bin/java");
    }
    if (!benchArgs.isEmpty()) {
      c.append(" -Dbench.args=\"").append(benchArgs).append('"');
    }
    return c.toString();
  }

  private static String canonical(String path) {
    try {
      return Path.of(path).toRealPath().toString();
    } catch (IOException e) {
      return path;
    }
  }
}
