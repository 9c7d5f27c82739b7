/**
 * The parity codec API: a {@link io.parityfs.raid.codec.CodecGeometry} (scheme, k data
 * shards, m parity shards) and the {@link io.parityfs.raid.codec.ParityCodec} that encodes,
 * reconstructs and delta-updates shards of that geometry. Backends (CPU in {@code codec.cpu},
 * GPU in {@code codec.gpu}) implement the contract by extending {@link
 * io.parityfs.raid.codec.AbstractParityCodec}, which validates every call, so that all backends
 * reject bad input the same way. This package names no backend: choosing one is {@code
 * codec.select}'s job.
 */
package io.parityfs.raid.codec;
