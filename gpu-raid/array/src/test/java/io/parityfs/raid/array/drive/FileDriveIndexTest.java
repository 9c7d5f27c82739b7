package io.parityfs.raid.array.drive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileDrive}'s name index (its class comment, "Listing"): a prefix listing answers from
 * the index kept by the drive's own creates, renames and deletes; a full listing reads the
 * directory and rebuilds it; a failed mutation drops it; and under concurrent mutations and full
 * listings the index ends equal to the directory.
 */
class FileDriveIndexTest {
  @TempDir Path dir;
  FileDrive drive;

  @BeforeEach
  void open() throws IOException {
    drive = FileDrive.open(dir, Drive.IoMode.BUFFERED);
  }

  @AfterEach
  void close() {
    drive.close();
  }

  /** The regular files in the directory, read from it (not through the drive). */
  private List<String> onDisk(String prefix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(prefix)).sorted().toList();
    }
  }

  @Test
  void theDrivesOwnMutationsKeepThePrefixListingExact() throws IOException {
    Files.writeString(dir.resolve("a.1"), "there before the open");
    assertEquals(List.of("a.1"), drive.list("a."), "the first listing scans the directory");
    drive.create("a.2.tmp").close();
    drive.rename("a.2.tmp", "a.2");
    drive.create("b.1").close();
    assertEquals(List.of("a.1", "a.2"), drive.list("a."));
    assertTrue(drive.delete("a.1"));
    assertEquals(List.of("a.2"), drive.list("a."));
    drive.rename("a.2", "b.1"); // replaces b.1
    assertEquals(List.of(), drive.list("a."));
    assertEquals(List.of("b.1"), drive.list("b"));
    assertEquals(onDisk(""), drive.list(""));
  }

  @Test
  void filesOfAnotherProcessAreSeenFromTheNextFullListing() throws IOException {
    drive.create("x.1").close();
    assertEquals(List.of("x.1"), drive.list("x."));
    Files.writeString(dir.resolve("x.2"), "put in behind the drive");
    Files.delete(dir.resolve("x.1"));
    assertEquals(List.of("x.1"), drive.list("x."), "the index answers prefix listings");
    assertEquals(List.of("x.2"), drive.list(""), "a full listing reads the directory");
    assertEquals(List.of("x.2"), drive.list("x."), "and the index follows it");
  }

  @Test
  void aFailedMutationDropsTheIndex() throws IOException {
    drive.create("y.1").close();
    assertEquals(List.of("y.1"), drive.list("y."));
    Files.writeString(dir.resolve("y.2"), "put in behind the drive");
    // renaming a file that is not there fails, and the next prefix listing scans again
    assertThrows(NoSuchFileException.class, () -> drive.rename("y.missing", "y.3"));
    assertEquals(List.of("y.1", "y.2"), drive.list("y."));
  }

  @Test
  void concurrentMutationsAndFullListingsLeaveTheIndexEqualToTheDirectory() throws Exception {
    int writers = 4;
    int perWriter = 300;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    AtomicBoolean done = new AtomicBoolean();
    try {
      Future<Integer> lister = pool.submit(() -> {
        int scans = 0;
        while (!done.get()) {
          drive.list(""); // rebuilds the index while the writers mutate
          scans++;
        }
        return scans;
      });
      List<Future<?>> all = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        all.add(pool.submit(() -> {
          for (int i = 0; i < perWriter; i++) {
            String name = "w" + writer + "." + i;
            drive.create(name + ".tmp").close();
            drive.rename(name + ".tmp", name);
            if (i % 3 == 0) {
              drive.delete(name);
            }
            // a writer always sees its own files in a prefix listing
            List<String> mine = drive.list("w" + writer + ".");
            if (i % 3 != 0 && !mine.contains(name)) {
              throw new AssertionError(name + " missing from " + mine);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        f.get(60, TimeUnit.SECONDS);
      }
      done.set(true);
      assertTrue(lister.get(60, TimeUnit.SECONDS) > 0);
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
    TreeSet<String> expected = new TreeSet<>();
    for (int w = 0; w < writers; w++) {
      for (int i = 0; i < perWriter; i++) {
        if (i % 3 != 0) {
          expected.add("w" + w + "." + i);
        }
      }
    }
    assertEquals(new ArrayList<>(expected), onDisk("w"));
    for (int w = 0; w < writers; w++) {
      assertEquals(onDisk("w" + w + "."), drive.list("w" + w + "."), "writer " + w);
    }
  }
}
