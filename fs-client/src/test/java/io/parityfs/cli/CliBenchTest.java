package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parityfs.client.workload.BenchException;
import io.parityfs.client.workload.BenchResult;
import io.parityfs.client.workload.CheckpointWorkload;
import io.parityfs.client.workload.Progress;
import io.parityfs.client.workload.SmallFilesWorkload;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.testing.SharedMiniCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code bench checkpoint} and {@code bench smallfiles} against the shared cluster, at small
 * sizes (3 writers x 3 MiB over 256 KiB chunks, 200 files): the figures printed, the {@code
 * --json} document, the directory removed or kept, verification catching a shard or a file
 * rewritten with other bytes (the workloads' verify seams, and {@code --restore-only} end to
 * end), a failure mid-phase, and the usage errors.
 */
class CliBenchTest {
  static final String BASE = "/bench-test-" + Long.toHexString(System.nanoTime());
  static final long MIB = 1 << 20;
  static CliRunner cli;
  static ParityClient client;

  @BeforeAll
  static void setUp() throws IOException {
    cli = new CliRunner(SharedMiniCluster.get().connectString());
    client = SharedMiniCluster.get().client(Caller.of("root"));
  }

  @AfterAll
  static void tearDown() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void checkpointPrintsFiguresAndRemovesItsDirectory() {
    String dir = BASE + "/ck-text";
    CliRunner.Run r = cli.ok("bench", "checkpoint", "--writers", "3", "--size", "3M",
        "--block", "1M", "--dir", dir);
    String out = r.out();
    assertTrue(out.startsWith("checkpoint: 3 writers x 3.0 MiB = 9.0 MiB, block 1.0 MiB,"
        + " verify on, dir " + dir), out);
    // the last progress line of each phase (not a terminal: plain lines)
    assertTrue(out.contains("write: 100.0%  9.0 MiB / 9.0 MiB"), out);
    assertTrue(out.contains("read: 100.0%  9.0 MiB / 9.0 MiB"), out);
    assertTrue(out.lines().anyMatch(l -> l.matches("PHASE\\s+FILES\\s+BYTES\\s+SECONDS\\s+MB/S"
        + "\\s+FILES/S")), out);
    assertTrue(out.lines().anyMatch(l -> l.matches("write\\s+3\\s+9437184\\s+\\d+\\.\\d{3}"
        + "\\s+\\d+\\.\\d\\s+\\d+\\.\\d")), out);
    assertTrue(out.lines().anyMatch(l -> l.matches("read\\s+3\\s+9437184\\s.*")), out);
    for (String op : List.of("write\\s+create\\s+3", "write\\s+write\\s+9",
        "write\\s+close\\s+3", "read\\s+open\\s+3", "read\\s+read\\s+9")) {
      assertTrue(out.lines().anyMatch(l -> l.matches(op + "(\\s+\\d+\\.\\d{3}){5}")), op + "\n"
          + out);
    }
    assertTrue(out.lines().anyMatch(l -> l.matches("PHASE\\s+OP\\s+COUNT\\s+P50 MS\\s+P90 MS"
        + "\\s+P99 MS\\s+MAX MS\\s+MEAN MS")), out);
    assertTrue(out.endsWith("removed " + dir + "\n"), out);
    cli.fails(3, "stat", dir);
  }

