/**
 * The GPU self-check: {@link io.parityfs.raid.codec.gpu.check.GpuSelfCheck}, a command-line tool
 * run on a GPU machine by {@code gpu-raid/scripts/gpu-check.sh} (docs/gpu.md, "The GPU
 * self-check"). It checks the GPU codec's bytes against the CPU codec's for every scheme and
 * erasure pattern ({@code EqualityCheck}, {@code ResidentCheck}, {@code ErasurePatterns}),
 * measures throughput and PCIe bandwidth ({@code ThroughputBench}, {@code ThroughputCase},
 * {@code HostStripes}) and a tenant's slowdown ({@code TenantLoad}), and writes the report
 * ({@code SelfCheckReport}).
 *
 * <p>It sits above the codec: it uses {@link io.parityfs.raid.codec.gpu} (the codec, its driver
 * seam {@code CudaDriver} and the pinned buffers, the kernel image, the launch planner) and the
 * CPU codec, and nothing in the codec packages uses it. What it needs of {@code codec.gpu} is
 * public there for it; the codec's own layers stay package-private.
 */
package io.parityfs.raid.codec.gpu.check;
