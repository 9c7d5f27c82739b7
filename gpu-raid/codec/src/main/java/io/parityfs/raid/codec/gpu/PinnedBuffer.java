package io.parityfs.raid.codec.gpu;

import java.nio.ByteBuffer;

/**
 * Page-locked host memory from {@link CudaDriver#allocPinned}: {@code bytes} views all of it
 * (use absolute indexes only), {@code handle} names it to the driver.
 */
public record PinnedBuffer(long handle, ByteBuffer bytes) {}
