package io.parityfs.raid.codec.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.gf.Gf256;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A JVM started without {@code --add-modules jdk.incubator.vector} must pick the scalar kernels
 * on its own, log why, and still compute correct parity. On JDK 22+ with ISA-L installed the
 * codec is ISA-L's with the scalar kernels beside it (RAID-6's P+Q, which this checks, runs on
 * them).
 */
class ScalarFallbackTest {

  @Test
  void aJvmWithoutTheVectorModuleFallsBackToScalarKernels() throws Exception {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process p = new ProcessBuilder(List.of(
            java, "-cp", System.getProperty("java.class.path"), ScalarFallbackProbe.class.getName()))
        .redirectErrorStream(true)
        .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("jdk.incubator.vector is not loaded"), "no reason logged: " + out);
    // P = 1^4^7, 2^5^8, 3^6^0x90; Q = D0 + 2*D1 + 4*D2.
    String expected = String.format(" %02x %02x %02x %02x %02x %02x",
        1 ^ 4 ^ 7, 2 ^ 5 ^ 8, 3 ^ 6 ^ 0x90,
        1 ^ Gf256.mul(2, 4) ^ Gf256.mul(4, 7),
        2 ^ Gf256.mul(2, 5) ^ Gf256.mul(4, 8),
        3 ^ Gf256.mul(2, 6) ^ Gf256.mul(4, 0x90));
    String last = out.strip().lines().reduce((a, b) -> b).orElse("");
    int space = last.indexOf(' ');
    String implementation = space < 0 ? last : last.substring(0, space);
    assertTrue(implementation.equals("cpu-scalar") || implementation.equals("cpu-isal+scalar"),
        "the scalar kernels (alone or beside ISA-L's): " + out);
    assertEquals(expected, last.substring(implementation.length()), out);
  }
}