  @Test
  void checkpointJsonKeepThenCorruptionIsCaught() throws IOException {
    String dir = BASE + "/ck-json";
    JsonNode doc = cli.ok("bench", "checkpoint", "--json", "--keep", "--writers", "3",
        "--size", "3M", "--block", "512K", "--dir", dir).json();
    assertEquals("checkpoint", doc.get("benchmark").asText());
    assertEquals(dir, doc.get("dir").asText());
    JsonNode p = doc.get("parameters");
    assertEquals(3, p.get("writers").asInt());
    assertEquals(3 * MIB, p.get("bytesPerWriter").asLong());
    assertEquals(512 << 10, p.get("blockBytes").asInt());
    assertTrue(p.get("verify").asBoolean());
    assertTrue(p.get("keep").asBoolean());
    assertEquals(2, doc.get("phases").size());
    JsonNode write = doc.get("phases").get(0);
    assertEquals("write", write.get("phase").asText());
    assertEquals(3, write.get("files").asInt());
    assertEquals(9 * MIB, write.get("bytes").asLong());
    assertTrue(write.get("seconds").asDouble() > 0);
    assertTrue(write.get("megabytesPerSecond").asDouble() > 0);
    assertEquals(18, write.get("latencyMs").get("write").get("count").asInt());
    JsonNode close = write.get("latencyMs").get("close");
    assertEquals(3, close.get("count").asInt());
    for (String f : List.of("p50", "p90", "p99", "max", "mean")) {
      assertTrue(close.get(f).asDouble() > 0, f + " " + close);
    }
    assertTrue(close.get("p50").asDouble() <= close.get("p99").asDouble());
    assertTrue(close.get("p99").asDouble() <= close.get("max").asDouble());
    JsonNode read = doc.get("phases").get(1);
    assertEquals("read", read.get("phase").asText());
    assertEquals(9 * MIB, read.get("bytes").asLong());
    assertEquals(18, read.get("latencyMs").get("read").get("count").asInt());
    assertFalse(doc.get("removed").asBoolean());
    // kept: three shards of 3 MiB
    JsonNode ls = cli.ok("ls", "--json", dir).json();
    assertEquals(3, ls.size());
    assertEquals(dir + "/rank-0000", ls.get(0).get("path").asText());
    ls.forEach(f -> assertEquals(3 * MIB, f.get("length").asLong()));

    // the verify seam: exact shards pass; a shard rewritten with one byte changed fails there
    CheckpointWorkload.Options o = CheckpointWorkload.Options.builder().writers(3)
        .bytesPerWriter(3 * MIB).dir(dir).build();
    String shard = CheckpointWorkload.shardPath(dir, 1);
    CheckpointWorkload.verifyShard(client, o, shard, 1);
    assertThrows(BenchException.class, // another rank's content
        () -> CheckpointWorkload.verifyShard(client, o, shard, 2));
    long at = 1_234_567;
    rewriteWithFlippedByte(shard, at);
    BenchException e = assertThrows(BenchException.class,
        () -> CheckpointWorkload.verifyShard(client, o, shard, 1));
    assertTrue(e.corrupt());
    assertEquals(1, e.file());
    assertEquals(at, e.offset());
    assertEquals(shard, e.path());

    // end to end: the restore-only run reports rank, file and offset, exits 1, deletes nothing
    CliRunner.Run bad = cli.fails(1, "bench", "checkpoint", "--restore-only", "--writers", "3",
        "--size", "3M", "--dir", dir);
    assertTrue(bad.err().startsWith("parityfs: bench checkpoint: " + shard
        + ": CORRUPT: rank 1, offset 1234567: read 0x"), bad.err());
    assertEquals(1, bad.err().lines().count(), bad.err());
    assertEquals(3, cli.ok("ls", "--json", dir).json().size());
    // --no-verify reads it all the same
    CliRunner.Run unverified = cli.ok("bench", "checkpoint", "--restore-only", "--no-verify",
        "--writers", "3", "--size", "3M", "--dir", dir);
    assertTrue(unverified.out().endsWith("kept " + dir + "\n"), unverified.out());

    // a failure mid-phase (rank 2's shard gone): its code and phase, the run stopped
    cli.ok("rm", dir + "/rank-0002");
    CliRunner.Run missing = cli.fails(3, "bench", "checkpoint", "--restore-only", "--writers",
        "3", "--size", "3M", "--dir", dir);
    assertTrue(missing.err().startsWith("parityfs: bench checkpoint: " + dir + "/rank-0002:"
        + " NOT_FOUND: "), missing.err());
    assertTrue(missing.err().trim().endsWith("(read phase)"), missing.err());
    cli.ok("rm", "-r", dir);
  }

