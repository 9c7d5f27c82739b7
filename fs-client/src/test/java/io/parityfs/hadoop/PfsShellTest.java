package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.testing.SharedMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hadoop fs} (FsShell through ToolRunner) against pfs://mini/, exit codes and output. */
class PfsShellTest {
  static final String ROOT = "pfs://mini/shell";

  @TempDir
  static Path local;
  static Configuration conf;

  /** What one shell command did. */
  record Run(int rc, String out, String err) {}

  @BeforeAll
  static void setUp() {
    conf = SharedMiniCluster.configuration();
  }

  static synchronized Run shell(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    int rc;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      System.setOut(o);
      System.setErr(e);
      rc = ToolRunner.run(new Configuration(conf), new FsShell(), args);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Run ok(String... args) throws Exception {
    Run r = shell(args);
    assertEquals(0, r.rc(), () -> String.join(" ", args) + " failed: " + r.err());
    return r;
  }

  @Test
  void putListCatGetMoveDuDfChecksumRemove() throws Exception {
    byte[] data = new byte[700_000]; // spans three 256 KiB chunks on two targets
    new Random(7).nextBytes(data);
    Path big = local.resolve("big.bin");
    Files.write(big, data);
    Path small = local.resolve("hello.txt");
    Files.writeString(small, "hello pfs\n");

    ok("-mkdir", "-p", ROOT + "/in");
    ok("-put", big.toString(), ROOT + "/in/big.bin");
    ok("-put", small.toString(), ROOT + "/in/hello.txt");

    Run ls = ok("-ls", "-R", ROOT);
    assertTrue(ls.out().contains(ROOT + "/in/big.bin"), ls.out());
    assertTrue(ls.out().contains("700000"), ls.out());
    assertTrue(ls.out().lines().anyMatch(l -> l.startsWith("d") && l.endsWith(ROOT + "/in")),
        ls.out());

    assertEquals("hello pfs\n", ok("-cat", ROOT + "/in/hello.txt").out());

    Path back = local.resolve("back.bin");
    ok("-get", ROOT + "/in/big.bin", back.toString());
    assertArrayEquals(data, Files.readAllBytes(back));

    ok("-mv", ROOT + "/in/big.bin", ROOT + "/moved.bin");
    Run after = ok("-ls", "-R", ROOT);
    assertTrue(after.out().contains(ROOT + "/moved.bin"), after.out());
    assertFalse(after.out().contains(ROOT + "/in/big.bin"), after.out());

    Run du = ok("-du", "-s", ROOT);
    assertTrue(du.out().startsWith("700010"), du.out()); // 700,000 + 10 bytes

    Run df = ok("-df", "pfs://mini/");
    assertTrue(df.out().contains("pfs://mini"), df.out());

    CRC32C crc = new CRC32C();
    crc.update(data);
    Run sum = ok("-checksum", ROOT + "/moved.bin");
    assertTrue(sum.out().contains("COMPOSITE-CRC32C"), sum.out());
    assertTrue(sum.out().contains(String.format("%08x", crc.getValue())), sum.out());

    ok("-rm", "-r", ROOT);
    assertEquals(1, shell("-test", "-e", ROOT).rc());
  }

  @Test
  void errorsAreReportedWithExitCodeOne() throws Exception {
    Run missing = shell("-cat", "pfs://mini/no/such/file");
    assertEquals(1, missing.rc());
    assertTrue(missing.err().contains("No such file or directory"), missing.err());

    ok("-mkdir", "-p", "pfs://mini/shell-err/d");
    ok("-touchz", "pfs://mini/shell-err/d/f");
    Run rmDir = shell("-rm", "pfs://mini/shell-err/d");
    assertEquals(1, rmDir.rc());
    assertTrue(rmDir.err().contains("Is a directory"), rmDir.err());
    ok("-rm", "-r", "pfs://mini/shell-err");
  }
}
