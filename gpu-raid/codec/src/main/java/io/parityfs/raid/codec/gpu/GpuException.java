package io.parityfs.raid.codec.gpu;

/**
 * A CUDA driver call failed. Carries the operation and the CUDA error name (for example
 * {@code CUDA_ERROR_OUT_OF_MEMORY}); {@link #cudaCode()} is the driver's {@code CUresult}, or
 * -1 when the failure did not come from a driver call (for example the kernel image is missing).
 *
 * <p>Unchecked because the {@link io.parityfs.raid.codec.ParityCodec} methods declare no
 * checked exceptions. When a codec call throws it, the call's output buffers may be partly
 * written; the codec itself stays usable unless the error was a sticky CUDA error, in which
 * case every later call fails too.
 */
public final class GpuException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final int cudaCode;
  private final String cudaError;

  public GpuException(String operation, int cudaCode, String cudaError) {
    super(operation + " failed: " + cudaError + " (" + cudaCode + ")");
    this.operation = operation;
    this.cudaCode = cudaCode;
    this.cudaError = cudaError;
  }

  public GpuException(String operation, String problem, Throwable cause) {
    super(operation + " failed: " + problem, cause);
    this.operation = operation;
    this.cudaCode = -1;
    this.cudaError = problem;
  }

  /** The driver call or step that failed, e.g. "cuMemAlloc(268435456)". */
  public String operation() {
    return operation;
  }

  /** The {@code CUresult} code, or -1. */
  public int cudaCode() {
    return cudaCode;
  }

  /** The CUDA error name, e.g. "CUDA_ERROR_OUT_OF_MEMORY", or the problem in words. */
  public String cudaError() {
    return cudaError;
  }
}
