package io.parityfs.raid.codec.gpu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * A {@link CudaDriver} for tests, with no GPU: device memory is direct {@code ByteBuffer}s at
 * made-up addresses, launches run {@link EmulatedKernels}, and every call is recorded in
 * {@link #log()}.
 *
 * <p>Streams are strict: a copy or launch only runs when its stream is synchronised, in queue
 * order. So a host that reads a download before synchronising sees stale bytes, and a host that
 * rewrites a pinned region before the upload that reads it ran is caught: the upload checksums
 * its source when queued and again when it runs, and a difference is recorded in
 * {@link #violations()}. Kernel arguments are bounds-checked against their allocation (an
 * out-of-range pointer fails the launch with CUDA_ERROR_ILLEGAL_ADDRESS, as on a GPU), and a
 * kernel's input and output ranges must not overlap (the kernels' {@code __restrict__}).
 *
 * <p>Thread-safe (every method is synchronized).
 */
public final class EmulatedCudaDriver implements CudaDriver {
  static final int ILLEGAL_ADDRESS = 700;

  enum Kind {
    LOAD_MODULE, ALLOC_DEVICE, FREE_DEVICE, ALLOC_PINNED, FREE_PINNED, CREATE_STREAM,
    DESTROY_STREAM, COPY_TO_DEVICE, COPY_TO_HOST, LAUNCH, SYNCHRONIZE
  }

  /**
   * One recorded call. Fields that do not apply are 0 or null: {@code stream} for stream
   * operations, {@code address} for device memory, {@code pinned}/{@code offset} for a pinned
   * buffer, {@code bytes} for sizes, and the launch fields.
   */
  record Op(Kind kind, long stream, long address, long pinned, int offset, long bytes,
      CudaKernel kernel, int grid, int block, long[] args) {}

  private final DeviceInfo device;
  private final TreeMap<Long, ByteBuffer> memory = new TreeMap<>();
  private final Map<Long, PinnedBuffer> pinned = new HashMap<>();
  private final Map<Long, Deque<Runnable>> queues = new HashMap<>();
  private final Map<Long, Integer> priorities = new HashMap<>();
  private final List<Op> log = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private long nextAddress = 0x7f00_0000_0000L;
  private long nextHandle = 1;
  private int failLaunchesAfter = -1;

  EmulatedCudaDriver(DeviceInfo device) {
    this.device = device;
  }

  /** A small device: {@code sms} SMs of 2048 threads and 32 blocks; priorities 0 (least) .. -5. */
  public static EmulatedCudaDriver withSms(int sms) {
    return new EmulatedCudaDriver(
        new DeviceInfo("emulated GPU", 0, sms, 16L << 30, 9, 0, 2048, 32, 0, -5));
  }

  @Override
  public synchronized DeviceInfo device() {
    return device;
  }

  /** CUDA 13.0, the version of the device machine's driver. */
  @Override
  public synchronized int driverVersion() {
    return 13000;
  }

  @Override
  public synchronized void bindThread() {}

  @Override
  public synchronized void loadModule(byte[] image) {
    record(Kind.LOAD_MODULE, 0, 0, 0, 0, image.length, null, 0, 0, null);
  }

  @Override
  public synchronized long allocDevice(long bytes) {
    long address = nextAddress;
    nextAddress += (bytes + 255) / 256 * 256 + 256;
    memory.put(address, ByteBuffer.allocateDirect(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN));
    record(Kind.ALLOC_DEVICE, 0, address, 0, 0, bytes, null, 0, 0, null);
    return address;
  }

  @Override
  public synchronized void freeDevice(long address) {
    if (memory.remove(address) == null) {
      violations.add("cuMemFree of 0x" + Long.toHexString(address) + ", which is not allocated");
    }
    record(Kind.FREE_DEVICE, 0, address, 0, 0, 0, null, 0, 0, null);
  }

  @Override
  public synchronized PinnedBuffer allocPinned(int bytes) {
    PinnedBuffer b = new PinnedBuffer(nextHandle++, ByteBuffer.allocateDirect(bytes));
    pinned.put(b.handle(), b);
    record(Kind.ALLOC_PINNED, 0, 0, b.handle(), 0, bytes, null, 0, 0, null);
    return b;
  }

