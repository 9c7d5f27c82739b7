package io.parityfs.raid.bench;

import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ObjectWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A set of equal-size objects written and read through an {@link ObjectStore} by
 * {@code concurrency} caller threads, each taking the next object when done with one. A write is
 * {@code openWriter}, one {@code write} of the stamped image, {@code commit}; a read walks the
 * object front to back in {@code readChunk} requests and checks every byte against the thread's
 * image stamped as that object (one compare per request, as the baselines do).
 */
final class ObjectLoad {
  /** Object ids start here (any value works; a recognisable one helps when reading a drive). */
  static final long FIRST_ID = 0xB0_0000L;

  private final ObjectContent content;
  private final int objects;
  private final int concurrency;
  private final int readChunk;

  ObjectLoad(ObjectContent content, int objects, int concurrency, int readChunk) {
    this.content = content;
    this.objects = objects;
    this.concurrency = concurrency;
    this.readChunk = Math.min(readChunk, content.objectSize());
  }

  int objects() {
    return objects;
  }

  long id(int i) {
    return FIRST_ID + i;
  }

  long totalBytes() {
    return (long) objects * content.objectSize();
  }

  Timed write(ObjectStore store) throws IOException {
    AtomicInteger next = new AtomicInteger();
    AtomicLong commitNanos = new AtomicLong();
    AtomicLong workerNanos = new AtomicLong();
    Timed.Clock clock = Timed.start();
    Parallel.run(concurrency, "array-write", t -> {
      long commit = 0;
      long work = 0;
      for (int i = next.getAndIncrement(); i < objects; i = next.getAndIncrement()) {
        long id = id(i);
        ByteBuffer image = content.image(t, id);
        long t0 = System.nanoTime();
        try (ObjectWriter w = store.openWriter(id)) {
          w.write(image);
          long t1 = System.nanoTime();
          w.commit();
          long t2 = System.nanoTime();
          commit += t2 - t1;
          work += t2 - t0;
        }
      }
      commitNanos.addAndGet(commit);
      workerNanos.addAndGet(work);
    });
    return clock.stop(totalBytes(), commitNanos.get(), workerNanos.get());
  }

  Timed read(ObjectStore store) throws IOException {
    AtomicInteger next = new AtomicInteger();
    int size = content.objectSize();
    Timed.Clock clock = Timed.start();
    Parallel.run(concurrency, "array-read", t -> {
      ByteBuffer buf = ObjectContent.aligned(readChunk);
      for (int i = next.getAndIncrement(); i < objects; i = next.getAndIncrement()) {
        long id = id(i);
        ByteBuffer expected = content.image(t, id);
        for (long at = 0; at < size; ) {
          buf.clear().limit((int) Math.min(readChunk, size - at));
          int n = store.read(id, at, buf);
          if (n != buf.limit()) {
            throw new IOException("object " + id + ": read " + n + " bytes at " + at
                + ", expected " + buf.limit());
          }
          ObjectContent.verifyImage(id, expected, at, buf.flip());
          at += n;
        }
      }
    });
    return clock.stop(totalBytes());
  }

  /** Deletes every object (not timed: makes room before the next write pass). */
  void delete(ObjectStore store) throws IOException {
    for (int i = 0; i < objects; i++) {
      store.delete(id(i));
    }
  }
}
