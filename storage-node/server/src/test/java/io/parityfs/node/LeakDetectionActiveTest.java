package io.parityfs.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

/**
 * The protocol module's LeakDetectionExtension (from its test-jar, registered through its
 * META-INF/services and this module's junit-platform.properties) runs for this module's tests.
 */
class LeakDetectionActiveTest {
  @Test
  void nettyLeakDetectionIsParanoid() {
    assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
  }
}