  @Test
  void aFailedPhaseStopsTheRunAndRemovesItsDirectoryUnlessKept() throws IOException {
    // between the phases (the write phase's last progress report, on this thread) rank 1's
    // shard is rewritten with one byte changed: the read phase fails, the directory goes
    for (boolean keep : new boolean[] {false, true}) {
      String dir = BASE + "/ck-fail-" + keep;
      CheckpointWorkload.Options o = CheckpointWorkload.Options.builder().writers(3)
          .bytesPerWriter(MIB).blockBytes(100_000).dir(dir).keep(keep).build();
      BenchException e = assertThrows(BenchException.class, () -> CheckpointWorkload.run(client,
          o, s -> {
            if (s.finished() && s.phase().equals("write")) {
              try {
                rewriteWithFlippedByte(CheckpointWorkload.shardPath(dir, 1), 777_777);
              } catch (IOException x) {
                throw new java.io.UncheckedIOException(x);
              }
            }
          }));
      assertTrue(e.corrupt());
      assertEquals("read", e.phase());
      assertEquals(777_777, e.offset());
      assertEquals(CheckpointWorkload.shardPath(dir, 1), e.path());
      if (keep) {
        assertEquals(3, cli.ok("ls", "--json", dir).json().size());
        cli.ok("rm", "-r", dir);
      } else {
        cli.fails(3, "stat", dir);
      }
    }
    // the same for small files: one deleted after the create phase fails the read phase
    String dir = BASE + "/sf-fail";
    SmallFilesWorkload.Options o = SmallFilesWorkload.Options.builder().files(50)
        .threads(5).dir(dir).build();
    BenchException e = assertThrows(BenchException.class, () -> SmallFilesWorkload.run(client,
        o, s -> {
          if (s.finished() && s.phase().equals("create")) {
            try {
              client.namespace().delete(SmallFilesWorkload.filePath(o, dir, 33), false);
            } catch (IOException x) {
              throw new java.io.UncheckedIOException(x);
            }
          }
        }));
    assertFalse(e.corrupt());
    assertEquals(33, e.file());
    assertEquals("read", e.phase());
    cli.fails(3, "stat", dir);
  }

  @Test
  void refusedDirectories() {
    // alice may not write where root made the test's directories: exit 5, nothing left
    String dir = BASE + "/ck-perm";
    CliRunner.Run denied = cli.fails(5, "--user", "alice", "--groups", "staff", "bench",
        "checkpoint", "--writers", "2", "--size", "1M", "--dir", dir);
    assertTrue(denied.err().startsWith("parityfs: bench checkpoint: "), denied.err());
    cli.fails(3, "stat", dir);
    // an existing directory is refused (exit 4): a run removes only what it made
    cli.ok("mkdir", "-p", dir);
    CliRunner.Run exists = cli.fails(4, "bench", "checkpoint", "--writers", "1", "--size",
        "1K", "--dir", dir);
    assertTrue(exists.err().startsWith("parityfs: bench checkpoint: " + dir
        + ": ALREADY_EXISTS"), exists.err());
    cli.ok("stat", dir);
    cli.ok("rm", "-r", dir);
  }

  @Test
  void smallFilesTextJsonKeepAndVerify() throws IOException {
    String dir = BASE + "/sf-text";
    String out = cli.ok("bench", "smallfiles", "--files", "200", "--threads", "4", "--dir",
        dir).out();
    assertTrue(out.startsWith("smallfiles: 200 files of 1.0 KiB..8.0 KiB, 4 threads, verify on,"
        + " dir " + dir), out);
    for (String phase : List.of("create", "read", "delete")) {
      assertTrue(out.lines().anyMatch(l -> l.matches(phase + "\\s+200\\s+\\d+\\s+\\d+\\.\\d{3}"
          + "\\s+\\d+\\.\\d\\s+\\d+\\.\\d")), phase + "\n" + out);
      assertTrue(out.lines().anyMatch(l -> l.matches(phase + "\\s+" + phase + "\\s+200"
          + "(\\s+\\d+\\.\\d{3}){5}")), phase + "\n" + out);
      assertTrue(out.contains(phase + ": 100.0%"), out);
    }
    assertTrue(out.contains("200/200 files"), out);
    assertTrue(out.endsWith("removed " + dir + "\n"), out);
    cli.fails(3, "stat", dir);

    String kept = BASE + "/sf-json";
    JsonNode doc = cli.ok("bench", "smallfiles", "--json", "--keep", "--files", "60",
        "--threads", "3", "--min-size", "0", "--max-size", "2K", "--dir", kept).json();
    assertEquals("smallfiles", doc.get("benchmark").asText());
    assertEquals(60, doc.get("parameters").get("files").asInt());
    assertEquals(3, doc.get("parameters").get("threads").asInt());
    assertEquals(2048, doc.get("parameters").get("maxBytes").asInt());
    assertEquals(2, doc.get("phases").size()); // no delete phase with --keep
    long bytes = 0;
    SmallFilesWorkload.Options o = SmallFilesWorkload.Options.builder().files(60)
        .threads(3).sizes(0, 2048).build();
    for (int i = 0; i < 60; i++) {
      bytes += SmallFilesWorkload.fileLength(o, i);
    }
    for (JsonNode ph : doc.get("phases")) {
      assertEquals(60, ph.get("files").asInt());
      assertEquals(bytes, ph.get("bytes").asLong());
      assertTrue(ph.get("filesPerSecond").asDouble() > 0);
      assertEquals(60, ph.get("latencyMs").get(ph.get("phase").asText()).get("count").asInt());
    }
    assertFalse(doc.get("removed").asBoolean());
    long files = cli.ok("ls", "-R", kept).out().lines().filter(l -> l.contains("/f")).count();
    assertEquals(60, files);

    String f = SmallFilesWorkload.filePath(o, kept, 17);
    SmallFilesWorkload.verifyFile(client, o, f, 17);
    int length = SmallFilesWorkload.fileLength(o, 17);
    if (length > 0) {
      rewriteWithFlippedByte(f, length / 2);
      BenchException e = assertThrows(BenchException.class,
          () -> SmallFilesWorkload.verifyFile(client, o, f, 17));
      assertEquals(length / 2, e.offset());
      assertTrue(e.getMessage().startsWith("CORRUPT: file 17, offset " + length / 2), e
          .getMessage());
    }
    cli.ok("rm", "-r", kept);
  }

