package io.parityfs.node.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.parityfs.node.protocol.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fence records on the drives: copies, a lost or corrupt copy, too few drives. */
class FenceTableTest {
  @TempDir Path dir;

  private List<Path> drives(int n) throws Exception {
    List<Path> d = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      d.add(Files.createDirectories(dir.resolve("d" + i)));
    }
    return d;
  }

  @Test
  void theHighestReadableCopyWinsAfterARestart() throws Exception {
    List<Path> d = drives(3);
    FenceTable t = new FenceTable(d, 2);
    assertEquals(0, t.generation(9));
    t.admit(9, 4);
    t.admit(9, 4);
    assertEquals(Status.STALE_GENERATION,
        assertThrows(ChunkStoreException.class, () -> t.admit(9, 3)).status());
    // one copy lost, one corrupt: the third still fences after a restart
    Files.delete(d.get(0).resolve(FenceTable.DIRECTORY).resolve("0000000009"));
    Files.write(d.get(1).resolve(FenceTable.DIRECTORY).resolve("0000000009"), new byte[16]);
    FenceTable again = new FenceTable(d, 2);
    assertEquals(4, again.generation(9));
    assertEquals(Status.STALE_GENERATION,
        assertThrows(ChunkStoreException.class, () -> again.underFence(9, 3, () -> 1)).status());
    assertEquals(1, again.underFence(9, 4, () -> 1));
  }

  @Test
  void aRaiseThatReachesTooFewDrivesFails() throws Exception {
    List<Path> d = drives(3);
    // two drives cannot take the record (a file where the directory should be)
    Files.writeString(d.get(0).resolve(FenceTable.DIRECTORY), "x");
    Files.writeString(d.get(1).resolve(FenceTable.DIRECTORY), "x");
    FenceTable t = new FenceTable(d, 2);
    assertEquals(Status.DRIVE_IO,
        assertThrows(ChunkStoreException.class, () -> t.admit(5, 1)).status());
    assertEquals(0, t.generation(5), "a failed raise does not fence in memory either");
  }
}
