package io.parityfs.raid.array.object;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive.CrashModel;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.drive.SimulatedCrash;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ManifestFormatTest;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.CodecGeometry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ManifestFileTest {
  @TempDir Path root;

  private Drive drive(String name) throws IOException {
    return FileDrive.open(Files.createDirectories(root.resolve(name)), Drive.IoMode.BUFFERED);
  }

  private static String nameOf(ObjectManifest m) {
    return ObjectFiles.manifest(m.objectId(), m.version());
  }

  @Test
  void writtenManifestsReadBack() throws IOException {
    try (Drive d = drive("d")) {
      for (ObjectManifest m : ManifestFormatTest.samples()) {
        ManifestFile.write(d, m);
        assertEquals(m, ManifestFile.read(d, m.objectId(), m.version()));
      }
      assertTrue(d.list("").stream().noneMatch(n -> n.endsWith(".tmp")), d.list("").toString());
      assertEquals(ManifestFormatTest.samples().size(), d.list("").size());
    }
  }

  @Test
  void goldenManifestIsWrittenAsTheGoldenFile() throws IOException {
    try (Drive d = drive("d")) {
      ManifestFile.write(d, ManifestFormatTest.golden());
      assertEquals(List.of("0123456789abcdef.000000000000002a.manifest"), d.list(""));
      byte[] onDisk = Files.readAllBytes(d.root().resolve(d.list("").get(0)));
      assertEquals(ByteBuffer.wrap(ManifestFormatTest.goldenBytes()), ByteBuffer.wrap(onDisk));
    }
  }

  @Test
  void readNamesTheFileInErrors() throws IOException {
    try (Drive d = drive("d")) {
      ObjectManifest m = ManifestFormatTest.golden();
      assertThrows(NoSuchFileException.class, () -> ManifestFile.read(d, m.objectId(), 1));
      ManifestFile.write(d, m);
      // A manifest under another version's name: refused, not taken for that version.
      d.rename(nameOf(m), ObjectFiles.manifest(m.objectId(), 43));
      ArrayException e =
          assertThrows(ArrayException.class, () -> ManifestFile.read(d, m.objectId(), 43));
      assertEquals(ArrayError.CORRUPT_MANIFEST, e.error());
      assertTrue(e.getMessage().contains(ObjectFiles.manifest(m.objectId(), 43)), e.getMessage());
      Path big = d.root().resolve(nameOf(m));
      Files.write(big, new byte[200]);
      e = assertThrows(ArrayException.class, () -> ManifestFile.read(d, m.objectId(), 42));
      assertEquals(ArrayError.CORRUPT_MANIFEST, e.error());
      assertTrue(e.getMessage().contains(big.toString()), e.getMessage());
    }
  }

  @Test
  void aFailedWriteLeavesNoManifestAndNoTemp() throws IOException {
    ObjectManifest m = ManifestFormatTest.golden();
    for (Op op : new Op[] {Op.WRITE, Op.SYNC}) {
      try (Drive inner = drive("fail-" + op)) {
        FaultyDrive f = new FaultyDrive(inner, 1);
        f.inject(Fault.error(op));
        IOException e = assertThrows(IOException.class, () -> ManifestFile.write(f, m));
        assertTrue(Drive.isDriveFailure(e), e.toString());
        assertEquals(List.of(), inner.list(""), "after a failed " + op);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CrashModel.class)
  void crashAtEveryStepLeavesNoManifestOrAValidOne(CrashModel model) throws IOException {
    ObjectManifest m = new ObjectManifest(9, 3, 1 << 20,
        Protection.parity(CodecGeometry.reedSolomon(10, 4)), 64 << 10,
        List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), ManifestFormatTest.CREATED);
    long steps;
    try (Drive d = drive("count-" + model)) {
      FaultyDrive f = new FaultyDrive(d, 0);
      ManifestFile.write(f, m);
      steps = f.steps();
    }
    assertEquals(5, steps, "create, write, sync, rename, sync directory");
    int whole = 0;
    for (long s = 1; s <= steps + 1; s++) {
      Path dir = Files.createDirectories(root.resolve(model + "-" + s));
      try (Drive inner = FileDrive.open(dir, Drive.IoMode.BUFFERED)) {
        FaultyDrive f = new FaultyDrive(inner, s);
        f.crashAtStep(s, model);
        try {
          ManifestFile.write(f, m);
          f.crashNow(model);
        } catch (SimulatedCrash expected) {
          assertEquals(s, f.steps());
        }
      }
      try (Drive d = FileDrive.open(dir, Drive.IoMode.BUFFERED)) {
        if (d.list("").contains(nameOf(m))) {
          assertEquals(m, ManifestFile.read(d, m.objectId(), m.version()), "crash at " + s);
          whole++;
        } else {
          assertTrue(s < steps || (s == steps && model == CrashModel.LOSE_UNSYNCED),
              "a committed manifest survives the crash (step " + s + ")");
        }
        for (String n : d.list("")) {
          assertTrue(n.equals(nameOf(m)) || n.equals(ObjectFiles.temp(nameOf(m))),
              "crash at " + s + " left " + n);
        }
      }
    }
    assertTrue(whole >= 1);
  }
}
