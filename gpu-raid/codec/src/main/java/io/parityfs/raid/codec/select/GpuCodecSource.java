package io.parityfs.raid.codec.select;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;

/**
 * Where a {@link ParityCodecFactory} gets GPU codecs: normally the JCuda codec on the device
 * {@link io.parityfs.raid.codec.gpu.CudaProbe} found; tests substitute their own.
 */
interface GpuCodecSource {

  /** Why no GPU codec can be made here, or null when one can. Cheap and cached. */
  String unavailableReason();

  /**
   * A new GPU codec for the geometry, owned by the caller (close it when it is
   * {@link AutoCloseable}).
   *
   * @throws IllegalStateException when no GPU is usable
   */
  ParityCodec open(CodecGeometry geometry);
}
