package io.parityfs.client.workload;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs one phase: a thread per worker, released together (thread start-up is not timed); the
 * calling thread reports {@link Progress} every interval until all have finished. The first
 * failure sets a stop flag that every worker checks between operations; the phase then waits
 * for them all and throws that failure. An interrupt of the calling thread, or an exception
 * from the Progress, stops the workers the same way.
 */
final class PhaseRunner {
  private PhaseRunner() {}

  /** An options record's {@code progressInterval}: positive. */
  static void checkInterval(Duration progressInterval) {
    Objects.requireNonNull(progressInterval, "progressInterval");
    if (progressInterval.isNegative() || progressInterval.isZero()) {
      throw new IllegalArgumentException("progressInterval (" + progressInterval
          + ") must be positive");
    }
  }

  /** One worker's share of a phase; returns early when {@link Context#stopped()}. */
  interface Worker {
    void run(int index, Context context) throws BenchException;
  }

  /** What the workers of a phase share: the stop flag, the counters and the histograms. */
  static final class Context {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder files = new LongAdder();
    private final Map<String, LatencyHistogram> latencies = new LinkedHashMap<>();

    /** @param operations the names of the timed operations, in reporting order */
    Context(List<String> operations) {
      operations.forEach(op -> latencies.put(op, new LatencyHistogram()));
    }

    boolean stopped() {
      return stop.get();
    }

    LatencyHistogram latency(String operation) {
      LatencyHistogram h = latencies.get(operation);
      if (h == null) {
        throw new IllegalArgumentException("no operation " + operation + " in " + latencies
            .keySet());
      }
      return h;
    }

    void addBytes(long n) {
      bytes.add(n);
    }

    void fileDone() {
      files.increment();
    }

    PhaseResult result(String phase, long nanos) {
      Map<String, LatencyHistogram.Summary> m = new LinkedHashMap<>();
      latencies.forEach((op, h) -> m.put(op, h.summary()));
      return new PhaseResult(phase, files.sum(), bytes.sum(), nanos, m);
    }
  }

  static PhaseResult run(String phase, int workers, long bytesTotal, long filesTotal,
      List<String> operations, Worker worker, Progress progress, Duration interval)
      throws BenchException, InterruptedIOException {
    Context context = new Context(operations);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(workers);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>(workers);
    for (int i = 0; i < workers; i++) {
      int index = i;
      Thread t = new Thread(() -> {
        try {
          go.await();
          worker.run(index, context);
        } catch (BenchException | RuntimeException | Error e) {
          failure.compareAndSet(null, e);
          context.stop.set(true);
        } catch (InterruptedException e) {
          context.stop.set(true);
        } finally {
          done.countDown();
        }
      }, "bench-" + phase + "-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    long start = System.nanoTime();
    go.countDown();
    long period = Math.max(1, interval.toNanos());
    try {
      while (!done.await(period, TimeUnit.NANOSECONDS)) {
        progress.update(snapshot(context, phase, bytesTotal, filesTotal, start, false));
      }
    } catch (InterruptedException e) {
      context.stop.set(true);
      threads.forEach(Thread::interrupt);
      awaitUninterruptibly(done);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted in the " + phase + " phase");
    } catch (RuntimeException | Error e) { // from the Progress: no worker outlives the phase
      context.stop.set(true);
      awaitUninterruptibly(done);
      throw e;
    }
    long nanos = System.nanoTime() - start;
    progress.update(snapshot(context, phase, bytesTotal, filesTotal, start, true));
    Throwable f = failure.get();
    if (f instanceof BenchException b) {
      throw b;
    } else if (f instanceof RuntimeException r) {
      throw r;
    } else if (f instanceof Error err) {
      throw err;
    }
    return context.result(phase, nanos);
  }

  private static Progress.Snapshot snapshot(Context c, String phase, long bytesTotal,
      long filesTotal, long start, boolean finished) {
    return new Progress.Snapshot(phase, c.bytes.sum(), bytesTotal, c.files.sum(), filesTotal,
        System.nanoTime() - start, finished);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
