package io.parityfs.raid.codec.gpu;

/**
 * The CUDA driver operations the GPU codec needs, and nothing more: the seam between the codec's
 * logic and JCuda ({@link JCudaDriverBackend}), so that the whole host side runs against an
 * emulation in the unit tests.
 *
 * <p>Semantics follow the CUDA driver API. Device memory is named by its device address (a
 * {@code long}), streams by an opaque handle. Copies and launches are asynchronous: they are
 * queued on a stream, run in queue order, and are complete only after {@link #synchronize} of
 * that stream returns; until then the host must neither rewrite the pinned bytes a queued
 * host-to-device copy reads nor read the pinned bytes a queued device-to-host copy writes.
 *
 * <p>Thread safety: implementations accept calls from any thread; {@link #bindThread} makes the
 * driver's context current on the calling thread and must be called first by each thread.
 * Failures throw {@link GpuException} carrying the CUDA error name.
 */
public interface CudaDriver {

  /** The device this driver drives. */
  DeviceInfo device();

  /** The CUDA version the installed driver supports, as cuDriverGetVersion says (13000 = 13.0). */
  int driverVersion();

  /** Makes this driver's context current on the calling thread. */
  void bindThread();

  /** Loads the kernel module from a fatbin (or cubin/PTX) image and resolves every kernel. */
  void loadModule(byte[] image);

  /** Allocates {@code bytes} of device memory; returns its device address. */
  long allocDevice(long bytes);

  void freeDevice(long address);

  /** Allocates {@code bytes} of page-locked host memory, the source and target of async copies. */
  PinnedBuffer allocPinned(int bytes);

  void freePinned(PinnedBuffer buffer);

  /**
   * Creates a non-blocking stream (it does not synchronise with the legacy default stream) at a
   * priority within {@code [device().greatestStreamPriority(), device().leastStreamPriority()]}.
   */
  long createStream(int priority);

  void destroyStream(long stream);

  /** Queues a copy of {@code bytes} from {@code src} at {@code srcOffset} to device {@code dst}. */
  void copyToDevice(long dst, PinnedBuffer src, int srcOffset, long bytes, long stream);

  /** Queues a copy of {@code bytes} from device {@code src} into {@code dst} at {@code dstOffset}. */
  void copyToHost(PinnedBuffer dst, int dstOffset, long src, long bytes, long stream);

  /**
   * Queues a launch of {@code kernel} on a one-dimensional grid.
   *
   * @param args one value per kernel parameter, in order (device addresses for pointers)
   */
  void launch(CudaKernel kernel, int grid, int block, long stream, long... args);

  /** Waits until everything queued on {@code stream} has completed. */
  void synchronize(long stream);
}