  @Override
  public synchronized void freePinned(PinnedBuffer buffer) {
    if (pinned.remove(buffer.handle()) == null) {
      violations.add("cuMemFreeHost of pinned buffer " + buffer.handle() + ", which is not allocated");
    }
    record(Kind.FREE_PINNED, 0, 0, buffer.handle(), 0, 0, null, 0, 0, null);
  }

  @Override
  public synchronized long createStream(int priority) {
    if (priority > device.leastStreamPriority() || priority < device.greatestStreamPriority()) {
      violations.add("stream priority " + priority + " is outside the device's range");
    }
    long s = nextHandle++;
    queues.put(s, new ArrayDeque<>());
    priorities.put(s, priority);
    record(Kind.CREATE_STREAM, s, 0, 0, 0, priority, null, 0, 0, null);
    return s;
  }

  @Override
  public synchronized void destroyStream(long stream) {
    Deque<Runnable> q = queue(stream);
    if (!q.isEmpty()) {
      violations.add("stream " + stream + " destroyed with " + q.size() + " operations queued");
    }
    queues.remove(stream);
    record(Kind.DESTROY_STREAM, stream, 0, 0, 0, 0, null, 0, 0, null);
  }

  @Override
  public synchronized void copyToDevice(long dst, PinnedBuffer src, int srcOffset, long bytes,
      long stream) {
    long crc = crc(src, srcOffset, bytes);
    record(Kind.COPY_TO_DEVICE, stream, dst, src.handle(), srcOffset, bytes, null, 0, 0, null);
    queue(stream).add(() -> {
      if (!pinned.containsKey(src.handle())) {
        violations.add("upload from pinned buffer " + src.handle() + " after it was freed");
        return;
      }
      if (crc(src, srcOffset, bytes) != crc) {
        violations.add("pinned buffer " + src.handle() + " bytes " + srcOffset + ".."
            + (srcOffset + bytes) + " were rewritten before the upload on stream " + stream
            + " that reads them had run");
      }
      ByteBuffer d = resolve(dst, bytes, "upload");
      int at = Math.toIntExact(dst - memory.floorKey(dst));
      d.put(at, src.bytes(), srcOffset, Math.toIntExact(bytes));
    });
  }

  @Override
  public synchronized void copyToHost(PinnedBuffer dst, int dstOffset, long src, long bytes,
      long stream) {
    record(Kind.COPY_TO_HOST, stream, src, dst.handle(), dstOffset, bytes, null, 0, 0, null);
    queue(stream).add(() -> {
      if (!pinned.containsKey(dst.handle())) {
        violations.add("download into pinned buffer " + dst.handle() + " after it was freed");
        return;
      }
      ByteBuffer s = resolve(src, bytes, "download");
      int at = Math.toIntExact(src - memory.floorKey(src));
      dst.bytes().put(dstOffset, s, at, Math.toIntExact(bytes));
    });
  }

  @Override
  public synchronized void launch(CudaKernel kernel, int grid, int block, long stream,
      long... args) {
    if (args.length != kernel.arity()) {
      throw new IllegalArgumentException(kernel + " takes " + kernel.arity() + " arguments");
    }
    if (grid < 1 || block < 1 || block > 1024) {
      throw new GpuException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE");
    }
    long[] a = args.clone();
    record(Kind.LAUNCH, stream, 0, 0, 0, 0, kernel, grid, block, a);
    if (failLaunchesAfter == 0) {
      throw new GpuException("cuLaunchKernel(" + kernel.symbol() + ")", 2,
          "CUDA_ERROR_OUT_OF_MEMORY");
    }
    if (failLaunchesAfter > 0) {
      failLaunchesAfter--;
    }
    queue(stream).add(() -> run(kernel, grid, block, a));
  }

  @Override
  public synchronized void synchronize(long stream) {
    record(Kind.SYNCHRONIZE, stream, 0, 0, 0, 0, null, 0, 0, null);
    Deque<Runnable> q = queue(stream);
    while (!q.isEmpty()) {
      q.poll().run();
    }
  }

  /** Makes launches fail with CUDA_ERROR_OUT_OF_MEMORY after {@code n} more succeed (-1: never). */
  synchronized void failLaunchesAfter(int n) {
    failLaunchesAfter = n;
  }

  synchronized List<Op> log() {
    return List.copyOf(log);
  }

  synchronized void clearLog() {
    log.clear();
  }

  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized int streamPriority(long stream) {
    return priorities.get(stream);
  }

