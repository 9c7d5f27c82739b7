package io.parityfs.raid.bench;

import io.parityfs.raid.gf.GfMatrix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * ISA-L's own C loop ({@code src/bench/c/isal_loop.c}: {@code ec_init_tables} once, then
 * {@code ec_encode_data} per stripe, timed in C) over a {@link StripeSet}'s own direct buffers,
 * the reference the codec's ISA-L kernels are measured against ({@code <id>_vs_isal_c}). The
 * benchmark builds the library with gcc against the installed ISA-L (Debian: {@code libisal-dev})
 * when it starts; where that fails, {@link #unavailableReason} says why and the benchmark runs
 * without the column.
 */
final class IsalCLoop implements AutoCloseable {
  /** The harness source, from the repository root (the benchmark's working directory). */
  static final Path SOURCE = Path.of("gpu-raid/codec/src/bench/c/isal_loop.c");

  /** Where the built library goes. */
  static final Path LIBRARY = Path.of("gpu-raid/codec/target/bench-native/libparityfs-isal-loop.so");

  private static String unavailable;
  private static boolean tried;

  private final long handle;
  private final int stripes;
  private final int len;

  private IsalCLoop(long handle, int stripes, int len) {
    this.handle = handle;
    this.stripes = stripes;
    this.len = len;
  }

  /** Builds and loads the harness once; null when it runs, else why not. */
  static synchronized String unavailableReason() {
    if (!tried) {
      tried = true;
      unavailable = buildAndLoad();
    }
    return unavailable;
  }

  private static String buildAndLoad() {
    if (!Files.isRegularFile(SOURCE)) {
      return SOURCE + " not found (run from the repository root)";
    }
    Path include = Path.of(System.getProperty("java.home"), "include");
    if (!Files.isRegularFile(include.resolve("jni.h"))) {
      return "this JDK has no " + include.resolve("jni.h") + " (a JRE, not a JDK)";
    }
    List<String> cmd = new ArrayList<>(List.of("gcc", "-O2", "-shared", "-fPIC",
        "-I" + include, "-I" + include.resolve("linux"), SOURCE.toString(), "-o",
        LIBRARY.toString(), "-lisal"));
    try {
      Files.createDirectories(LIBRARY.getParent());
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        String first = output.lines().filter(l -> l.contains("error")).findFirst()
            .orElse(output.strip());
        return "gcc could not build " + SOURCE + " against ISA-L (Debian: apt-get install gcc"
            + " libisal-dev): " + first;
      }
    } catch (IOException e) {
      return "gcc did not run (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while building " + SOURCE;
    }
    try {
      System.load(LIBRARY.toAbsolutePath().toString());
    } catch (UnsatisfiedLinkError e) {
      return "the harness built but did not load: " + e.getMessage();
    }
    return null;
  }

  /**
   * The loop over every stripe of {@code set}, with the case's parity matrix (the same rows the
   * codec uses, so the parity it writes is the codec's). Call {@link #unavailableReason} first.
   */
  static IsalCLoop open(BenchCase c, StripeSet set) {
    GfMatrix matrix = c.geometry().parityMatrix();
    byte[] coefficients = new byte[c.k() * c.m()];
    for (int r = 0; r < c.m(); r++) {
      System.arraycopy(matrix.row(r), 0, coefficients, r * c.k(), c.k());
    }
    ByteBuffer[] data = new ByteBuffer[set.stripes * c.k()];
    ByteBuffer[] parity = new ByteBuffer[set.stripes * c.m()];
    for (int s = 0; s < set.stripes; s++) {
      System.arraycopy(set.data[s], 0, data, s * c.k(), c.k());
      System.arraycopy(set.parity[s], 0, parity, s * c.m(), c.m());
    }
    return new IsalCLoop(open(c.k(), c.m(), coefficients, data, parity), set.stripes,
        set.data[0][0].capacity());
  }

  /** Encodes stripes {@code first, first+1, ...} ({@code count} of them, modulo {@code cycle}). */
  long encodeNanos(int first, int count, int cycle) {
    if (cycle > stripes) {
      throw new IllegalArgumentException("cycle " + cycle + " > " + stripes + " stripes");
    }
    return encode(handle, first, count, cycle, len);
  }

  @Override
  public void close() {
    close(handle);
  }

  private static native long open(
      int k, int m, byte[] coefficients, ByteBuffer[] data, ByteBuffer[] parity);

  private static native long encode(long handle, int first, int count, int cycle, int len);

  private static native void close(long handle);
}
