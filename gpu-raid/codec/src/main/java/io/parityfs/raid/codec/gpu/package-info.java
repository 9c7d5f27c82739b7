/**
 * The GPU parity codec: {@link io.parityfs.raid.codec.gpu.GpuParityCodec} runs the CUDA kernels
 * of {@code src/main/cuda/parity_kernels.cu} (shipped as the fatbin resource
 * {@code parity_kernels.fatbin}) through JCuda, many stripes per launch, on low-priority streams
 * and within a {@link io.parityfs.raid.codec.gpu.GpuShare} of the device.
 *
 * <p>Layers, bottom up: {@code CudaDriver} is the narrow seam over the CUDA driver API
 * ({@code JCudaDriverBackend} implements it; tests use an emulation);
 * {@link io.parityfs.raid.codec.gpu.CudaProbe} decides once, cheaply, whether a GPU is usable,
 * without loading JCuda on a machine that has no NVIDIA driver; {@code LaunchPlanner} and
 * {@code BatchPlanner} turn the share into grid sizes and chunk sizes; {@code StripePipeline}
 * stages chunks of stripes through pinned buffers on alternating streams; the codec maps each
 * {@link io.parityfs.raid.codec.ParityCodec} call onto a {@code StripeJob}.
 *
 * <p>The public surface is the codec, its share, the probe and {@link
 * io.parityfs.raid.codec.gpu.GpuException}, and for the self-check tool above this package
 * ({@link io.parityfs.raid.codec.gpu.check}) the driver seam ({@code CudaDriver}, {@code
 * DeviceInfo}, {@code PinnedBuffer}, {@code CudaKernel}, {@code CudaProbe.driver()}), the codec's
 * constructor on a given driver, {@code KernelImage.describe()} and {@code LaunchPlanner};
 * everything else is package-private. This package uses only {@code raid.codec} and
 * {@code raid.gf}.
 */
package io.parityfs.raid.codec.gpu;