  /** Bytes of device memory currently allocated. */
  public synchronized long deviceBytesAllocated() {
    long total = 0;
    for (ByteBuffer b : memory.values()) {
      total += b.capacity();
    }
    return total;
  }

  /** A view of {@code bytes} of device memory at {@code address}, for tests to fill and read. */
  synchronized ByteBuffer deviceView(long address, int bytes) {
    ByteBuffer b = resolve(address, bytes, "test access").duplicate();
    int at = Math.toIntExact(address - memory.floorKey(address));
    return b.position(at).limit(at + bytes).slice();
  }

  private void run(CudaKernel kernel, int grid, int block, long[] a) {
    switch (kernel) {
      case XOR, PQ -> {
        int cols = (int) a[2];
        long words = a[3];
        long stripes = a[4];
        long outShards = kernel == CudaKernel.XOR ? 1 : 2;
        EmulatedKernels.Words in = words(a[0], stripes * cols * words * 4, kernel);
        EmulatedKernels.Words out = words(a[1], stripes * outShards * words * 4, kernel);
        disjoint(kernel, a[0], stripes * cols * words * 4, a[1], stripes * outShards * words * 4);
        if (kernel == CudaKernel.XOR) {
          EmulatedKernels.xor(grid, block, in, out, cols, words, stripes);
        } else {
          EmulatedKernels.pq(grid, block, in, out, cols, words, stripes);
        }
      }
      case GF_APPLY -> {
        int rows = (int) a[3];
        int cols = (int) a[4];
        long words = a[5];
        long stripes = a[6];
        long inBytes = stripes * cols * words * 4;
        long outBytes = stripes * rows * words * 4;
        disjoint(kernel, a[0], inBytes, a[1], outBytes);
        EmulatedKernels.gfApply(grid, block, words(a[0], inBytes, kernel),
            words(a[1], outBytes, kernel), words(a[2], (long) rows * cols, kernel), rows, cols,
            words, stripes);
      }
      case DELTA -> {
        int rows = (int) a[4];
        long words = a[5];
        long stripes = a[6];
        long dataBytes = stripes * words * 4;
        long outBytes = stripes * rows * words * 4;
        disjoint(kernel, a[0], dataBytes, a[2], outBytes);
        disjoint(kernel, a[1], dataBytes, a[2], outBytes);
        EmulatedKernels.delta(grid, block, words(a[0], dataBytes, kernel),
            words(a[1], dataBytes, kernel), words(a[2], outBytes, kernel),
            words(a[3], rows, kernel), rows, words, stripes);
      }
    }
  }

  private EmulatedKernels.Words words(long address, long bytes, CudaKernel kernel) {
    ByteBuffer b = resolve(address, bytes, kernel.symbol());
    return new EmulatedKernels.Words(b, Math.toIntExact(address - memory.floorKey(address)));
  }

  private void disjoint(CudaKernel kernel, long a, long aBytes, long b, long bBytes) {
    if (a < b + bBytes && b < a + aBytes) {
      violations.add(kernel.symbol() + ": input 0x" + Long.toHexString(a) + "+" + aBytes
          + " overlaps output 0x" + Long.toHexString(b) + "+" + bBytes);
    }
  }

  /** The allocation holding {@code [address, address + bytes)}, or CUDA_ERROR_ILLEGAL_ADDRESS. */
  private ByteBuffer resolve(long address, long bytes, String what) {
    Map.Entry<Long, ByteBuffer> e = memory.floorEntry(address);
    if (e == null || address + bytes > e.getKey() + e.getValue().capacity() || bytes < 0) {
      throw new GpuException(what + " at 0x" + Long.toHexString(address) + "+" + bytes,
          ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS");
    }
    return e.getValue();
  }

  private Deque<Runnable> queue(long stream) {
    Deque<Runnable> q = queues.get(stream);
    if (q == null) {
      throw new GpuException("stream " + stream, 400, "CUDA_ERROR_INVALID_HANDLE");
    }
    return q;
  }

  private void record(Kind kind, long stream, long address, long handle, int offset, long bytes,
      CudaKernel kernel, int grid, int block, long[] args) {
    log.add(new Op(kind, stream, address, handle, offset, bytes, kernel, grid, block, args));
  }

  private static long crc(PinnedBuffer b, int offset, long bytes) {
    CRC32 crc = new CRC32();
    crc.update(b.bytes().duplicate().position(offset).limit(Math.toIntExact(offset + bytes)));
    return crc.getValue();
  }
}
