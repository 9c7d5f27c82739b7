package io.parityfs.raid.codec.gpu;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs {@link StripeJob}s on the GPU, many stripes per launch, overlapping the copies of one
 * chunk with the kernel of another.
 *
 * <p>A batch is cut into chunks ({@link BatchPlanner}); chunk i goes to stream i mod streams.
 * For each chunk: wait for that stream's previous chunk and copy its results out to the
 * caller's buffers; copy the chunk's shards into the stream's pinned staging buffer (each padded
 * with zeros to whole 16-byte units); then queue, on that stream, the upload of the coefficients
 * (only when another matrix is resident), the upload of the shards, the launch, and the download
 * of the outputs. At the end, the chunks still in flight are drained oldest first. So while the
 * host stages chunk i+1 and the GPU copies it, the kernel of chunk i runs; and a staging buffer
 * is never rewritten before the stream that reads it has been synchronised.
 *
 * <p>Thread safety: one call at a time; concurrent calls wait on a lock (the GPU work of one call
 * is already spread over every stream). Staging buffers are allocated on first use, grown as
 * needed up to the share's limit, and reused by every later call: a steady stream of batches of
 * one shape allocates no GPU or pinned memory.
 */
final class StripePipeline implements AutoCloseable {
  private final CudaDriver driver;
  private final LaunchPlanner launches;
  private final BatchPlanner batches;
  private final StreamSlot[] slots;
  private final StagingCopier copier;
  private final ReentrantLock lock = new ReentrantLock();
  private boolean closed;

  StripePipeline(CudaDriver driver, GpuShare share) {
    this.driver = driver;
    this.launches = new LaunchPlanner(driver.device(), share.threadsPerBlock());
    this.batches = new BatchPlanner(share);
    this.slots = new StreamSlot[share.streams()];
    this.copier = new StagingCopier(share.stagingThreads());
    driver.bindThread();
    int lowest = driver.device().leastStreamPriority();
    try {
      for (int i = 0; i < slots.length; i++) {
        slots[i] = new StreamSlot(i, driver.createStream(lowest));
      }
    } catch (RuntimeException e) {
      destroyStreams();
      copier.close();
      throw e;
    }
  }

  LaunchPlanner launches() {
    return launches;
  }

  BatchPlanner batches() {
    return batches;
  }

