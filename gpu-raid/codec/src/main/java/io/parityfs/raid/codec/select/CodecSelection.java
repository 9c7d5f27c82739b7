package io.parityfs.raid.codec.select;

import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.ParityCodec;

/**
 * Which codec a {@link ParityCodecFactory} chose for a geometry, and why: for logs and metrics.
 *
 * @param geometry the geometry
 * @param requested the configured backend
 * @param chosen {@link CodecBackend#CPU} or {@link CodecBackend#GPU}
 * @param implementation the chosen codec's {@link ParityCodec#implementation()}
 * @param reason one sentence, e.g. "GPU unavailable: libcuda.so.1 not found (...)" or
 *     "calibration: gpu 9.8 GB/s, cpu 2.1 GB/s"
 * @param cpuBytesPerSecond data bytes per second the CPU encoded in calibration, or 0 when not
 *     measured
 * @param gpuBytesPerSecond the same for the GPU, or 0 when not measured
 */
public record CodecSelection(
    CodecGeometry geometry,
    CodecBackend requested,
    CodecBackend chosen,
    String implementation,
    String reason,
    double cpuBytesPerSecond,
    double gpuBytesPerSecond) {

  @Override
  public String toString() {
    return "codec for " + geometry + ": " + chosen.label() + " " + implementation
        + " (" + requested.label() + "; " + reason + ")";
  }
}
