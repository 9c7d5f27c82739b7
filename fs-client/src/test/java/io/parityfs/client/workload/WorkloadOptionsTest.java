package io.parityfs.client.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The workloads' options: built from the defaults or from another, checked once, at build. */
class WorkloadOptionsTest {
  @Test
  void aCheckpointBuilderStartsFromTheDefaultsAndChangesOnlyWhatItIsTold() {
    CheckpointWorkload.Options o = CheckpointWorkload.Options.builder().writers(3)
        .bytesPerWriter(1 << 20).dir("/ckpt").build();
    assertEquals(new CheckpointWorkload.Options(3, 1 << 20,
        CheckpointWorkload.Options.DEFAULT.blockBytes(), "/ckpt", true, false, false, 0x5EED,
        Duration.ofSeconds(1)), o);
    CheckpointWorkload.Options restore = o.toBuilder().restoreOnly(true).build();
    assertTrue(restore.restoreOnly());
    assertEquals(o, restore.toBuilder().restoreOnly(false).build());
    assertEquals(CheckpointWorkload.Options.DEFAULT, CheckpointWorkload.Options.builder().build());
  }

  @Test
  void aCheckpointBuildNamesTheBadValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CheckpointWorkload.Options.builder().writers(0).build());
    assertTrue(e.getMessage().startsWith("writers (0)"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CheckpointWorkload.Options.builder().restoreOnly(true).build());
    assertTrue(e.getMessage().contains("restore-only needs the dir"), e.getMessage());
  }

  @Test
  void aSmallFilesBuilderSetsBothEndsOfTheSizeRangeAtOnce() {
    SmallFilesWorkload.Options o = SmallFilesWorkload.Options.builder().files(60).threads(3)
        .sizes(0, 2048).build();
    assertEquals(0, o.minBytes());
    assertEquals(2048, o.maxBytes());
    assertEquals(3, o.workers());
    assertEquals(o, o.toBuilder().build());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> o.toBuilder().sizes(100, 10).build());
    assertTrue(e.getMessage().startsWith("min-size (100) and max-size (10)"), e.getMessage());
  }
}
