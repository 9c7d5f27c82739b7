/**
 * The parity codec API: a {@link io.parityfs.raid.codec.CodecGeometry} (scheme, k data
 * shards, m parity shards) and the {@link io.parityfs.raid.codec.ParityCodec} that encodes,
 * reconstructs and delta-updates shards of that geometry. Backends (CPU, GPU) implement the
 * contract by extending {@link io.parityfs.raid.codec.AbstractParityCodec}, which validates
 * every call, so that all backends reject bad input the same way.
 * {@link io.parityfs.raid.codec.ParityCodecFactory} picks the backend per geometry
 * ({@link io.parityfs.raid.codec.CodecBackend}: auto, cpu or gpu) and says why
 * ({@link io.parityfs.raid.codec.CodecSelection}).
 */
package io.parityfs.raid.codec;
