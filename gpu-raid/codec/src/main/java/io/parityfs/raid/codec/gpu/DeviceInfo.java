package io.parityfs.raid.codec.gpu;

/**
 * What the codec needs to know about its CUDA device.
 *
 * @param name the device name, e.g. "NVIDIA H200"
 * @param ordinal the CUDA device ordinal
 * @param multiprocessors the number of SMs
 * @param totalMemory device memory in bytes
 * @param computeMajor compute capability, major
 * @param computeMinor compute capability, minor
 * @param maxThreadsPerMultiprocessor resident threads per SM
 * @param maxBlocksPerMultiprocessor resident blocks per SM (0 when the driver does not say)
 * @param leastStreamPriority the lowest stream priority (CUDA's "least", numerically largest)
 * @param greatestStreamPriority the highest stream priority (numerically smallest)
 */
public record DeviceInfo(
    String name,
    int ordinal,
    int multiprocessors,
    long totalMemory,
    int computeMajor,
    int computeMinor,
    int maxThreadsPerMultiprocessor,
    int maxBlocksPerMultiprocessor,
    int leastStreamPriority,
    int greatestStreamPriority) {

  public DeviceInfo {
    if (multiprocessors < 1) {
      throw new IllegalArgumentException("multiprocessors (" + multiprocessors + ") must be >= 1");
    }
    if (maxThreadsPerMultiprocessor < 32) {
      throw new IllegalArgumentException(
          "maxThreadsPerMultiprocessor (" + maxThreadsPerMultiprocessor + ") must be >= 32");
    }
  }

  /** One line for logs: "NVIDIA H200 (device 0, sm_90, 132 SMs, 140 GiB)". */
  public String describe() {
    return name + " (device " + ordinal + ", sm_" + computeMajor + computeMinor + ", "
        + multiprocessors + " SMs, " + (totalMemory >> 30) + " GiB)";
  }
}
