package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Runs {@code parityfs} in this JVM against one cluster, capturing what it prints. */
final class CliRunner {
  private final String zooKeeper;

  CliRunner(String zooKeeper) {
    this.zooKeeper = zooKeeper;
  }

  /** What one command did. */
  record Run(int rc, String out, String err, byte[] outBytes) {
    JsonNode json() {
      try {
        return Json.MAPPER.readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + out, e);
      }
    }
  }

  private byte[] stdin = new byte[0];

  /** What the next commands read as standard input. */
  CliRunner stdin(byte[] bytes) {
    stdin = bytes.clone();
    return this;
  }

  /** Runs as {@code root} (the superuser) unless the arguments give --user. */
  Run run(String... args) {
    List<String> all = new ArrayList<>(List.of("--zookeeper", zooKeeper));
    if (!List.of(args).contains("--user")) {
      all.addAll(List.of("--user", "root", "--groups", "supergroup"));
    }
    all.addAll(List.of(args));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      rc = Main.run(all.toArray(String[]::new), new ByteArrayInputStream(stdin), o, e, false);
    }
    return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
        out.toByteArray());
  }

  /** Runs and expects exit code 0. */
  Run ok(String... args) {
    Run r = run(args);
    assertEquals(0, r.rc(), () -> String.join(" ", args) + " failed: " + r.err());
    return r;
  }

  /** Runs and expects {@code code}; the error is one line naming the command. */
  Run fails(int code, String... args) {
    Run r = run(args);
    assertEquals(code, r.rc(), () -> String.join(" ", args) + ": out " + r.out() + " err "
        + r.err());
    return r;
  }
}
