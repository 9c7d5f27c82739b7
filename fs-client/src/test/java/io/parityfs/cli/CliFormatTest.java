package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.testing.SharedMiniCluster;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No command but {@code format} creates a namespace: a command against a chroot that holds
 * none fails, naming the ZooKeeper ensemble, the chroot and the root, and {@code format}.
 */
class CliFormatTest {
  static final String TAG = Long.toHexString(System.nanoTime());
  static CliRunner cli;
  static String zooKeeper;

  @BeforeAll
  static void setUp() {
    zooKeeper = SharedMiniCluster.get().connectString();
    cli = new CliRunner(zooKeeper);
  }

  @Test
  void aCommandAgainstAChrootWithoutANamespaceFailsAndCreatesNothing() {
    String typo = "/typo-" + TAG;
    for (List<String> command : List.of(List.of("ls", "/"), List.of("mkdir", "/a"),
        List.of("stat", "/"))) {
      List<String> args = new java.util.ArrayList<>(List.of("--chroot", typo));
      args.addAll(command);
      CliRunner.Run r = cli.fails(ExitStatus.NOT_FOUND.code(), args.toArray(String[]::new));
      String err = r.err();
      assertTrue(err.startsWith("parityfs: " + command.get(0) + ": "), err);
      assertTrue(err.contains("NOT_FOUND: no ParityFS namespace here (ZooKeeper " + zooKeeper
          + ", chroot " + typo + ", root /parityfs/ns)"), err);
      assertTrue(err.contains("`parityfs format`"), err);
      assertEquals(1, err.lines().count(), err);
    }
    // still nothing there: the failed commands did not format one
    cli.fails(ExitStatus.NOT_FOUND.code(), "--chroot", typo, "ls", "/");
  }

  @Test
  void formatCreatesTheNamespaceOnceAndCommandsWorkAfterIt() {
    String chroot = "/fresh-" + TAG;
    CliRunner.Run first = cli.ok("--chroot", chroot, "format");
    assertEquals("formatted a new namespace at /parityfs/ns (ZooKeeper " + zooKeeper
        + ", chroot " + chroot + ")", first.out().strip());
    CliRunner.Run again = cli.ok("--chroot", chroot, "format");
    assertTrue(again.out().startsWith("a namespace exists at /parityfs/ns"), again.out());
    assertTrue(again.out().strip().endsWith("left as it is"), again.out());
    JsonNode j = cli.ok("--chroot", chroot, "format", "--json").json();
    assertFalse(j.get("created").asBoolean());
    assertEquals(chroot, j.get("chroot").asText());
    assertEquals("/parityfs/ns", j.get("root").asText());

    cli.ok("--chroot", chroot, "mkdir", "/made");
    assertEquals(List.of("/made"), cli.ok("--chroot", chroot, "ls", "/").out().lines().toList());
    // the cluster's own namespace (no chroot) is another one
    assertFalse(cli.ok("ls", "/").out().lines().toList().contains("/made"));
  }
}
