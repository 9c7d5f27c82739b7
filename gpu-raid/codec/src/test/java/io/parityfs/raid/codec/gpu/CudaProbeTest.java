package io.parityfs.raid.codec.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The probe: its pre-check on made-up hosts, and its cached verdict on this machine. The tests
 * that need "no NVIDIA driver here" are skipped on a GPU machine.
 */
class CudaProbeTest {

  /** A host with the given properties, environment and existing paths. */
  record FakeHost(Map<String, String> props, Map<String, String> env, Set<String> paths)
      implements CudaProbe.Host {
    static FakeHost linux(String... paths) {
      Map<String, String> props = new HashMap<>();
      props.put("os.name", "Linux");
      props.put("os.arch", "amd64");
      return new FakeHost(props, new HashMap<>(), new HashSet<>(List.of(paths)));
    }

    @Override
    public String property(String name) {
      return props.get(name);
    }

    @Override
    public String env(String name) {
      return env.get(name);
    }

    @Override
    public boolean exists(String path) {
      return paths.contains(path);
    }
  }

  @Test
  void noLibcudaMeansNoGpu() {
    String reason = CudaProbe.precheck(FakeHost.linux("/dev/nvidiactl"));
    assertTrue(reason.startsWith("libcuda.so.1 not found (no NVIDIA driver; looked in "
        + "LD_LIBRARY_PATH and /usr/lib/x86_64-linux-gnu"), reason);
  }

  @Test
  void libcudaIsFoundInTheUsualDirsOrOnLdLibraryPath() {
    assertNull(CudaProbe.precheck(
        FakeHost.linux("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/dev/nvidiactl")));
    assertNull(CudaProbe.precheck(FakeHost.linux("/usr/lib64/libcuda.so.1", "/dev/nvidiactl")));
    FakeHost custom = FakeHost.linux("/opt/driver/lib/libcuda.so.1", "/dev/nvidiactl");
    assertTrue(CudaProbe.precheck(custom).startsWith("libcuda.so.1 not found"));
    custom.env().put("LD_LIBRARY_PATH", "/nowhere::/opt/driver/lib");
    assertNull(CudaProbe.precheck(custom));
  }

  @Test
  void noDeviceNodeMeansNoGpu() {
    String reason = CudaProbe.precheck(FakeHost.linux("/usr/lib64/libcuda.so.1"));
    assertTrue(reason.startsWith("/dev/nvidiactl not found"), reason);
  }

  @Test
  void disabledOrForeignPlatformsAreRefusedFirst() {
    FakeHost h = FakeHost.linux("/usr/lib64/libcuda.so.1", "/dev/nvidiactl");
    h.props().put(CudaProbe.DISABLED_PROPERTY, "true");
    assertEquals("the GPU is disabled (-Dparityfs.codec.gpu.disabled=true)", CudaProbe.precheck(h));
    FakeHost arm = FakeHost.linux("/usr/lib64/libcuda.so.1", "/dev/nvidiactl");
    arm.props().put("os.arch", "aarch64");
    assertEquals("JCuda natives are bundled for linux-x86_64 only, not linux/aarch64",
        CudaProbe.precheck(arm));
  }

  @Test
  void theKernelImageTheProbeLoadsIsOnTheClassPath() {
    byte[] fatbin = KernelImage.fatbin();
    assertTrue(fatbin.length > 1000, fatbin.length + " bytes");
    assertEquals(0xBA55ED50, java.nio.ByteBuffer.wrap(fatbin)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0), "fatbin magic");
    String d = KernelImage.describe();
    assertTrue(d.startsWith("parity_kernels.fatbin (nvcc release "), d);
  }

  @Test
  void withoutADriverTheVerdictIsQuickCachedAndSaysWhy() {
    String expected = CudaProbe.precheck(CudaProbe.Host.SYSTEM);
    assumeTrue(expected != null, "this machine has an NVIDIA driver");
    long t0 = System.nanoTime();
    CudaProbe.Result first = CudaProbe.result();
    long micros = (System.nanoTime() - t0) / 1000;
    assertFalse(first.available());
    assertEquals(expected, first.reason());
    assertEquals("", first.device());
    assertTrue(micros < 200_000, "probe took " + micros + " µs");
    assertSame(first, CudaProbe.result(), "the verdict is cached");
    IllegalStateException e = assertThrows(IllegalStateException.class, CudaProbe::driver);
    assertEquals(expected, e.getMessage());
  }

  /**
   * Runs the probe in a fresh class loader over the codec's classes and checks which classes it
   * asked for: without a driver it must not touch JCuda (nor the backend that links to it).
   */
  @Test
  void withoutADriverNoJcudaClassIsLoaded() throws Exception {
    assumeTrue(CudaProbe.precheck(CudaProbe.Host.SYSTEM) != null,
        "this machine has an NVIDIA driver");
    URL classes = CudaProbe.class.getProtectionDomain().getCodeSource().getLocation();
    // JCuda's jar too (found as a resource, so this JVM loads no JCuda class for it), so that a
    // probe that touched JCuda would load it and be caught below rather than fail to link.
    String pointer = CudaProbeTest.class.getClassLoader().getResource("jcuda/Pointer.class").toString();
    URL jcudaJar = java.net.URI.create(pointer.substring("jar:".length(), pointer.indexOf("!/"))).toURL();
    // and slf4j-api's, which the probe logs through (no binding: it logs to nothing there)
    URL slf4j = LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
    List<String> requested = Collections.synchronizedList(new ArrayList<>());
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes, jcudaJar, slf4j},
        ClassLoader.getPlatformClassLoader()) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        requested.add(name);
        return super.loadClass(name, resolve);
      }
    }) {
      Class<?> probe = Class.forName(CudaProbe.class.getName(), true, loader);
      Object result = probe.getMethod("result").invoke(null);
      assertEquals(Boolean.FALSE, result.getClass().getMethod("available").invoke(result));
    }
    assertTrue(requested.contains(CudaProbe.class.getName()), requested.toString());
    for (String name : requested) {
      assertFalse(name.startsWith("jcuda."), "the probe loaded " + name + ": " + requested);
      assertFalse(name.endsWith("JCudaDriverBackend"), "the probe loaded " + name);
    }
  }
}