  @Test
  void workloadsReportProgressOnTheCallersThread() throws IOException {
    List<Progress.Snapshot> seen = new ArrayList<>();
    Thread caller = Thread.currentThread();
    BenchResult r = CheckpointWorkload.run(client, CheckpointWorkload.Options.builder()
        .writers(2).bytesPerWriter(MIB).blockBytes(64 << 10)
        .progressInterval(Duration.ofMillis(1)).build(), s -> {
          assertEquals(caller, Thread.currentThread());
          seen.add(s);
        });
    assertTrue(r.dir().startsWith("/bench/checkpoint-"), r.dir());
    assertTrue(r.removed());
    assertEquals(2 * MIB, r.phase("write").bytes());
    assertEquals(32, r.phase("read").latencies().get("read").count());
    List<Progress.Snapshot> ends = seen.stream().filter(Progress.Snapshot::finished).toList();
    assertEquals(List.of("write", "read"), ends.stream().map(Progress.Snapshot::phase).toList());
    ends.forEach(s -> assertEquals(2 * MIB, s.bytesDone()));
    ends.forEach(s -> assertEquals(2, s.filesDone()));
  }

  @Test
  void badArgumentsAreUsageErrors() {
    cli.fails(2, "bench");
    cli.fails(2, "bench", "nosuch");
    cli.fails(2, "bench", "checkpoint", "--bogus");
    cli.fails(2, "bench", "checkpoint", "--writers", "many");
    CliRunner.Run zero = cli.fails(2, "bench", "checkpoint", "--writers", "0");
    assertEquals("parityfs: bench checkpoint: INVALID_ARGUMENT: writers (0) must be in"
        + " 1..10000\n", zero.err());
    CliRunner.Run size = cli.fails(2, "bench", "checkpoint", "--size", "12X");
    assertTrue(size.err().contains("INVALID_ARGUMENT: size (12X)"), size.err());
    cli.fails(2, "bench", "checkpoint", "--block", "0");
    cli.fails(2, "bench", "checkpoint", "--restore-only");
    cli.fails(2, "bench", "checkpoint", "--dir", "relative/path");
    cli.fails(2, "bench", "smallfiles", "--min-size", "8K", "--max-size", "1K");
    cli.fails(2, "bench", "smallfiles", "--threads", "0");
    assertTrue(cli.ok("bench", "checkpoint", "--help").out().contains("--restore-only"));
    assertTrue(cli.ok("--help").out().contains("bench"));
  }

  /** Rewrites {@code path} through the client with the byte at {@code at} changed. */
  private static void rewriteWithFlippedByte(String path, long at) throws IOException {
    byte[] data;
    try (PfsInputStream in = client.open(path)) {
      data = in.readAllBytes();
    }
    data[(int) at] ^= 0x5a;
    try (PfsOutputStream out = client.create(path, CreateOptions.file().withOverwrite(true))) {
      out.write(data);
    }
  }
}
