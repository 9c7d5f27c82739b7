package io.parityfs.raid.codec.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The compiled kernels: the resource {@code parity_kernels.fatbin} beside this class (built from
 * {@code src/main/cuda/parity_kernels.cu} by {@code gpu-raid/scripts/build-kernels.sh}), and the
 * {@code parity_kernels.properties} that records how it was built.
 */
public final class KernelImage {
  static final String FATBIN = "parity_kernels.fatbin";
  static final String PROPERTIES = "parity_kernels.properties";

  private KernelImage() {}

  /**
   * The fatbin bytes.
   *
   * @throws IllegalStateException when the resource is not on the class path
   */
  static byte[] fatbin() {
    try (InputStream in = KernelImage.class.getResourceAsStream(FATBIN)) {
      if (in == null) {
        throw new IllegalStateException("the kernel image " + resourcePath(FATBIN)
            + " is not on the class path (build it with gpu-raid/scripts/build-kernels.sh)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resourcePath(FATBIN), e);
    }
  }

  /** How the image was built (nvcc version, flags, kernels, checksums); empty when absent. */
  static Properties buildInfo() {
    Properties p = new Properties();
    try (InputStream in = KernelImage.class.getResourceAsStream(PROPERTIES)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resourcePath(PROPERTIES), e);
    }
    return p;
  }

  /** One line for logs: "parity_kernels.fatbin (nvcc release 13.0, V13.0.88; sha256 92bd6ecd...)". */
  public static String describe() {
    Properties p = buildInfo();
    String sha = p.getProperty("fatbin.sha256", "?");
    return FATBIN + " (nvcc " + p.getProperty("nvcc.version", "?") + "; sha256 "
        + sha.substring(0, Math.min(8, sha.length())) + "...)";
  }

  private static String resourcePath(String name) {
    return KernelImage.class.getPackageName().replace('.', '/') + "/" + name;
  }
}
