package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed kernel binary (src/main/resources/.../parity_kernels.fatbin) is the one built
 * from the committed source (src/main/cuda/parity_kernels.cu): builds without nvcc ship that
 * file, so a kernel change that is not rebuilt would silently run the old kernels on GPUs.
 * Where nvcc is on the PATH, the source is also recompiled with the recorded flags.
 */
class KernelArtifactTest {
  private static final String RESOURCE_DIR = "io/parityfs/raid/codec/gpu/";
  private static final String FATBIN = RESOURCE_DIR + "parity_kernels.fatbin";
  private static final String PROPERTIES = RESOURCE_DIR + "parity_kernels.properties";
  private static final Path SOURCE = Path.of("src", "main", "cuda", "parity_kernels.cu");
  private static final String REBUILD =
      "run gpu-raid/scripts/build-kernels.sh (needs nvcc) and commit the regenerated "
          + "parity_kernels.fatbin and parity_kernels.properties";
  /** fatBinaryHeader.magic, little-endian, at the start of every fatbin. */
  private static final int FATBIN_MAGIC = 0xBA55ED50;

  @Test
  void committedFatbinWasBuiltFromTheCurrentSource() throws IOException {
    assertTrue(Files.isRegularFile(SOURCE),
        "kernel source " + SOURCE.toAbsolutePath()
            + " is missing (tests must run in gpu-raid/codec/)");
    String actual = sha256(Files.readAllBytes(SOURCE));
    String recorded = properties().getProperty("source.sha256");
    assertEquals(recorded, actual,
        "gpu-raid/codec/src/main/cuda/parity_kernels.cu (sha256 " + actual + ") is not the source "
            + "the committed fatbin was built from (source.sha256 " + recorded + "): " + REBUILD);
  }

  @Test
  void committedFatbinHoldsEveryKernel() throws IOException {
    Properties props = properties();
    for (String key : List.of("source.sha256", "nvcc.version", "nvcc.flags", "kernels",
        "fatbin.sha256")) {
      assertNotNull(props.getProperty(key), PROPERTIES + " lacks " + key + ": " + REBUILD);
    }
    byte[] fatbin = resource(FATBIN);
    assertTrue(fatbin.length > 16, FATBIN + " is empty: " + REBUILD);
    assertEquals(FATBIN_MAGIC, ByteBuffer.wrap(fatbin).order(ByteOrder.LITTLE_ENDIAN).getInt(0),
        FATBIN + " is not a fatbin (no 0xBA55ED50 magic): " + REBUILD);
    assertEquals(props.getProperty("fatbin.sha256"), sha256(fatbin),
        FATBIN + " is not the file recorded in " + PROPERTIES + " (fatbin.sha256): " + REBUILD);
    // The cubins are stored uncompressed, so each kernel's name is in the bytes.
    String text = new String(fatbin, StandardCharsets.ISO_8859_1);
    for (String kernel : props.getProperty("kernels").split(",")) {
      assertTrue(text.contains(kernel), FATBIN + " has no kernel " + kernel + ": " + REBUILD);
    }
  }

  /**
   * nvcc 13.0 (release 13.0, V13.0.88) writes the same fatbin bytes on every run, whatever the
   * working directory or the source's path and name (checked by compiling twice, and from a
   * copy under another name). So with the nvcc that built the committed fatbin, the rebuilt bytes
   * must equal it; with another nvcc only compiling without error is required.
   */
  @Test
  void sourceCompilesWithTheRecordedFlags(@TempDir Path tmp) throws Exception {
    Optional<Path> nvcc = Executables.onPath("nvcc");
    assumeTrue(nvcc.isPresent(),
        "nvcc is not on the PATH: the kernel source is not recompiled (the committed fatbin "
            + "is still checked against the source's sha256)");
    Properties props = properties();
    Path out = tmp.resolve("parity_kernels.fatbin");
    List<String> cmd = new ArrayList<>();
    cmd.add(nvcc.get().toString());
    cmd.addAll(List.of(props.getProperty("nvcc.flags").trim().split("\\s+")));
    cmd.addAll(List.of("-o", out.toString(), SOURCE.toAbsolutePath().toString()));
    String log = run(cmd, tmp);
    assertTrue(Files.size(out) > 0, "nvcc wrote an empty fatbin: " + String.join(" ", cmd));

    String version = nvccRelease(run(List.of(nvcc.get().toString(), "--version"), tmp));
    if (version.equals(props.getProperty("nvcc.version"))) {
      assertArrayEquals(resource(FATBIN), Files.readAllBytes(out),
          "nvcc " + version + " builds different bytes from the source than the committed "
              + "fatbin: " + REBUILD + "\n" + log);
    }
  }

  /** The "release X, VY" part of {@code nvcc --version}. */
  private static String nvccRelease(String versionOutput) {
    Matcher m = Pattern.compile("release [0-9.]+, V[0-9.]+").matcher(versionOutput);
    assertTrue(m.find(), "no release line in nvcc --version:\n" + versionOutput);
    return m.group();
  }

  private static String run(List<String> cmd, Path dir) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("did not finish in 120 s: " + String.join(" ", cmd));
    }
    assertEquals(0, p.exitValue(),
        "the kernel source no longer compiles: " + String.join(" ", cmd) + "\n" + log);
    return log;
  }

  private static Properties properties() throws IOException {
    Properties props = new Properties();
    try (InputStream in = open(PROPERTIES)) {
      props.load(in);
    }
    return props;
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = open(name)) {
      return in.readAllBytes();
    }
  }

  /** Through the class loader, as the GPU codec loads its kernels. */
  private static InputStream open(String name) {
    InputStream in = KernelArtifactTest.class.getClassLoader().getResourceAsStream(name);
    assertNotNull(in, name + " is not on the class path: " + REBUILD);
    return in;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("the JDK has no SHA-256", e);
    }
  }
}
