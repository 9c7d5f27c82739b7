package io.parityfs.node;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Netty leak detection at PARANOID for every test (registered through the service loader, see
 * junit-platform.properties): every buffer is tracked, and a test class after which a leak is
 * reported fails. Installed before any ByteBuf class loads, so the detectors are ours.
 */
public final class LeakDetectionExtension implements BeforeAllCallback, AfterAllCallback {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

  static {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    collect();
    LEAKS.clear();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    collect();
    if (!LEAKS.isEmpty()) {
      List<String> leaks = new ArrayList<>(LEAKS);
      LEAKS.clear();
      fail(leaks.size() + " buffer leak(s) reported after " + context.getDisplayName() + ":\n"
          + String.join("\n", leaks));
    }
  }

  /** Makes the detectors look at what the collector found: leaks surface on the next track(). */
  static void collect() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (int j = 0; j < 8; j++) {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
        a.release();
        b.release();
      }
    }
  }

  static List<String> leaks() {
    return List.copyOf(LEAKS);
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    @SuppressWarnings("deprecation") // the abstract method Netty still calls
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return new ResourceLeakDetector<T>(resource, samplingInterval) {
        @Override
        protected boolean needReport() {
          return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
          LEAKS.add("LEAK " + resourceType + records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
          LEAKS.add("LEAK " + resourceType + " (untraced)");
        }
      };
    }
  }
}
