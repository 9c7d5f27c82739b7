package io.parityfs.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Run by the build after the tests (exec-maven-plugin, phase {@code test}): fails it when a test
 * class ran zero tests — the way hadoop-common 3.4's JUnit 4 contract suites "pass" when the
 * vintage engine is missing — or, when no {@code -Dtest} filter was given, when a test class
 * has no report at all.
 *
 * <p>Arguments: the surefire reports folder and the test classes folder.
 */
public final class SurefireReportCheck {
  private static final Pattern TESTS = Pattern.compile("<testsuite [^>]*?\\btests=\"(\\d+)\"");

  private SurefireReportCheck() {}

  public static void main(String[] args) throws IOException {
    Path reports = Path.of(args[0]);
    Path classes = Path.of(args[1]);
    List<String> problems = new ArrayList<>();
    List<String> reported = new ArrayList<>();
    if (Files.isDirectory(reports)) {
      try (Stream<Path> s = Files.list(reports)) {
        for (Path r : s.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml"))
            .sorted().toList()) {
          String name = r.getFileName().toString();
          name = name.substring("TEST-".length(), name.length() - ".xml".length());
          reported.add(name);
          Matcher m = TESTS.matcher(Files.readString(r));
          if (!m.find() || Integer.parseInt(m.group(1)) == 0) {
            problems.add(name + " ran zero tests");
          }
        }
      }
    }
    String filter = System.getProperty("test");
    if ((filter == null || filter.isBlank()) && Files.isDirectory(classes)) {
      try (Stream<Path> s = Files.walk(classes)) {
        List<String> names = s.filter(p -> p.toString().endsWith(".class"))
            .map(p -> classes.relativize(p).toString().replace('/', '.')
                .replaceAll("\\.class$", ""))
            .filter(SurefireReportCheck::isTestClass).sorted().toList();
        for (String name : names) {
          if (!reported.contains(name)) {
            problems.add(name + " has no surefire report (did it run?)");
          }
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException("test classes that ran nothing:\n  "
          + String.join("\n  ", problems));
    }
    System.out.println("[report check] " + reported.size() + " test classes, each ran tests");
  }

  /** What surefire's default includes select: Test*, *Test, *Tests, *TestCase; not nested. */
  private static boolean isTestClass(String className) {
    String simple = className.substring(className.lastIndexOf('.') + 1);
    if (simple.contains("$")) {
      return false;
    }
    boolean named = simple.startsWith("Test") || simple.endsWith("Test")
        || simple.endsWith("Tests") || simple.endsWith("TestCase");
    if (!named) {
      return false;
    }
    try {
      Class<?> c = Class.forName(className, false, SurefireReportCheck.class.getClassLoader());
      return !Modifier.isAbstract(c.getModifiers()) && !c.isInterface();
    } catch (ClassNotFoundException | LinkageError e) {
      return true;
    }
  }
}
