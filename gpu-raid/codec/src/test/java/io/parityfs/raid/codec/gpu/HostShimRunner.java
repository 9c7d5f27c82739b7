package io.parityfs.raid.codec.gpu;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one launch of a CUDA kernel on the CPU: gpu-raid/codec/src/test/native/kernel_runner.c,
 * which compiles parity_kernels.cu through the host shim, built with gcc and driven over its
 * stdin/stdout protocol (documented in kernel_runner.c). One process per launch.
 */
final class HostShimRunner {
  /** The kernels, numbered as kernel_runner.c numbers them. */
  enum Kernel {
    XOR(0), PQ(1), GF_APPLY(2), DELTA(3);

    final int code;

    Kernel(int code) {
      this.code = code;
    }
  }

  /** A launch configuration: {@code grid} blocks of {@code block} threads (x only). */
  record Launch(int grid, int block) {
    @Override
    public String toString() {
      return grid + "x" + block;
    }
  }

  static final List<String> GCC_FLAGS = List.of("-O2", "-std=c11", "-Wall", "-Wextra", "-Werror");
  private static final long TIMEOUT_SECONDS = 60;

  private final Path binary;

  private HostShimRunner(Path binary) {
    this.binary = binary;
  }

  /**
   * Compiles kernel_runner.c from {@code moduleDir}/src/test/native into {@code outputDir} with
   * {@code gcc} and {@link #GCC_FLAGS}. Builds into a temporary name and renames, so test runs
   * sharing a tree never execute a half-written binary.
   *
   * @throws AssertionError with gcc's output if the compilation fails
   */
  static HostShimRunner compile(Path gcc, Path moduleDir, Path outputDir)
      throws IOException, InterruptedException {
    return compile(gcc, moduleDir, outputDir, "kernel_runner", List.of());
  }

  /**
   * As {@link #compile(Path, Path, Path)}, into {@code outputDir/name}, with {@code extraFlags}
   * after {@link #GCC_FLAGS} (e.g. sanitizers).
   */
  static HostShimRunner compile(
      Path gcc, Path moduleDir, Path outputDir, String name, List<String> extraFlags)
      throws IOException, InterruptedException {
    Path source = moduleDir.resolve("src/test/native/kernel_runner.c");
    if (!Files.isRegularFile(source)) {
      throw new AssertionError("kernel runner source " + source.toAbsolutePath() + " is missing");
    }
    Files.createDirectories(outputDir);
    Path tmp = outputDir.resolve(name + "." + ProcessHandle.current().pid() + ".tmp");
    List<String> cmd = new ArrayList<>();
    cmd.add(gcc.toString());
    cmd.addAll(GCC_FLAGS);
    cmd.addAll(extraFlags);
    cmd.addAll(List.of("-o", tmp.toString(), source.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("gcc did not finish in " + TIMEOUT_SECONDS + " s: " + cmd);
    }
    if (p.exitValue() != 0) {
      Files.deleteIfExists(tmp);
      throw new AssertionError(
          "gcc failed (exit " + p.exitValue() + ") compiling the CUDA kernels through the host "
              + "shim: " + String.join(" ", cmd) + "\n" + log);
    }
    Path binary = outputDir.resolve(name);
    Files.move(tmp, binary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return new HostShimRunner(binary);
  }

  /**
   * Launches {@code kernel} and returns the output batch.
   *
   * @param coef the coefficient bytes (rows x cols for GF_APPLY, rows for DELTA, else empty)
   * @param in stripes x cols shards (for DELTA: the old data, stripes x 1)
   * @param in2 for DELTA the new data (stripes x 1), else empty
   * @param out the initial output, stripes x rows shards (DELTA XORs into it)
   */
  int[] run(Kernel kernel, int rows, int cols, int words, int stripes, Launch launch,
      byte[] coef, int[] in, int[] in2, int[] out) throws IOException, InterruptedException {
    long inWords = (long) (kernel == Kernel.DELTA ? 1 : cols) * stripes * words;
    long in2Words = kernel == Kernel.DELTA ? (long) stripes * words : 0;
    long outWords = (long) rows * stripes * words;
    if (in.length != inWords || in2.length != in2Words || out.length != outWords) {
      throw new IllegalArgumentException(
          kernel + ": in/in2/out hold " + in.length + "/" + in2.length + "/" + out.length
              + " words, the launch needs " + inWords + "/" + in2Words + "/" + outWords);
    }
    ByteBuffer header = ByteBuffer.allocate(8 * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (long v : new long[] {kernel.code, rows, cols, words, stripes, launch.grid(),
        launch.block(), coef.length}) {
      header.putLong(v);
    }
    ProcessBuilder pb = new ProcessBuilder(binary.toString());
    // A sanitizer build reports leaks of the runner's buffers at exit; they are not bugs.
    pb.environment().put("ASAN_OPTIONS", "detect_leaks=0");
    Process p = pb.start();
    // The runner reads all of its input before it writes, so writing first cannot deadlock.
    IOException writeFailure = null;
    try (OutputStream stdin = p.getOutputStream()) {
      stdin.write(header.array());
      stdin.write(coef);
      stdin.write(littleEndian(in));
      stdin.write(littleEndian(in2));
      stdin.write(littleEndian(out));
    } catch (IOException e) {
      writeFailure = e; // the runner died early: its stderr below says why
    }
    byte[] result = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("kernel_runner did not finish in " + TIMEOUT_SECONDS + " s");
    }
    if (writeFailure != null || p.exitValue() != 0 || result.length != outWords * 4) {
      throw new AssertionError(
          "kernel_runner " + kernel + " " + launch + " exited " + p.exitValue() + " with "
              + result.length + " bytes (expected " + outWords * 4 + ")"
              + (writeFailure == null ? "" : ", input not accepted (" + writeFailure + ")")
              + ": " + err);
    }
    int[] words32 = new int[(int) outWords];
    ByteBuffer.wrap(result).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(words32);
    return words32;
  }

  private static byte[] littleEndian(int[] words) {
    ByteBuffer b = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    b.asIntBuffer().put(words);
    return b.array();
  }
}
