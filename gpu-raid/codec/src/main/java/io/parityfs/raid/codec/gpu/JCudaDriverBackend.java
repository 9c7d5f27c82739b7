package io.parityfs.raid.codec.gpu;

import static jcuda.driver.JCudaDriver.cuCtxGetStreamPriorityRange;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamCreateWithPriority;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * {@link CudaDriver} on JCuda's driver API binding ({@code jcuda.driver.JCudaDriver}).
 *
 * <p>Uses the device's primary context (shared with any other driver-API or runtime-API user in
 * this process), made current per thread by {@link #bindThread}. JCuda's exceptions are left as
 * they are (off by default); every result code is checked here and a failure becomes a
 * {@link GpuException} with the {@code CUresult} name.
 *
 * <p>Pointers: JCuda reads a device pointer argument as its native pointer plus its byte offset,
 * so a device address is passed as {@code new CUdeviceptr().withByteOffset(address)}, and an
 * allocation's address is read through {@link Address}, a {@code CUdeviceptr} subclass that may
 * see the protected native pointer. Pinned memory comes from {@code cuMemAllocHost}; JCuda backs
 * the returned {@code Pointer} with a direct {@link ByteBuffer} over the same memory, which is what
 * {@link PinnedBuffer#bytes()} exposes, and a copy passes that {@code Pointer} plus an offset.
 *
 * <p>Load this class only after {@link CudaProbe}'s cheap checks passed: its first use loads
 * JCuda's native library, which needs libcuda.so.1.
 */
final class JCudaDriverBackend implements CudaDriver {
  private final CUcontext context;
  private final DeviceInfo device;
  private final CUfunction[] functions = new CUfunction[CudaKernel.values().length];
  private final ConcurrentHashMap<Long, CUstream> streams = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, Pointer> pinned = new ConcurrentHashMap<>();
  private final AtomicLong handles = new AtomicLong();

  private JCudaDriverBackend(CUcontext context, DeviceInfo device) {
    this.context = context;
    this.device = device;
  }

  /**
   * Initialises the driver and opens device {@code ordinal}'s primary context. Declared to
   * return the interface so that callers' bytecode names no JCuda type.
   */
  static CudaDriver open(int ordinal) {
    check(cuInit(0), "cuInit");
    int[] count = new int[1];
    check(cuDeviceGetCount(count), "cuDeviceGetCount");
    if (count[0] == 0) {
      throw new GpuException("cuDeviceGetCount", CudaErrors.NO_DEVICE, "CUDA_ERROR_NO_DEVICE");
    }
    if (ordinal < 0 || ordinal >= count[0]) {
      throw new IllegalArgumentException(
          "CUDA device " + ordinal + " does not exist (" + count[0] + " devices)");
    }
    CUdevice dev = new CUdevice();
    check(cuDeviceGet(dev, ordinal), "cuDeviceGet(" + ordinal + ")");
    CUcontext ctx = new CUcontext();
    check(cuDevicePrimaryCtxRetain(ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

    byte[] name = new byte[256];
    check(cuDeviceGetName(name, name.length, dev), "cuDeviceGetName");
    long[] memory = new long[1];
    check(cuDeviceTotalMem(memory, dev), "cuDeviceTotalMem");
    int[] least = new int[1];
    int[] greatest = new int[1];
    check(cuCtxGetStreamPriorityRange(least, greatest), "cuCtxGetStreamPriorityRange");
    DeviceInfo info = new DeviceInfo(
        cString(name), ordinal,
        attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        memory[0],
        attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
        attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
        attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
        least[0], greatest[0]);
    return new JCudaDriverBackend(ctx, info);
  }

  @Override
  public DeviceInfo device() {
    return device;
  }

  @Override
  public int driverVersion() {
    int[] v = new int[1];
    check(cuDriverGetVersion(v), "cuDriverGetVersion");
    return v[0];
  }

  @Override
  public void bindThread() {
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  @Override
  public void loadModule(byte[] image) {
    CUmodule module = new CUmodule();
    check(cuModuleLoadData(module, image), "cuModuleLoadData(" + image.length + " bytes)");
    for (CudaKernel k : CudaKernel.values()) {
      CUfunction f = new CUfunction();
      check(cuModuleGetFunction(f, module, k.symbol()), "cuModuleGetFunction(" + k.symbol() + ")");
      functions[k.ordinal()] = f;
    }
  }

  @Override
  public long allocDevice(long bytes) {
    Address p = new Address();
    check(cuMemAlloc(p, bytes), "cuMemAlloc(" + bytes + ")");
    return p.address();
  }

  @Override
  public void freeDevice(long address) {
    check(cuMemFree(at(address)), "cuMemFree");
  }

  @Override
  public PinnedBuffer allocPinned(int bytes) {
    Pointer p = new Pointer();
    check(cuMemAllocHost(p, bytes), "cuMemAllocHost(" + bytes + ")");
    long handle = handles.incrementAndGet();
    pinned.put(handle, p);
    return new PinnedBuffer(handle, p.getByteBuffer(0, bytes));
  }

  @Override
  public void freePinned(PinnedBuffer buffer) {
    Pointer p = pinned.remove(buffer.handle());
    if (p != null) {
      check(cuMemFreeHost(p), "cuMemFreeHost");
    }
  }

  @Override
  public long createStream(int priority) {
    CUstream s = new CUstream();
    check(cuStreamCreateWithPriority(s, CUstream_flags.CU_STREAM_NON_BLOCKING, priority),
        "cuStreamCreateWithPriority(" + priority + ")");
    long handle = handles.incrementAndGet();
    streams.put(handle, s);
    return handle;
  }

  @Override
  public void destroyStream(long stream) {
    CUstream s = streams.remove(stream);
    if (s != null) {
      check(cuStreamDestroy(s), "cuStreamDestroy");
    }
  }

  @Override
  public void copyToDevice(long dst, PinnedBuffer src, int srcOffset, long bytes, long stream) {
    check(cuMemcpyHtoDAsync(at(dst), host(src).withByteOffset(srcOffset), bytes, stream(stream)),
        "cuMemcpyHtoDAsync(" + bytes + ")");
  }

  @Override
  public void copyToHost(PinnedBuffer dst, int dstOffset, long src, long bytes, long stream) {
    check(cuMemcpyDtoHAsync(host(dst).withByteOffset(dstOffset), at(src), bytes, stream(stream)),
        "cuMemcpyDtoHAsync(" + bytes + ")");
  }

  @Override
  public void launch(CudaKernel kernel, int grid, int block, long stream, long... args) {
    if (args.length != kernel.arity()) {
      throw new IllegalArgumentException(
          kernel.symbol() + " takes " + kernel.arity() + " arguments, not " + args.length);
    }
    CUfunction f = functions[kernel.ordinal()];
    if (f == null) {
      throw new IllegalStateException("the kernel module is not loaded");
    }
    NativePointerObject[] params = new NativePointerObject[args.length];
    for (int i = 0; i < args.length; i++) {
      params[i] = kernel.arg(i) == CudaKernel.Arg.INT
          ? Pointer.to(new int[] {Math.toIntExact(args[i])})
          : Pointer.to(new long[] {args[i]});
    }
    check(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream(stream), Pointer.to(params), null),
        "cuLaunchKernel(" + kernel.symbol() + ", grid " + grid + ", block " + block + ")");
  }

  @Override
  public void synchronize(long stream) {
    check(cuStreamSynchronize(stream(stream)), "cuStreamSynchronize");
  }

  private CUstream stream(long handle) {
    CUstream s = streams.get(handle);
    if (s == null) {
      throw new IllegalArgumentException("unknown stream " + handle);
    }
    return s;
  }

  private Pointer host(PinnedBuffer b) {
    Pointer p = pinned.get(b.handle());
    if (p == null) {
      throw new IllegalArgumentException("pinned buffer " + b.handle() + " was freed");
    }
    return p;
  }

  /** A device pointer to {@code address}: JCuda passes native pointer (0) plus byte offset. */
  private static CUdeviceptr at(long address) {
    return new CUdeviceptr().withByteOffset(address);
  }

  private static int attribute(CUdevice dev, int attribute) {
    int[] v = new int[1];
    check(cuDeviceGetAttribute(v, attribute, dev),
        "cuDeviceGetAttribute(" + CUdevice_attribute.stringFor(attribute) + ")");
    return v[0];
  }

  private static String cString(byte[] b) {
    int n = 0;
    while (n < b.length && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, StandardCharsets.US_ASCII);
  }

  private static void check(int result, String operation) {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new GpuException(operation, result, CUresult.stringFor(result));
    }
  }

  /** A {@code CUdeviceptr} whose address (native pointer plus offset) this package can read. */
  private static final class Address extends CUdeviceptr {
    long address() {
      return getNativePointer() + getByteOffset();
    }
  }

  /** CUresult codes used without a driver call. */
  private static final class CudaErrors {
    static final int NO_DEVICE = 100;
  }
}
