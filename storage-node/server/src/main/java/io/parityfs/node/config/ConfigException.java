package io.parityfs.node.config;

import java.util.List;

/**
 * A node configuration that cannot be used: the message names the file and, for each problem,
 * the key and the value, one problem per line.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  ConfigException(String source, List<String> problems) {
    super(source + ": " + problems.size() + " problem" + (problems.size() == 1 ? "" : "s")
        + ":\n  " + String.join("\n  ", problems));
    this.problems = List.copyOf(problems);
  }

  /** Each problem, starting with the key it is about ("target.a.cellSize: ..."). */
  public List<String> problems() {
    return problems;
  }
}