  /**
   * Runs {@code job} with at most {@code fraction} of the device's resident blocks per launch.
   *
   * @throws IllegalArgumentException before any byte is written when a stripe does not fit one
   *     staging area
   * @throws GpuException when a driver call fails (outputs may then be partly written)
   */
  void run(StripeJob job, double fraction) {
    lock.lock();
    try {
      requireOpen();
      int n = job.stripes();
      int shards = job.cols() + job.rows();
      int checked = 0;
      for (int s = 0; s < n; s++) {
        int len = job.length(s);
        if (len > checked) {
          batches.maxStripesPerChunk(shards, len, job.what());
          checked = len;
        }
      }
      driver.bindThread();
      int next = 0;
      try {
        int s = 0;
        while (s < n) {
          int len = job.length(s);
          if (len == 0) {
            s++;
            continue;
          }
          Object key = job.launchKey(s);
          int max = batches.stripesPerChunk(shards, len, n, job.what());
          int e = s + 1;
          while (e < n && e - s < max && job.length(e) == len && job.launchKey(e) == key) {
            e++;
          }
          StreamSlot slot = slots[next];
          next = (next + 1) % slots.length;
          drain(slot);
          submit(slot, job, s, e - s, len, fraction);
          s = e;
        }
        for (int i = 0; i < slots.length; i++) {
          drain(slots[(next + i) % slots.length]);
        }
      } catch (RuntimeException | Error e) {
        abandon();
        throw e;
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Launches {@code kernel} on data already in device memory, on the first stream, and waits for
   * it. {@code coefficients}, when not null, are uploaded first and passed as the kernel's
   * coefficient pointer at {@code coefArg}.
   */
  void runResident(CudaKernel kernel, long[] args, int coefArg, byte[] coefficients, long work,
      double fraction) {
    lock.lock();
    try {
      requireOpen();
      driver.bindThread();
      StreamSlot slot = slots[0];
      try {
        if (coefficients != null) {
          slot.ensure(driver, BatchPlanner.COEF_BYTES, batches.slotBytes());
          uploadCoefficients(slot, coefficients);
          args[coefArg] = slot.device();
        }
        driver.launch(kernel, launches.grid(work, fraction), launches.threadsPerBlock(),
            slot.stream, args);
        driver.synchronize(slot.stream);
      } catch (RuntimeException | Error e) {
        abandon();
        throw e;
      }
    } finally {
      lock.unlock();
    }
  }

  private void submit(StreamSlot slot, StripeJob job, int first, int count, int len,
      double fraction) {
    int cols = job.cols();
    int rows = job.rows();
    long words = BatchPlanner.words(len);
    int padded = (int) (words * 4);
    int inOffset = BatchPlanner.COEF_BYTES;
    int inBytes = count * cols * padded;
    int outOffset = inOffset + inBytes;
    int outBytes = count * rows * padded;
    slot.ensure(driver, (long) outOffset + outBytes, batches.slotBytes());
    ByteBuffer pin = slot.pinned().bytes();
    copier.run(count * cols, t -> {
      int s = t / cols;
      int j = t % cols;
      stage(job.input(first + s, j), pin,
          inOffset + (int) (job.inputWord(s, j, count, words) * 4), len, padded);
    });
    if (job.readsOutputs()) {
      copier.run(count * rows, t -> {
        int s = t / rows;
        stage(job.output(first + s, t % rows), pin, outOffset + t * padded, len, padded);
      });
    }
    // From here on the stream holds queued work: a failure must synchronise it (abandon).
    slot.job = job;
    slot.first = first;
    slot.count = count;
    slot.len = len;
    slot.outOffset = outOffset;
    byte[] coefficients = job.coefficients(first);
    if (coefficients != null && slot.residentCoefficients != coefficients) {
      uploadCoefficients(slot, coefficients);
    }
    long base = slot.device();
    driver.copyToDevice(base + inOffset, slot.pinned(), inOffset,
        job.readsOutputs() ? inBytes + outBytes : inBytes, slot.stream);
    long in = base + inOffset;
    long out = base + outOffset;
    CudaKernel kernel = job.kernel(first);
    long[] args = switch (kernel) {
      case XOR, PQ -> new long[] {in, out, cols, words, count};
      case GF_APPLY -> new long[] {in, out, base, rows, cols, words, count};
      case DELTA -> new long[] {in, in + (long) count * padded, out, base, rows, words, count};
    };
    driver.launch(kernel, launches.grid(words * count, fraction), launches.threadsPerBlock(),
        slot.stream, args);
    driver.copyToHost(slot.pinned(), outOffset, out, outBytes, slot.stream);
  }

  /** Waits for the slot's chunk, if any, and copies its outputs to the caller's buffers. */
  private void drain(StreamSlot slot) {
    if (!slot.busy()) {
      return;
    }
    driver.synchronize(slot.stream);
    StripeJob job = slot.job;
    slot.clear();
    int rows = job.rows();
    int padded = (int) BatchPlanner.paddedBytes(slot.len);
    ByteBuffer pin = slot.pinned().bytes();
    int first = slot.first;
    int outOffset = slot.outOffset;
    int len = slot.len;
    copier.run(slot.count * rows, t -> {
      ByteBuffer dst = job.output(first + t / rows, t % rows);
      dst.put(dst.position(), pin, outOffset + t * padded, len);
    });
  }

  private void uploadCoefficients(StreamSlot slot, byte[] coefficients) {
    slot.pinned().bytes().put(0, coefficients);
    driver.copyToDevice(slot.device(), slot.pinned(), 0, coefficients.length, slot.stream);
    slot.residentCoefficients = coefficients;
  }

  /** Copies {@code len} bytes of {@code src} (from its position) to {@code at}, zero-padded. */
  private static void stage(ByteBuffer src, ByteBuffer pin, int at, int len, int padded) {
    pin.put(at, src, src.position(), len);
    for (int i = len; i < padded; i++) {
      pin.put(at + i, (byte) 0);
    }
  }

  /**
   * After a failure: waits for whatever may still be queued on every stream (best effort), so
   * that no staging buffer is rewritten under a pending copy, and forgets the chunks' outputs.
   */
  private void abandon() {
    for (StreamSlot slot : slots) {
      slot.clear();
      slot.residentCoefficients = null;
      try {
        driver.synchronize(slot.stream);
      } catch (RuntimeException ignored) {
        // The failure being reported is the first one; this one adds nothing.
      }
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the GPU codec is closed");
    }
  }

  /** Frees the staging buffers and streams; later calls fail. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      driver.bindThread();
      abandon();
      for (StreamSlot slot : slots) {
        slot.release(driver);
      }
      destroyStreams();
      copier.close();
    } finally {
      lock.unlock();
    }
  }

  private void destroyStreams() {
    for (StreamSlot slot : slots) {
      if (slot != null) {
        driver.destroyStream(slot.stream);
      }
    }
  }

  /** Bytes of staging memory currently held on the device, all streams together. */
  long deviceBytes() {
    lock.lock();
    try {
      long total = 0;
      for (StreamSlot slot : slots) {
        total += slot.capacity();
      }
      return total;
    } finally {
      lock.unlock();
    }
  }
}
